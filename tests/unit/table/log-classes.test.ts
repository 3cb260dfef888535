/**
 * Conformance classes of logs written by other engines (and damaged ones), one table each, built
 * at test time: unknown action fields, superseded metaData, void columns, pretty-printed commits,
 * a too-new reader version, the commit clock (file times, in-commit timestamps, clocks that go
 * backwards), column mapping that collides, unreadable checkpoints and version gaps. Each table is
 * read through the fake HTTP server with and without an S3 listing, the reader's two discovery paths.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { describe, expect, it } from 'vitest'
import { selectFeatures } from '../../../src/eval/features.ts'
import { columnKind } from '../../../src/models/recsys/features.ts'
import { readRows } from '../../../src/table/rows.ts'
import { listCommits, openSnapshot } from '../../../src/table/snapshot.ts'
import { TableError, type OpenOptions } from '../../../src/table/types.ts'
import { fileFetch } from '../../support/file-fetch.ts'

const URL_ = 'http://table.test/t/'
const field = (name: string, type: string, metadata: object = {}) => ({ name, type, nullable: true, metadata })
const schema = (...fields: object[]) => JSON.stringify({ type: 'struct', fields })
const PROTOCOL = { protocol: { minReaderVersion: 1, minWriterVersion: 2 } }
const meta = (schemaString: string | undefined, configuration: Record<string, string> = {}) => ({
  metaData: {
    id: 'id-1',
    format: { provider: 'parquet', options: {} },
    schemaString,
    partitionColumns: [],
    configuration,
  },
})
const ID_SCHEMA = schema(field('id', 'long'))

/** A table folder: `commits[v]` are the actions of version v (objects, or raw text), `mtimes[v]` the file times (ms). */
interface TableSpec {
  commits: (object[] | string)[]
  mtimes?: number[]
  files?: Record<string, Uint8Array | string>
}

function writeTable(spec: TableSpec): string {
  const dir = mkdtempSync(join(tmpdir(), 'log-classes-'))
  const log = join(dir, 't/_delta_log')
  mkdirSync(log, { recursive: true })
  spec.commits.forEach((actions, v) => {
    if (Array.isArray(actions) && actions.length === 0) return // a missing commit (a gap)
    const file = join(log, `${String(v).padStart(20, '0')}.json`)
    writeFileSync(file, typeof actions === 'string' ? actions : `${actions.map(a => JSON.stringify(a)).join('\n')}\n`)
    const mtime = spec.mtimes?.[v] ?? 1_700_000_000_000 + v * 1000
    utimesSync(file, mtime / 1000, mtime / 1000)
  })
  for (const [name, body] of Object.entries(spec.files ?? {})) writeFileSync(join(dir, 't', name), body)
  return dir
}

/** A Parquet file with one long column `id`. */
function idFile(ids: number[]): Uint8Array {
  return new Uint8Array(parquetWriteBuffer({ columnData: [{ name: 'id', data: ids.map(BigInt), type: 'INT64' }] }))
}
const addOf = (path: string, bytes: Uint8Array) => ({
  add: { path, partitionValues: {}, size: bytes.byteLength, modificationTime: 0, dataChange: true },
})

async function failure(p: Promise<unknown>): Promise<TableError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(TableError)
  return error as TableError
}

/** Runs `body` once per discovery path: S3 listing, then probing a plain static server. */
function bothPaths(
  name: string,
  dir: string,
  body: (
    open: (o?: OpenOptions) => ReturnType<typeof openSnapshot>,
    fetch: ReturnType<typeof fileFetch>,
    listing: boolean,
  ) => Promise<void>,
): void {
  it.each([true, false])(`${name} (listing %s)`, async listing => {
    const fetch = fileFetch(dir, { listing })
    await body(o => openSnapshot(URL_, { fetch, onWarning: () => {}, ...o }), fetch, listing)
  })
}

describe('conformance: unknown fields and actions are ignored', () => {
  const bytes = idFile([1, 2, 3])
  const dir = writeTable({
    commits: [
      [{ commitInfo: { operation: 'WRITE' }, futureField: { x: 1 } }, { ...PROTOCOL, extra: 1 }, meta(ID_SCHEMA)],
      [{ ...addOf('a.parquet', bytes), someNewAction: { path: 'x' } }, { newActionType: { foo: 'bar' } }],
    ],
    files: { 'a.parquet': bytes },
  })
  bothPaths('reads a known action beside unknown keys, skips unknown action types', dir, async (open, fetch) => {
    const snapshot = await open()
    expect(snapshot.files.map(f => f.path)).toEqual(['a.parquet'])
    expect((await readRows(snapshot, { fetch })).map(r => r.id)).toEqual([1n, 2n, 3n])
  })
  it('still refuses a line with two known actions, naming them', async () => {
    const bad = writeTable({
      commits: [[PROTOCOL, meta(ID_SCHEMA)], [{ ...addOf('a', bytes), remove: { path: 'b' } }]],
    })
    const e = await failure(openSnapshot(URL_, { fetch: fileFetch(bad) }))
    expect(e.message).toMatch(/00000000000000000001\.json line 1: expected one action, found 2 \(add, remove\)/)
    rmSync(bad, { recursive: true })
  })
})

