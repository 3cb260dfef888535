/**
 * `snaptrain scan` and `snaptrain shares` on Delta Sharing tables, in-process (main with a captured
 * io), against the test sharing server (tests/support/sharing-server.ts) sharing conformance
 * tables: deletion vectors, column mapping, partitions, checkpoints. A share gives exactly the
 * rows of the same folder read directly, at the latest version, at `--version` and at
 * `--timestamp`, with `--filter` sent as partition hints and with `--format ids`; its file URLs
 * expire during the scan (a held first request) and are renewed; no file request carries the
 * token. Bad profiles, addresses and server answers fail with one stderr line naming the cause.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { runMain, type CliResult } from '../../support/cli.ts'
import {
  authorizedFileRequests,
  conformanceTable,
  fileRequests,
  holdFirstFileRequests,
  queries,
  queryBodies,
  renewalsAfterExpiry,
  writeProfile,
  type TableKey,
} from '../../support/share-fixture.ts'
import { startSharingServer, type SharingServer, type SharingServerOptions } from '../../support/sharing-server.ts'

/** File URLs live 1 s; a held request waits longer, so its URL has expired when it arrives. */
const URL_LIFETIME_S = 1
const HOLD_MS = 1_300
/** Commit i of the timed copy is dated BASE + i minutes (whole seconds: HTTP dates carry no ms). */
const BASE_MS = Date.UTC(2024, 0, 1)
const MINUTE = 60_000

const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-share-scan-'))
/** basic-dv-with-checkpoint (46 versions, a checkpoint every 10) with commit times one minute apart. */
const TIMED = join(tmp, 'timed')

/** The shared tables: name in schema `golden` of share `lab`, folder, and versions to time-travel to. */
const TABLES: Record<string, { dir: string; versions: number[] }> = {
  dv_cm: { dir: conformanceTable('golden/table-with-dv-small'), versions: [0] },
  dv_part_ck: { dir: conformanceTable('golden/dv-partitioned-with-checkpoint'), versions: [5, 12] },
  dv_ck: { dir: conformanceTable('golden/basic-dv-with-checkpoint'), versions: [22] },
  dv_cm_part_ck: { dir: conformanceTable('golden/dv-with-columnmapping'), versions: [3] },
  cm_name: { dir: conformanceTable('golden/table-with-columnmapping-mode-name'), versions: [] },
  letters: { dir: conformanceTable('dat/basic_partitioned/delta'), versions: [0] },
}
const key = (table: string): TableKey => `lab.golden.${table}`

/** The fault the server answers next (tests set it; reset after each). */
let fault: SharingServerOptions['inject']
/** S3's answer to a pre-signed URL past its expiry, as the server sends it. */
const EXPIRED_XML =
  '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>'
const OAUTH = { clientId: 'snaptrain-test', clientSecret: 'oauth-secret-7f3a' }

let server: SharingServer
let profile: string
beforeAll(async () => {
  cpSync(TABLES.dv_ck.dir, TIMED, { recursive: true })
  const log = join(TIMED, '_delta_log')
  for (const name of readdirSync(log).filter(n => /^\d{20}\.json$/.test(n))) {
    const at = (BASE_MS + Number(name.slice(0, 20)) * MINUTE) / 1000
    utimesSync(join(log, name), at, at)
  }
  server = await startSharingServer({
    tables: [
      ...Object.entries(TABLES).map(([table, t]) => ({ share: 'lab', schema: 'golden', table, dir: t.dir })),
      { share: 'lab', schema: 'golden', table: 'timed', dir: TIMED },
      { share: 'lab', schema: 'legacy', table: 'dv_parquet_only', dir: TABLES.dv_cm.dir, parquetOnly: true },
    ],
    urlLifetimeS: URL_LIFETIME_S,
    oauth: OAUTH,
    inject: req => fault?.(req),
  })
  profile = writeProfile(tmp, 'lab.share', server.profile())
})
afterEach(() => {
  fault = undefined
})
afterAll(async () => {
  await server?.close()
  rmSync(tmp, { recursive: true, force: true })
})

function scan(args: string[]): Promise<CliResult> {
  return runMain(['scan', ...args])
}

/** The scan's rows (JSONL) and its --json summary, from `--format jsonl --json`. */
function rowsAndSummary(r: CliResult): { rows: string[]; summary: Record<string, unknown> } {
  expect(r.stderr).toBe('')
  expect(r.code).toBe(0)
  const lines = r.stdout.trim().split('\n')
  return { rows: lines.slice(0, -1), summary: JSON.parse(lines.at(-1)!) }
}

