/**
 * What the CLI prints when a table is hostile: a pre-signed URL that fails is named without its
 * signature, terminal escapes from a column name, a file name or a commit line come out as
 * `\u001b`-style text, JSON output stays the same JSON, and CSV output offers the spreadsheet
 * formula guard without breaking numbers. Tables are built at test time; each case answers
 * within 10 s, in-process (main with a captured io) except one spawned CLI run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { main } from '../../../src/cli/main.ts'
import { escapeControls, printable, safeIo } from '../../../src/cli/io.ts'
import { redactUrls } from '../../../src/util/redact.ts'
import { guardFormula } from '../../../src/util/csv.ts'
import { trialsCsv } from '../../../src/tune/export.ts'
import type { TrialRecord } from '../../../src/tune/types.ts'
import type { ColumnSpec } from '../../../tools/datagen/types.ts'
import { runCli } from '../../support/cli.ts'
import { startFaultServer, type FaultServer } from '../../support/fault-server.ts'
import { frame, ROWS, SPECS, writeTable } from '../../unit/reliability/bad-tables.ts'

const ANSWER_MS = 10_000

/** Secret values of the signing schemes; none may appear in any output. */
const SECRETS = {
  'X-Amz-Signature': 'AMZSIGSECRET',
  'X-Amz-Credential': 'AKIACREDSECRET',
  'X-Amz-Security-Token': 'AMZTOKSECRET',
  sig: 'AZSIGSECRET',
  se: '2030-01-01SECRET',
  sp: 'rSECRET',
  sv: '2024SECRET',
  skoid: 'OIDSECRET',
  'X-Goog-Signature': 'GOOGSIGSECRET',
  'X-Goog-Credential': 'GOOGCREDSECRET',
  token: 'TOKSECRET',
  access_token: 'ATSECRET',
  signature: 'SIGSECRET',
  key: 'KEYSECRET',
}
const SIGNED_QUERY = Object.entries(SECRETS)
  .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
  .join('&')

/** Raw control characters that must never reach a terminal: C0 but \n and \t, DEL, C1. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/
/** A name that would retitle the window, ring the bell, colour and clear the screen. */
const HOSTILE = 'x\u001b]0;pwned\u0007\u001b[31m\u009b2J\u007fy'
const HOSTILE_SHOWN = 'x\\u001b]0;pwned\\u0007\\u001b[31m\\u009b2J\\u007fy'

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = []
  const err: string[] = []
  const code = await main(argv, {
    out: l => {
      out.push(l)
    },
    err: l => {
      err.push(l)
    },
  })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

function expectNoSecret(text: string): void {
  for (const v of Object.values(SECRETS)) expect(text).not.toContain(v)
  expect(text).not.toContain(encodeURIComponent(SECRETS['X-Amz-Credential']))
}

/** Rewrites the table's only commit: `edit` gets and returns its actions as JSON lines. */
async function editCommit(dir: string, edit: (lines: string[]) => string[]): Promise<void> {
  const commit = join(dir, '_delta_log', '00000000000000000000.json')
  const lines = (await readFile(commit, 'utf8')).trim().split('\n')
  await writeFile(commit, edit(lines).join('\n') + '\n')
}

/** The commit lines with the add action's path replaced by `path`. */
function withAddPath(path: string): (lines: string[]) => string[] {
  return lines =>
    lines.map(l => {
      const a = JSON.parse(l) as { add?: { path: string } }
      if (!a.add) return l
      a.add.path = path
      return JSON.stringify(a)
    })
}

let tmp: string
let other: FaultServer
const T = { signed: '', escColumn: '', escFile: '', escCommit: '', csv: '' }
const CSV_SPECS: ColumnSpec[] = [
  { name: '=HYPERLINK("http://x.example")', type: 'string', nullable: true },
  { name: 's', type: 'string', nullable: true },
  { name: 'd', type: 'double', nullable: false },
]
const CSV_STRINGS = ['=1+1', '-1.5', '+SUM(A1)', '@cmd', '\tTAB', '\rCR', 'plain', '-', '-2e-7']

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'snaptrain-hostile-output-'))
  T.signed = join(tmp, 'signed')
  await writeTable(T.signed, frame())
  other = await startFaultServer(T.signed)
  // A pre-signed data file URL on another origin that answers 404.
  await editCommit(T.signed, withAddPath(`${other.tableUrl}missing.parquet?${SIGNED_QUERY}`))

  T.escColumn = join(tmp, 'esc-column')
  const specs = SPECS.map(s => (s.name === 'cat' ? { ...s, name: HOSTILE } : s))
  const f = frame()
  await writeTable(T.escColumn, { ...f, columns: { ...f.columns, [HOSTILE]: f.columns.cat } }, specs)

  T.escFile = join(tmp, 'esc-file')
  await writeTable(T.escFile, frame())
  await editCommit(T.escFile, withAddPath(`part-${HOSTILE}.parquet`))

  T.escCommit = join(tmp, 'esc-commit')
  await writeTable(T.escCommit, frame())
  // A commit line whose protocol names a reader feature: the refusal quotes the name.
  const protocol = {
    protocol: { minReaderVersion: 3, minWriterVersion: 7, readerFeatures: [HOSTILE], writerFeatures: [] },
  }
  await editCommit(T.escCommit, lines => lines.map(l => (l.startsWith('{"protocol"') ? JSON.stringify(protocol) : l)))

  T.csv = join(tmp, 'csv')
  const cells = Array.from({ length: ROWS }, (_, i) => CSV_STRINGS[i % CSV_STRINGS.length])
  const doubles = Float64Array.from({ length: ROWS }, (_, i) => (i % 2 ? -1.5 : 2))
  await writeTable(T.csv, { numRows: ROWS, columns: { [CSV_SPECS[0].name]: cells, s: cells, d: doubles } }, CSV_SPECS)
}, 30_000)