describe('conformance: a superseded metaData need not be complete', () => {
  const bytes = idFile([7])
  const dir = writeTable({
    commits: [
      [PROTOCOL, meta(undefined)], // a streaming writer's first metaData: no schema yet
      [meta(ID_SCHEMA), addOf('a.parquet', bytes)],
    ],
    files: { 'a.parquet': bytes },
  })
  bothPaths('reads the table with the effective metaData', dir, async (open, fetch) => {
    const latest = await open()
    expect((await readRows(latest, { fetch })).map(r => r.id)).toEqual([7n])
    const e = await failure(open({ version: 0 }))
    expect(e.code).toBe('malformed-log')
    expect(e.message).toBe(
      `${URL_}_delta_log/00000000000000000000.json line 2: metaData.schemaString is missing or ` +
        'not a string (the metaData in force at version 0)',
    )
  })
})

describe('conformance: void (NullType) columns', () => {
  const bytes = idFile([1, 2])
  const dir = writeTable({
    commits: [[PROTOCOL, meta(schema(field('id', 'long'), field('nothing', 'void'))), addOf('a.parquet', bytes)]],
    files: { 'a.parquet': bytes }, // Spark writes no Parquet column for a void column
  })
  bothPaths('reads them as all-null columns and skips them as features with a note', dir, async (open, fetch) => {
    const snapshot = await open()
    expect(snapshot.schema.fields.map(f => f.type)).toEqual(['long', 'void'])
    expect(await readRows(snapshot, { fetch })).toEqual([
      { id: 1n, nothing: null },
      { id: 2n, nothing: null },
    ])
    const { features, skipped } = selectFeatures(
      { ...snapshot.schema, fields: [field('label', 'integer') as never, ...snapshot.schema.fields] },
      'label',
    )
    expect(features.map(f => f.name)).toEqual(['id'])
    expect(skipped).toEqual([
      { name: 'nothing', reason: 'void (NullType) columns hold only nulls and are not features' },
    ])
    expect(columnKind('void')).toBeUndefined()
  })
})

describe('conformance: a pretty-printed commit', () => {
  const pretty = `${JSON.stringify(PROTOCOL, null, 2)}\n${JSON.stringify(meta(ID_SCHEMA), null, 2)}\n`
  const dir = writeTable({ commits: [pretty] })
  bothPaths('is refused as not newline-delimited JSON', dir, async open => {
    const e = await failure(open())
    expect(e.code).toBe('malformed-log')
    expect(e.message).toBe(
      `${URL_}_delta_log/00000000000000000000.json line 1: the commit is not newline-delimited ` +
        'JSON: the action that starts here spans several lines (pretty-printed?); Delta writes one action per line',
    )
  })
})

describe('conformance: a reader version too new', () => {
  const dir = writeTable({
    commits: [
      [
        {
          protocol: { minReaderVersion: 4, minWriterVersion: 8, readerFeatures: ['deletionVectors', 'fancyNewThing'] },
        },
        meta(ID_SCHEMA),
      ],
    ],
  })
  bothPaths('names the version and the features it lists', dir, async open => {
    const e = await failure(open())
    expect(e.code).toBe('unsupported-feature')
    expect(e.message).toBe(
      `${URL_}: Unsupported Delta protocol reader version 4 (this reader supports 1 to 3); the ` +
        'table lists reader features deletionVectors, fancyNewThing (unsupported: fancyNewThing)',
    )
  })
})

