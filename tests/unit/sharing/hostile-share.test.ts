/**
 * The Delta Sharing client against servers that misbehave on purpose (tests/support/sharing-hostile.ts):
 * files told apart only by their URL's query string are all read, and renewed file by file; a file
 * listed twice (or one URL under two ids), a repeated page token, pages that repeat files or list
 * items, and answers past the page, file or byte bound are refused with one error naming the cause
 * and the bound, after no more requests than the refusal needs and without reading a file; names
 * that are not path segments (`..`, a newline) never reach a request, and `snaptrain shares` prints
 * a name with a newline on one line.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { parseProfile } from '../../../src/sharing/profile.ts'
import { SharingClient } from '../../../src/sharing/rest.ts'
import { SharedTableSession } from '../../../src/sharing/shared-table.ts'
import type { ShareAnswerLimits } from '../../../src/table/types.ts'
import { type CliResult, runMain } from '../../support/cli.ts'
import { conformanceTable, writeProfile } from '../../support/share-fixture.ts'
import {
  HOSTILE_TOKEN,
  type HostileOptions,
  type HostileShare,
  type Misbehaviour,
  startHostileShare,
} from '../../support/sharing-hostile.ts'

/** Six files of one row each, in partitions by letter (a null one among them). */
const LETTERS = conformanceTable('dat/basic_partitioned/delta')
const T = { share: 's', schema: 'd', table: 't' }

const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-hostile-share-'))
let server: HostileShare | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

async function start(misbehave?: Misbehaviour, extra: Partial<HostileOptions> = {}): Promise<string> {
  server = await startHostileShare({ dir: LETTERS, ...(misbehave ? { misbehave } : {}), ...extra })
  return writeProfile(tmp, `${misbehave ?? 'plain'}.share`, server.profile)
}

function client(shareLimits?: ShareAnswerLimits): SharingClient {
  const profile = parseProfile(JSON.stringify(server!.profile), 'hostile profile')
  return new SharingClient(profile, 'hostile profile', { attempts: 1, ...(shareLimits ? { shareLimits } : {}) })
}

const queries = () => server!.log.filter(r => r.method === 'POST' && r.target.endsWith('/query'))
const fileReads = () => server!.log.filter(r => r.target.startsWith('/files/'))
const listCalls = (path: string) => server!.log.filter(r => r.target.split('?')[0] === path)

/** The scan's data rows, from `--format jsonl`. */
function rows(r: CliResult): string[] {
  expect(r.stderr).toBe('')
  expect(r.code).toBe(0)
  return r.stdout.trim().split('\n').sort()
}

/** One failing run: non-zero exit, nothing on stdout, one stderr line holding every part and no token. */
function expectRefusal(r: CliResult, ...parts: string[]): string {
  expect(r.code, r.stderr).not.toBe(0)
  expect(r.stdout).toBe('')
  const lines = r.stderr.trim().split('\n')
  expect(lines, r.stderr).toHaveLength(1)
  for (const p of parts) expect(lines[0]).toContain(p)
  expect(lines[0]).not.toContain(HOSTILE_TOKEN)
  return lines[0]!
}