afterAll(async () => {
  await other?.close()
  await rm(tmp, { recursive: true, force: true })
})

describe('secrets: a signed URL that fails is printed redacted', () => {
  it(
    'scan: the 404 names the file, not the signature',
    async () => {
      const r = await cli(['scan', '--table', T.signed])
      expect(r.code).toBe(1)
      expect(r.err).toContain(`${other.tableUrl}missing.parquet?X-Amz-Signature=REDACTED`)
      expect(r.err).toMatch(/404/)
      expectNoSecret(r.err + r.out)
    },
    ANSWER_MS,
  )

  it(
    "train: the Node precheck's 404 likewise",
    async () => {
      const r = await cli(['train', '--table', T.signed, '--label', 'label', '--out', join(tmp, 'run-signed')])
      expect(r.code).toBe(1)
      expect(r.err).toMatch(/snaptrain train: .*missing\.parquet\?X-Amz-Signature=REDACTED.*404/)
      expectNoSecret(r.err + r.out)
    },
    ANSWER_MS,
  )

  it(
    'the real process (bin/snaptrain.js) prints none either, also with SNAPTRAIN_DEBUG stacks',
    async () => {
      const r = await runCli(['scan', '--table', T.signed], { SNAPTRAIN_DEBUG: '1' }, ANSWER_MS)
      expect(r.code).toBe(1)
      expect(r.stderr).toContain('X-Amz-Signature=REDACTED')
      expectNoSecret(r.stderr + r.stdout)
    },
    ANSWER_MS,
  )

  it("one redactor: every scheme's secret values, URL passwords, relative paths, trailing punctuation", () => {
    const url = `https://acct.example/t/p.parquet?${SIGNED_QUERY}`
    const text = redactUrls(`GET ${url}: 404 (see http://user:pa55@h.example/x.) and part-0.parquet?sig=RELSECRET&x=1.`)
    expectNoSecret(text)
    expect(text).not.toContain('pa55')
    expect(text).not.toContain('RELSECRET')
    expect(text).toContain('https://acct.example/t/p.parquet?X-Amz-Signature=REDACTED&')
    expect(text).toContain(': 404 (see http://h.example/x.) and part-0.parquet?sig=REDACTED&x=1.')
    // An S3 listing URL in an error keeps what it listed.
    expect(redactUrls('GET http://h/?list-type=2&prefix=t%2F_delta_log%2F&X-Amz-Signature=S: 403')).toBe(
      'GET http://h/?list-type=2&prefix=t%2F_delta_log%2F&X-Amz-Signature=REDACTED: 403',
    )
  })

  it('the sink: a page error (the page→CLI path) and a progress line through safeIo', () => {
    const got: string[] = []
    const io = safeIo({
      out: l => {
        got.push(l)
      },
      err: l => {
        got.push(l)
      },
    })
    io.err(`snaptrain train: GET https://b.example/t/f.parquet?sig=${SECRETS.sig}: 404 Not Found`)
    io.out(`train: loading https://b.example/t/?X-Goog-Signature=${SECRETS['X-Goog-Signature']}`)
    expectNoSecret(got.join('\n'))
    expect(got).toEqual([
      'snaptrain train: GET https://b.example/t/f.parquet?sig=REDACTED: 404 Not Found',
      'train: loading https://b.example/t/?X-Goog-Signature=REDACTED',
    ])
  })
})