/** Scans the table through the share and directly with the same flags; both must succeed. */
async function bothWays(table: string, flags: string[], dir = TABLES[table]?.dir ?? TIMED) {
  const [shared, direct] = await Promise.all([
    scan(['--table', `${profile}#${key(table)}`, ...flags]),
    scan(['--table', dir, ...flags]),
  ])
  return { shared, direct }
}

/** The same rows in the same order, and the same summary but for the table's name. */
function expectSameScan(shared: CliResult, direct: CliResult): { rows: string[]; summary: Record<string, unknown> } {
  const s = rowsAndSummary(shared)
  const d = rowsAndSummary(direct)
  expect(s.rows).toEqual(d.rows)
  expect({ ...s.summary, table: undefined }).toEqual({ ...d.summary, table: undefined })
  return d
}

/** One failing run: non-zero exit, nothing on stdout, one stderr line matching every pattern. */
function expectFailure(r: CliResult, ...patterns: (string | RegExp)[]): void {
  expect(r.code, r.stderr).not.toBe(0)
  expect(r.stdout).toBe('')
  const lines = r.stderr.trim().split('\n')
  expect(lines, r.stderr).toHaveLength(1)
  for (const p of patterns) {
    if (typeof p === 'string') expect(lines[0]).toContain(p)
    else expect(lines[0]).toMatch(p)
  }
}