describe('file identity: a file is its id, not its URL without the query', () => {
  it('reads every file when the URLs differ only in their query string', async () => {
    const profile = await start('query-string-urls')
    const direct = rows(await runMain(['scan', '--table', LETTERS, '--format', 'jsonl']))
    expect(direct).toHaveLength(6)
    const shared = rows(await runMain(['scan', '--table', `${profile}#s.d.t`, '--format', 'jsonl']))
    expect(shared).toEqual(direct)
    // Each of the six files was fetched, under its own query.
    expect(new Set(fileReads().map(r => new URL(r.target, 'http://x').searchParams.get('f'))).size).toBe(6)
  })

  it('renews such URLs by file id: each stable URL keeps its own file', async () => {
    await start('query-string-urls', { urlLifetimeMs: 2_000 })
    const session = new SharedTableSession(client(), T)
    const snapshot = await session.openSnapshot(session.root)
    const fileOf = (signed: string) => new URL(signed).searchParams.get('f')
    const before = await Promise.all(snapshot.files.map(f => session.resolve(f.url, 'GET', {})))
    await new Promise(done => setTimeout(done, 1_100))
    const after = await Promise.all(snapshot.files.map(f => session.resolve(f.url, 'GET', {})))
    expect(session.renewals).toBe(1)
    expect(new Set(before.map(r => fileOf(r.url))).size).toBe(6)
    expect(after.map(r => fileOf(r.url))).toEqual(before.map(r => fileOf(r.url)))
    expect(after.map(r => r.url)).not.toEqual(before.map(r => r.url))
  })

  it('refuses a table that lists a file twice, naming the id, before reading any file', async () => {
    const profile = await start('duplicate-file-id')
    const line = expectRefusal(
      await runMain(['scan', '--table', `${profile}#s.d.t`, '--format', 'jsonl']),
      's.d.t on http://127.0.0.1:',
      "lists file id '",
      'again (first on page 1)',
    )
    expect(line).toMatch(/file id '[0-9a-f]{40}'/)
    expect(fileReads()).toEqual([])
  })

  it('refuses one URL listed under two ids, naming both ids and not the URL', async () => {
    const profile = await start('duplicate-file-url')
    const line = expectRefusal(
      await runMain(['scan', '--table', `${profile}#s.d.t`, '--format', 'jsonl']),
      's.d.t on http://127.0.0.1:',
      "' and 'second-id' have the same URL; its rows would be read twice",
    )
    expect(line).not.toContain('X-Amz-Signature')
    expect(fileReads()).toEqual([])
  })
})

describe('paging: repeats and runaway answers are refused, naming the bound', () => {
  it('refuses a repeated nextPageToken after the second page', async () => {
    await start('repeat-token')
    await expect(client().query(T, {})).rejects.toThrow(
      /^s\.d\.t on http:\/\/127\.0\.0\.1:\d+\/ds\/: query: page 2 of the answer repeats the nextPageToken of page 1/,
    )
    expect(queries()).toHaveLength(2)
  })

  it('refuses a page that repeats the files of page 1', async () => {
    await start('repeat-files')
    await expect(client().query(T, {})).rejects.toThrow(/page 2 of the answer lists file id '[0-9a-f]{40}' again/)
    expect(queries()).toHaveLength(2)
  })

  it('stops an endless answer at the page, file or byte bound, naming it', async () => {
    await start('endless')
    await expect(client({ pages: 5 }).query(T, {})).rejects.toThrow(
      'did not end within 5 pages (the bound shareLimits.pages / SNAPTRAIN_SHARE_MAX_PAGES)',
    )
    expect(queries()).toHaveLength(5)
    // Page 1 has the 6 files, each later page one more: page 3 is the 8th.
    await expect(client({ files: 7 }).query(T, {})).rejects.toThrow(
      'lists more than 7 files (the bound shareLimits.files / SNAPTRAIN_SHARE_MAX_FILES)',
    )
    expect(queries()).toHaveLength(5 + 3)
    await expect(client({ bytes: 8_000 }).query(T, {})).rejects.toThrow(
      /is longer than 8000 bytes by page \d+ \(the bound shareLimits\.bytes \/ SNAPTRAIN_SHARE_MAX_BYTES\)/,
    )
  })

  it('the CLI takes the bound from SNAPTRAIN_SHARE_MAX_PAGES and reads no file', async () => {
    const profile = await start('endless')
    const r = await runMain(['scan', '--table', `${profile}#s.d.t`], { SNAPTRAIN_SHARE_MAX_PAGES: '3' })
    expectRefusal(r, 's.d.t on http://127.0.0.1:', 'did not end within 3 pages', 'SNAPTRAIN_SHARE_MAX_PAGES')
    expect(queries()).toHaveLength(3)
    expect(fileReads()).toEqual([])
  })

  it('lists follow the same rules: a repeated token or name, and the page bound', async () => {
    let profile = await start('repeat-token')
    expectRefusal(await runMain(['shares', '--profile', profile]), '/ds/shares: page 2', 'repeats the nextPageToken')
    expect(listCalls('/ds/shares')).toHaveLength(2)
    await server!.close()
    profile = await start('repeat-files')
    expectRefusal(await runMain(['shares', '--profile', profile]), "lists share name 's' again (first on page 1)")
    expect(listCalls('/ds/shares')).toHaveLength(2)
    await server!.close()
    profile = await start('endless')
    const r = await runMain(['shares', '--profile', profile], { SNAPTRAIN_SHARE_MAX_PAGES: '4' })
    expectRefusal(r, '/ds/shares', 'did not end within 4 pages')
    expect(listCalls('/ds/shares')).toHaveLength(4)
  })
})