describe('terminal escapes from a table come out escaped', () => {
  it(
    'a column name (in a usage error on stderr)',
    async () => {
      const r = await cli(['scan', '--table', T.escColumn, '--columns', 'nosuch'])
      expect(r.code).toBe(2)
      expect(r.err).toContain(HOSTILE_SHOWN)
      expect(r.err).not.toMatch(RAW_CONTROL)
    },
    ANSWER_MS,
  )

  it(
    'a column name in --json (stdout): escaped, and still the same JSON',
    async () => {
      const r = await cli(['scan', '--table', T.escColumn, '--json'])
      expect(r.code).toBe(0)
      expect(r.out).not.toMatch(RAW_CONTROL)
      const summary = JSON.parse(r.out.split('\n').at(-1)!) as { columns: Array<{ name: string }> }
      expect(summary.columns.map(c => c.name)).toContain(HOSTILE)
    },
    ANSWER_MS,
  )

  it(
    'a column name and values in JSONL rows: escaped, the same JSON',
    async () => {
      const r = await cli(['scan', '--table', T.escColumn, '--limit', '2'])
      expect(r.code).toBe(0)
      expect(r.out).not.toMatch(RAW_CONTROL)
      expect(Object.keys(JSON.parse(r.out.split('\n')[0]!) as object)).toContain(HOSTILE)
    },
    ANSWER_MS,
  )

  it(
    'a file name (in the error naming the missing file)',
    async () => {
      const r = await cli(['scan', '--table', T.escFile])
      expect(r.code).toBe(1)
      expect(r.err).toContain('\\u001b]0;pwned\\u0007')
      expect(r.err).not.toMatch(RAW_CONTROL)
    },
    ANSWER_MS,
  )

  it(
    'a commit line (a reader feature it names, in the refusal)',
    async () => {
      const r = await cli(['scan', '--table', T.escCommit])
      expect(r.code).toBe(1)
      expect(r.err).toContain(HOSTILE_SHOWN)
      expect(r.err).not.toMatch(RAW_CONTROL)
    },
    ANSWER_MS,
  )

  it('escapeControls: C0 but \\n and \\t, DEL and C1 (CSI U+009B); printable also redacts', () => {
    expect(escapeControls('a\u0000b\u0007c\u001bd\u007fe\u0085f\u009bg\n\th\r')).toBe(
      'a\\u0000b\\u0007c\\u001bd\\u007fe\\u0085f\\u009bg\n\th\\u000d',
    )
    expect(escapeControls('Zürich – ok')).toBe('Zürich – ok')
    expect(printable('\u001b[2J https://h/x?sig=S')).toBe('\\u001b[2J https://h/x?sig=REDACTED')
  })
})

describe('CSV: the formula-injection guard (--csv-formula-guard, off by default)', () => {
  const header = '"=HYPERLINK(""http://x.example"")",s,d'
  it(
    'off: the data exactly as in the table',
    async () => {
      const r = await cli(['scan', '--table', T.csv, '--format', 'csv', '--limit', '9'])
      expect(r.code).toBe(0)
      const lines = r.out.split('\n')
      expect(lines[0]).toBe(header)
      expect(lines[1]).toBe('=1+1,=1+1,2')
    },
    ANSWER_MS,
  )

  for (const path of [[], ['--shards', '1', '--shard', '0']]) {
    const name = path.length ? 'data path' : 'plain scan'
    it(
      `on (${name}): text cells that would run get a leading ', numbers stay numbers`,
      async () => {
        const r = await cli([
          'scan',
          '--table',
          T.csv,
          '--format',
          'csv',
          '--limit',
          '9',
          '--csv-formula-guard',
          ...path,
        ])
        expect(r.code).toBe(0)
        const text = r.out
        expect(text.split('\n').slice(0, 10).join('\n')).toBe(
          [
            `"'=HYPERLINK(""http://x.example"")",s,d`,
            "'=1+1,'=1+1,2",
            '-1.5,-1.5,-1.5',
            "'+SUM(A1),'+SUM(A1),2",
            "'@cmd,'@cmd,-1.5",
            "'\tTAB,'\tTAB,2",
            `"'\rCR","'\rCR",-1.5`,
            'plain,plain,2',
            "'-,'-,-1.5",
            '-2e-7,-2e-7,2',
          ].join('\n'),
        )
      },
      ANSWER_MS,
    )
  }

  it('guardFormula and trials.csv (sweep --csv-formula-guard): strings only, negative metrics kept', () => {
    expect(['=A1', '+1x', '-x', '@x', '\tx', '\rx', '-1.5', '+3', '1e5', 'x=1', ''].map(guardFormula)).toEqual([
      "'=A1",
      "'+1x",
      "'-x",
      "'@x",
      "'\tx",
      "'\rx",
      '-1.5',
      '+3',
      '1e5',
      'x=1',
      '',
    ])
    const trial = {
      id: 0,
      config: { objective: '=cmd', eta: -0.5 },
      status: 'failed',
      bracket: 0,
      rung: 0,
      resource: 1,
      curve: [],
      metric: -0.25,
      gpuSeconds: 0,
      wallSeconds: 0,
      error: '=HYPERLINK("x") in column x',
    } as unknown as TrialRecord
    const guarded = trialsCsv([trial], { formulaGuard: true }).split('\r\n')[1]
    expect(guarded).toBe(`0,failed,,0,0,1,,,-0.25,0,0,"'=HYPERLINK(""x"") in column x",-0.5,'=cmd`)
    expect(trialsCsv([trial]).split('\r\n')[1]).toBe(
      '0,failed,,0,0,1,,,-0.25,0,0,"=HYPERLINK(""x"") in column x",-0.5,=cmd',
    )
  })
})