describe('conformance: commit times are file times, adjusted to increase', () => {
  // commitInfo.timestamp says the opposite of the file times, to show which clock is used.
  const info = (timestamp: number) => ({ commitInfo: { timestamp, operation: 'WRITE' } })
  const T = 1_700_000_000_000
  const file = (v: number) => idFile([v * 10, v * 10 + 1])
  const dir = writeTable({
    commits: [
      [info(9e12), PROTOCOL, meta(ID_SCHEMA), addOf('v0.parquet', file(0))],
      [info(8e12), addOf('v1.parquet', file(1))],
      [info(7e12), addOf('v2.parquet', file(2))],
      [info(6e12), addOf('v3.parquet', file(3))],
    ],
    // Version 2's clock went backwards: it counts as version 1's time + 1 ms (T + 10_001).
    mtimes: [T, T + 10_000, T + 5_000, T + 20_000],
    files: Object.fromEntries([0, 1, 2, 3].map(v => [`v${v}.parquet`, file(v)])),
  })
  bothPaths('time travel follows Last-Modified and the monotonic adjustment', dir, async (open, fetch, listing) => {
    const at = async (ms: number) => (await open({ timestamp: ms })).version
    expect(await at(T)).toBe(0)
    expect(await at(T + 9_999)).toBe(0)
    expect(await at(T + 10_000)).toBe(1)
    // Probing sees Last-Modified (whole seconds, as HTTP dates are), the listing sees milliseconds.
    expect(await at(T + 10_000 + (listing ? 1 : 1000))).toBe(2)
    expect(await at(new Date(T + 19_999).toISOString() as never)).toBe(2)
    expect(await at(T + 20_000)).toBe(3)
    // The rows in force at a time: those of the versions committed by then, by their file times.
    const rows = await readRows(await open({ timestamp: new Date(T + 10_000).toISOString() }), { fetch })
    expect(rows.map(r => r.id).sort()).toEqual([0n, 1n, 10n, 11n])
    const e = await failure(open({ timestamp: T - 1 }))
    expect(e.code).toBe('version-not-found')
    const history = await listCommits(URL_, { fetch })
    expect(history.map(c => c.timestamp)).toEqual([T, T + 10_000, T + 10_001, T + 20_000])
  })
})

describe('conformance: in-commit timestamps', () => {
  const T = 1_700_000_000_000
  const ict = (inCommitTimestamp: number) => ({ commitInfo: { timestamp: 1, inCommitTimestamp } })
  const config = { 'delta.enableInCommitTimestamps': 'true', 'delta.inCommitTimestampEnablementVersion': '2' }
  const dir = writeTable({
    commits: [
      [{ commitInfo: { timestamp: 1 } }, PROTOCOL, meta(ID_SCHEMA)],
      [{ commitInfo: { timestamp: 1 } }],
      [
        ict(T + 50_000),
        { protocol: { minReaderVersion: 1, minWriterVersion: 7, writerFeatures: ['inCommitTimestamp'] } },
        meta(ID_SCHEMA, config),
      ],
      [ict(T + 60_000)],
      [ict(T + 70_000)],
    ],
    // File times of ICT commits are meaningless (copied tables): they must not be used.
    mtimes: [T, T + 10_000, T + 999_000, T + 1000, T + 2000],
  })
  bothPaths('uses them where the table writes them, file times before that', dir, async open => {
    const at = async (ms: number) => (await open({ timestamp: ms })).version
    expect(await at(T + 5_000)).toBe(0)
    expect(await at(T + 49_999)).toBe(1)
    expect(await at(T + 50_000)).toBe(2)
    expect(await at(T + 69_999)).toBe(3)
    expect(await at(T + 9e9)).toBe(4)
    expect((await open()).timestamp).toBe(T + 70_000)
  })
})

describe('conformance: column mapping that collides', () => {
  const mapped = (name: string, physical: string, id: number) =>
    field(name, 'long', { 'delta.columnMapping.physicalName': physical, 'delta.columnMapping.id': id })
  const cm = { protocol: { minReaderVersion: 2, minWriterVersion: 5 } }
  const cases: [string, object[], string, string][] = [
    [
      'two logical columns on one physical column',
      [mapped('a', 'col-1', 1), mapped('b', 'col-1', 2)],
      'name',
      "columns 'a' and 'b' map to one physical column 'col-1'",
    ],
    [
      'a repeated name',
      [mapped('a', 'col-1', 1), mapped('A', 'col-2', 2)],
      'name',
      "columns 'a' and 'A' have the same name",
    ],
    [
      'a repeated field id',
      [mapped('a', 'col-1', 1), mapped('b', 'col-2', 1)],
      'id',
      "columns 'a' and 'b' have the same field id 1",
    ],
  ]
  for (const [what, fields, mode, message] of cases) {
    it(`refuses ${what}`, async () => {
      const dir = writeTable({ commits: [[cm, meta(schema(...fields), { 'delta.columnMapping.mode': mode })]] })
      for (const listing of [true, false]) {
        const e = await failure(openSnapshot(URL_, { fetch: fileFetch(dir, { listing }) }))
        expect(e.code).toBe('malformed-log')
        expect(e.message).toBe(`${URL_}: invalid schema: ${message}`)
      }
      rmSync(dir, { recursive: true })
    })
  }
  it('refuses the same within a nested struct', async () => {
    const inner = { type: 'struct', fields: [mapped('x', 'p', 2), mapped('y', 'p', 3)] }
    const dir = writeTable({
      commits: [
        [cm, meta(schema({ ...mapped('s', 'col-1', 1), type: inner }), { 'delta.columnMapping.mode': 'name' })],
      ],
    })
    const e = await failure(openSnapshot(URL_, { fetch: fileFetch(dir) }))
    expect(e.message).toBe(`${URL_}: invalid schema: columns 's.x' and 's.y' map to one physical column 'p'`)
  })
})