describe('snaptrain scan through a share reads what the folder holds', () => {
  it('at the latest version, each table gives the same rows and summary', async () => {
    const before = server.log.length
    const runs = await Promise.all(Object.keys(TABLES).map(t => bothWays(t, ['--format', 'jsonl', '--json'])))
    for (const { shared, direct } of runs) expect(expectSameScan(shared, direct).rows.length).toBeGreaterThan(0)
    const log = server.log.slice(before)
    for (const table of Object.keys(TABLES)) {
      expect(queryBodies(log, key(table))[0]).toEqual({ includeRefreshToken: true })
      expect(fileRequests(log, key(table)).length, table).toBeGreaterThan(0)
    }
    expect(authorizedFileRequests(log)).toEqual([])
  })

  it('file URLs that expire mid-scan are renewed by a query, and the rows stay the same', async () => {
    const tables = ['dv_cm_part_ck', 'letters']
    const before = server.log.length
    const hold = holdFirstFileRequests(server.origin, HOLD_MS)
    try {
      const runs = await Promise.all(tables.map(t => bothWays(t, ['--format', 'jsonl', '--json'])))
      for (const { shared, direct } of runs) expectSameScan(shared, direct)
    } finally {
      hold.restore()
    }
    expect(hold.held).toHaveLength(tables.length)
    const log = server.log.slice(before)
    for (const table of tables) {
      // The held URL was refused as expired, a query renewed it, and the file was then read.
      expect(renewalsAfterExpiry(log, key(table)).length, table).toBeGreaterThan(0)
    }
    expect(authorizedFileRequests(log)).toEqual([])
  })

  it('--version N reads version N, pinned in the query', async () => {
    const before = server.log.length
    const cases = Object.entries(TABLES).flatMap(([table, t]) => t.versions.map(v => [table, v] as const))
    const runs = await Promise.all(
      cases.map(([table, v]) => bothWays(table, ['--version', String(v), '--format', 'jsonl', '--json'])),
    )
    runs.forEach(({ shared, direct }, i) => {
      expect(expectSameScan(shared, direct).summary.version).toBe(cases[i][1])
    })
    const log = server.log.slice(before)
    for (const [table, v] of cases) expect(queryBodies(log, key(table))).toContainEqual({ version: v })
    expect(authorizedFileRequests(log)).toEqual([])
  })

  it('--timestamp between two commits reads the earlier one; at a commit time, that commit', async () => {
    const between = new Date(BASE_MS + 12 * MINUTE + 30_000).toISOString()
    const at = new Date(BASE_MS + 21 * MINUTE).toISOString()
    const before = server.log.length
    for (const [timestamp, version] of [
      [between, 12],
      [at, 21],
    ] as const) {
      const { shared, direct } = await bothWays('timed', ['--timestamp', timestamp, '--format', 'jsonl', '--json'])
      expect(expectSameScan(shared, direct).summary.version).toBe(version)
    }
    expect(queryBodies(server.log.slice(before), key('timed'))).toEqual([{ timestamp: between }, { timestamp: at }])
  })

  it('--filter on a partition column: the query carries it as jsonPredicateHints, rows stay equal', async () => {
    const cases: Array<[string, string, string, string]> = [
      ['letters', "letter = 'a'", 'letter', 'string'],
      ['dv_part_ck', 'part = 3', 'part', 'int'],
      ['dv_cm_part_ck', 'part = 1', 'part', 'int'],
    ]
    const before = server.log.length
    for (const [table, filter, column, valueType] of cases) {
      const { shared, direct } = await bothWays(table, ['--filter', filter, '--format', 'jsonl', '--json'])
      const s = rowsAndSummary(shared)
      const d = rowsAndSummary(direct)
      expect(s.rows.length).toBeGreaterThan(0)
      expect(s.rows).toEqual(d.rows)
      expect(s.summary.rows).toBe(d.summary.rows)
      const [body] = queryBodies(server.log.slice(before), key(table))
      const value = filter.split('=')[1].trim().replace(/'/g, '')
      expect(JSON.parse(String(body.jsonPredicateHints))).toEqual({
        op: 'equal',
        children: [
          { op: 'column', name: column, valueType },
          { op: 'literal', value, valueType },
        ],
      })
    }
  })

  it('--format ids: the same row identities in the same shuffled, sharded order', async () => {
    for (const table of ['dv_part_ck', 'dv_cm_part_ck']) {
      const flags = ['--format', 'ids', '--seed', '7', '--shards', '2', '--shard', '1']
      const { shared, direct } = await bothWays(table, flags)
      expect(shared.code, shared.stderr).toBe(0)
      expect(direct.code, direct.stderr).toBe(0)
      expect(shared.stdout.trim().split('\n').length).toBeGreaterThan(1)
      expect(shared.stdout).toBe(direct.stdout)
    }
  })

  it('a 429 with Retry-After on the first query is waited out, then answered', async () => {
    const before = server.log.length
    const path = '/delta-sharing/shares/lab/schemas/golden/tables/dv_cm/query'
    let refused = false
    fault = req => {
      if (refused || req.path !== path) return undefined
      refused = true
      const body = JSON.stringify({ errorCode: 'RESOURCE_EXHAUSTED', message: 'slow down' })
      return { status: 429, headers: { 'Retry-After': '1', 'Content-Type': 'application/json' }, body }
    }
    const { shared, direct } = await bothWays('dv_cm', ['--format', 'jsonl', '--json'])
    expectSameScan(shared, direct)
    const [first, second] = queries(server.log.slice(before), key('dv_cm'))
    expect([first.status, second.status]).toEqual([429, 200])
    // Retry-After is 1 s; 2 ms spare for the server's and the timer's clocks disagreeing.
    expect(second.at - first.at).toBeGreaterThanOrEqual(998)
  })

  it('an OAuth (version 2) profile: a token from the token endpoint; the secret goes to it only', async () => {
    const oauth = writeProfile(tmp, 'oauth.share', server.profile({ version: 2 }))
    const before = server.log.length
    const [shared, direct] = await Promise.all([
      scan(['--table', `${oauth}#${key('dv_part_ck')}`, '--format', 'jsonl', '--json']),
      scan(['--table', TABLES.dv_part_ck.dir, '--format', 'jsonl', '--json']),
    ])
    expectSameScan(shared, direct)
    const log = server.log.slice(before)
    const tokenCalls = log.filter(e => e.kind === 'token')
    expect(tokenCalls.map(e => e.status)).toEqual([200])
    const basic = `Basic ${Buffer.from(`${OAUTH.clientId}:${OAUTH.clientSecret}`).toString('base64')}`
    expect(tokenCalls[0].authorization).toBe(basic)
    const api = log.filter(e => e.kind === 'api')
    expect(api.length).toBeGreaterThan(0)
    for (const e of api) expect(e.authorization).toMatch(/^Bearer \S+$/)
    const secretForms = [OAUTH.clientSecret, Buffer.from(OAUTH.clientSecret).toString('base64'), basic]
    for (const e of log.filter(x => x.kind !== 'token')) {
      const seen = [e.authorization, e.path, e.query, e.body].join('\n')
      for (const s of secretForms) expect(seen).not.toContain(s)
    }
    expect(authorizedFileRequests(log)).toEqual([])
  })
})

describe('snaptrain shares --profile', () => {
  it('--json lists every share, schema and table; plain output prints one share.schema.table a line', async () => {
    const r = await runMain(['shares', '--profile', profile, '--json'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({
      endpoint: server.endpoint,
      shares: [
        {
          name: 'lab',
          schemas: [
            { name: 'golden', tables: [...Object.keys(TABLES), 'timed'] },
            { name: 'legacy', tables: ['dv_parquet_only'] },
          ],
        },
      ],
    })
    const plain = await runMain(['shares', '--profile', profile])
    expect(plain.code).toBe(0)
    expect(plain.stdout.trim().split('\n')).toEqual([
      ...[...Object.keys(TABLES), 'timed'].map(t => `lab.golden.${t}`),
      'lab.legacy.dv_parquet_only',
    ])
    expect(plain.stdout).not.toContain('test-token')
  })
})

describe('snaptrain scan through a share: bad input fails naming the cause', () => {
  /** Scans `<profile>#<coords>` expecting a failure; returns the run and the requests it made. */
  async function failingScan(
    profilePath: string,
    coords: string,
  ): Promise<{ r: CliResult; log: SharingServer['log'] }> {
    const before = server.log.length
    const r = await scan(['--table', `${profilePath}#${coords}`, '--timeout-ms', '2000'])
    return { r, log: server.log.slice(before) }
  }

  it('a profile that is not JSON, or of an unknown version: named before any request', async () => {
    const text = writeProfile(tmp, 'text.share', 'endpoint = http://example.test/')
    const v3 = writeProfile(tmp, 'v3.share', { ...server.profile(), shareCredentialsVersion: 3 })
    for (const [path, what] of [
      [text, /is not JSON/],
      [v3, /shareCredentialsVersion 3/],
    ] as const) {
      const { r, log } = await failingScan(path, key('dv_cm'))
      expectFailure(r, path, what)
      expect(log).toEqual([])
    }
  })

  it('an expired profile: names its expiry, and no request reaches the server', async () => {
    const expiry = '2020-01-01T00:00:00.000Z'
    const expired = writeProfile(tmp, 'expired.share', server.profile({ expirationTime: expiry }))
    const { r, log } = await failingScan(expired, key('dv_cm'))
    expectFailure(r, expired, `expired at ${expiry}`)
    expect(log).toEqual([])
  })

  it('a wrong token: 401, naming the table and the refused token', async () => {
    const wrong = writeProfile(tmp, 'wrong.share', server.profile({ token: 'not-the-token' }))
    const { r, log } = await failingScan(wrong, key('dv_cm'))
    expectFailure(r, key('dv_cm'), '401', /token was refused/)
    expect(log.map(e => e.status)).toEqual([401])
  })

  it('a table that is not shared: 404, naming it', async () => {
    const { r } = await failingScan(profile, 'lab.golden.nope')
    expectFailure(r, 'lab.golden.nope', '404', /not shared/)
  })

  it('a server that answers only the parquet format, for a table with deletion vectors', async () => {
    const { r, log } = await failingScan(profile, 'lab.legacy.dv_parquet_only')
    expectFailure(r, 'lab.legacy.dv_parquet_only', /only the parquet response format/, /deletionVectors/)
    expect(fileRequests(log)).toEqual([])
  })

  it('a #share.schema.table that does not parse: names the address, sends nothing', async () => {
    const { r, log } = await failingScan(profile, 'onlytwo.parts')
    expectFailure(r, `${profile}#onlytwo.parts`, /expected <share>\.<schema>\.<table>/)
    expect(log).toEqual([])
  })

  it('a renewal that keeps failing: names the renewal and the table, and ends', async () => {
    const path = '/delta-sharing/shares/lab/schemas/golden/tables/dv_cm/query'
    let opened = false
    let expired = false
    fault = req => {
      // The first file URL is refused as the server refuses one past its lifetime (the real
      // expiry is the test above); every query after the first fails.
      if (req.kind === 'file' && !expired) {
        expired = true
        return { status: 403, headers: { 'Content-Type': 'application/xml' }, body: EXPIRED_XML }
      }
      if (req.path !== path) return undefined
      if (!opened) return void (opened = true)
      // Retries and the fallback from the refresh token to a pinned query are bounded: the
      // run fails within the test's timeout instead of asking forever.
      return { status: 500, body: JSON.stringify({ errorCode: 'INTERNAL_ERROR', message: 'renewal broken' }) }
    }
    const { r, log } = await failingScan(profile, key('dv_cm'))
    expectFailure(r, key('dv_cm'), /renewing the file URLs of version 1 failed/, /500/)
    const [first, ...renewals] = queries(log, key('dv_cm'))
    expect(first.status).toBe(200)
    expect(renewals.length).toBeGreaterThan(0)
    for (const q of renewals) expect(q.status).toBe(500)
    expect(fileRequests(log).filter(f => f.status < 300)).toEqual([])
  })
})