describe('names: a share, schema or table name is one path segment', () => {
  it('refuses dot segments, a slash and control characters before any request, naming them escaped', async () => {
    await start()
    const c = client()
    for (const [name, why] of [
      ['..', 'is a dot segment'],
      ['.', 'is a dot segment'],
      ['a/../..', "holds a '/'"],
      ['x\ny', 'holds a control character'],
    ] as const) {
      await expect(c.listSchemas(name)).rejects.toThrow(`share name '${name.replace('\n', '\\u000a')}' ${why}`)
      await expect(c.query({ ...T, table: name }, {})).rejects.toThrow(`table name '`)
      await expect(c.tableVersion({ ...T, schema: name })).rejects.toThrow(`schema name '`)
    }
    expect(server!.log).toEqual([])
  })

  it('quotes at most 200 characters of a long name in an error, saying how long it is', async () => {
    await start()
    const name = `${'n'.repeat(5000)}/`
    const error = await client()
      .listSchemas(name)
      .catch((e: Error) => e)
    expect((error as Error).message).toContain(`share name '${'n'.repeat(200)}… (5001 characters)' holds a '/'`)
    expect((error as Error).message.length).toBeLessThan(400)
    expect(server!.log).toEqual([])
  })

  it('sends other names as one encoded segment each, never leaving /shares/', async () => {
    await start()
    const c = client()
    const names = ['%2e%2e', '.%2E', '..%2f..', '...', 'a b', 'ü?#']
    for (const name of names) await c.listSchemas(name)
    expect(server!.log.map(r => r.target)).toHaveLength(names.length)
    server!.log.forEach((r, i) => {
      const segments = r.target.split('?')[0]!.split('/')
      // ['', 'ds', 'shares', <name>, 'schemas']: the name decodes, once, to itself.
      expect(segments).toHaveLength(5)
      expect(segments.slice(0, 3)).toEqual(['', 'ds', 'shares'])
      expect(decodeURIComponent(segments[3]!)).toBe(names[i])
      expect(r.authorization).toBe(`Bearer ${HOSTILE_TOKEN}`)
    })
  })

  it('refuses an address whose share name is .., without a request', async () => {
    const profile = await start()
    const r = await runMain(['scan', '--table', `${profile}#...d.t`])
    expectRefusal(r, "share name '..' is a dot segment")
    expect(server!.log).toEqual([])
  })
})

describe('snaptrain shares prints names on their own lines', () => {
  it('escapes control characters in a listed name, and skips a share no request may name', async () => {
    const profile = await start(undefined, { shareNames: ['s', 'x\ny', '..'], tableNames: ['t\nfake.d.t'] })
    const r = await runMain(['shares', '--profile', profile])
    expect(r.stdout.trim().split('\n')).toEqual(['s.d.t\\u000afake.d.t'])
    const err = r.stderr.trim().split('\n')
    expect(err).toEqual([
      "snaptrain shares: share name 'x\\u000ay' holds a control character; it cannot be sent as a path segment; its contents are not listed",
      "snaptrain shares: share name '..' is a dot segment; it cannot be sent as a path segment; its contents are not listed",
    ])
    expect(r.code).toBe(1)
    // Only the usable share was asked for its schemas and tables.
    expect(server!.log.map(r => r.target)).toEqual([
      '/ds/shares',
      '/ds/shares/s/schemas',
      '/ds/shares/s/schemas/d/tables',
    ])
    const json = await runMain(['shares', '--profile', profile, '--json'])
    const tree = JSON.parse(json.stdout) as { shares: Array<{ name: string; schemas: Array<{ tables: string[] }> }> }
    expect(tree.shares.map(s => s.name)).toEqual(['s'])
    expect(tree.shares[0]!.schemas[0]!.tables).toEqual(['t\nfake.d.t'])
  })
})