describe('conformance: an unreadable checkpoint while the commits are there', () => {
  const bytes = idFile([1, 2, 3])
  const commits = [
    [PROTOCOL, meta(ID_SCHEMA), addOf('a.parquet', bytes)],
    [addOf('b.parquet', bytes)],
    [{ remove: { path: 'a.parquet' } }],
  ]
  const cases: [string, Record<string, string>][] = [
    ['_last_checkpoint names a checkpoint that is gone', { '_delta_log/_last_checkpoint': '{"version":1,"size":3}' }],
    [
      'a checkpoint that does not parse',
      {
        '_delta_log/_last_checkpoint': '{"version":1,"size":3}',
        '_delta_log/00000000000000000001.checkpoint.parquet': 'garbage, not parquet',
      },
    ],
    ['a _last_checkpoint that is garbage', { '_delta_log/_last_checkpoint': '\u0000\u0001 not json' }],
  ]
  for (const [what, files] of cases) {
    const dir = writeTable({ commits, files: { 'a.parquet': bytes, 'b.parquet': bytes, ...files } })
    bothPaths(`falls back to the commits: ${what}`, dir, async (open, fetch) => {
      const warnings: string[] = []
      const snapshot = await open({ onWarning: m => warnings.push(m) })
      expect(snapshot.version).toBe(2)
      expect(snapshot.files.map(f => f.path)).toEqual(['b.parquet'])
      expect((await readRows(snapshot, { fetch })).map(r => r.id)).toEqual([1n, 2n, 3n])
      expect((await open({ version: 1, onWarning: () => {} })).files.map(f => f.path)).toEqual([
        'a.parquet',
        'b.parquet',
      ])
      const used = fetch.requests.some(r => r.url.endsWith('.checkpoint.parquet'))
      if (used)
        expect(warnings.join('\n')).toMatch(
          /00000000000000000001\.checkpoint\.parquet.*reading the commits from version 0 instead/,
        )
    })
  }
  const lost = writeTable({
    commits: [[], [], [addOf('b.parquet', bytes)]],
    files: {
      '_delta_log/_last_checkpoint': '{"version":1,"size":3}',
      '_delta_log/00000000000000000001.checkpoint.parquet': 'garbage, not parquet',
    },
  })
  bothPaths('fails naming the checkpoint when no complete path is left', lost, async open => {
    const e = await failure(open())
    expect(e.url).toBe(`${URL_}_delta_log/00000000000000000001.checkpoint.parquet`)
    expect(e.message).toContain('00000000000000000001.checkpoint.parquet')
    expect(e.message).toContain('without that checkpoint version latest cannot be rebuilt')
  })
})

describe('conformance: a version gap', () => {
  const row = [{ commitInfo: {} }]
  const gapAt2 = writeTable({ commits: [[PROTOCOL, meta(ID_SCHEMA)], row, [], row, row] })
  bothPaths('is refused naming the missing commit', gapAt2, async open => {
    const e = await failure(open())
    expect(e.code).toBe('malformed-log')
    expect(e.message).toMatch(
      /_delta_log\/00000000000000000002\.json.*missing.*version gap|00000000000000000002\.json: 404 Not Found: commit 2 is missing \(a version gap/,
    )
    expect((await open({ version: 1 })).version).toBe(1)
  })
  const gapAt1 = writeTable({ commits: [[PROTOCOL, meta(ID_SCHEMA)], [], row] })
  bothPaths('is refused also where it would end a probe early', gapAt1, async open => {
    const e = await failure(open())
    expect(e.message).toContain('00000000000000000001.json')
    expect(e.message).toContain('version gap')
  })
})
