/**
 * Microsecond timestamps end to end on a tiny Delta table written at test time: the Row reader,
 * `scan` output, filters, stats pruning with Spark's ms-truncated JSON stats, a timestamp
 * partition value with µs, an INT64 TIMESTAMP(NANOS) file and the loader's float32 features.
 *
 * Table (partitioned by the timestamp `p`; `ts` timestamp, `ntz` timestamp_ntz):
 *   micros.parquet  p = 2021-01-01 12:00:00.123456   TIMESTAMP(MICROS); stats max ts 4.000Z (truncated)
 *     id 0: ts 4.000500 s   id 1: ts 4.000000 s   id 2: ts −1 µs   id 3: ts null
 *   nanos.parquet   p = 2021-01-01 12:00:00          ts TIMESTAMP(NANOS), ntz TIMESTAMP(MICROS)
 *     id 10: ts 4.000000001 s   id 11: ts 5 s
 */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { afterAll, describe, expect, test } from 'vitest'
import { run } from '../../../src/cli/scan.ts'
import { mayMatch } from '../../../src/data/filter-eval.ts'
import { parseFilter } from '../../../src/data/filter-parse.ts'
import { planScan } from '../../../src/data/plan.ts'
import { deltaFileStats } from '../../../src/data/range-stats.ts'
import { readUnit } from '../../../src/data/unit-reader.ts'
import { openSnapshot, readRows, Timestamp, type Row, type Snapshot } from '../../../src/table/index.ts'
import { fileFetch } from '../../support/file-fetch.ts'

type SchemaElement = NonNullable<Parameters<typeof parquetWriteBuffer>[0]['schema']>[number]

const URL = 'http://table.test/'
const P_MICROS = Timestamp.parse('2021-01-01T12:00:00.123456Z')!

function timestampColumn(name: string, unit: 'MICROS' | 'NANOS', utc: boolean): SchemaElement {
  return {
    name,
    type: 'INT64',
    repetition_type: 'OPTIONAL',
    ...(unit === 'MICROS' ? { converted_type: 'TIMESTAMP_MICROS' as const } : {}),
    logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: utc, unit },
  }
}

function parquet(tsUnit: 'MICROS' | 'NANOS', ids: bigint[], ts: (bigint | null)[], ntz: (bigint | null)[]): Uint8Array {
  const schema: SchemaElement[] = [
    { name: 'root', num_children: 3 },
    { name: 'id', type: 'INT64', repetition_type: 'REQUIRED' },
    timestampColumn('ts', tsUnit, true),
    timestampColumn('ntz', 'MICROS', false),
  ]
  const columnData = [
    { name: 'id', data: ids },
    { name: 'ts', data: ts },
    { name: 'ntz', data: ntz },
  ]
  return new Uint8Array(parquetWriteBuffer({ schema, columnData, statistics: true }))
}

const SCHEMA = JSON.stringify({
  type: 'struct',
  fields: [
    { name: 'id', type: 'long', nullable: false, metadata: {} },
    { name: 'ts', type: 'timestamp', nullable: true, metadata: {} },
    { name: 'ntz', type: 'timestamp_ntz', nullable: true, metadata: {} },
    { name: 'p', type: 'timestamp', nullable: true, metadata: {} },
  ],
})

/** An add action with Spark-style JSON stats: timestamps printed at ms, truncated (ntz without a zone). */
interface FileSpec {
  path: string
  bytes: Uint8Array
  p: string | null
  stats?: object
}

/** Spark-style JSON stats: timestamps printed at ms, truncated (ntz without a zone). */
function stats(rows: number, min: [string, string], max: [string, string], nulls: number): object {
  return {
    numRecords: rows,
    minValues: { id: 0, ts: min[0], ntz: min[1] },
    maxValues: { id: 99, ts: max[0], ntz: max[1] },
    nullCount: { id: 0, ts: nulls, ntz: nulls },
  }
}

/** Writes the files and a one-commit log (timestampNtz protocol, partitioned by `p`) into a new folder. */
function writeDelta(files: FileSpec[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'timestamps-micros-'))
  mkdirSync(join(dir, '_delta_log'))
  for (const f of files) writeFileSync(join(dir, f.path), f.bytes)
  const feature = ['timestampNtz']
  const format = { provider: 'parquet', options: {} }
  const actions = [
    { commitInfo: { timestamp: 1000, operation: 'WRITE' } },
    { protocol: { minReaderVersion: 3, minWriterVersion: 7, readerFeatures: feature, writerFeatures: feature } },
    { metaData: { id: 't', format, schemaString: SCHEMA, partitionColumns: ['p'], configuration: {} } },
    ...files.map(f => ({
      add: {
        path: f.path,
        partitionValues: { p: f.p },
        size: f.bytes.length,
        modificationTime: 0,
        dataChange: true,
        stats: f.stats && JSON.stringify(f.stats),
      },
    })),
  ]
  const log = actions.map(a => JSON.stringify(a)).join('\n') + '\n'
  writeFileSync(join(dir, '_delta_log', '00000000000000000000.json'), log)
  return dir
}

const MICROS_TS = [4_000_500n, 4_000_000n, -1n, null]

const dir = writeDelta([
  {
    path: 'micros.parquet',
    p: '2021-01-01 12:00:00.123456',
    bytes: parquet('MICROS', [0n, 1n, 2n, 3n], MICROS_TS, MICROS_TS),
    stats: stats(
      4,
      ['1969-12-31T23:59:59.999Z', '1969-12-31T23:59:59.999'],
      ['1970-01-01T00:00:04.000Z', '1970-01-01T00:00:04.000'],
      1,
    ),
  },
  {
    path: 'nanos.parquet',
    p: '2021-01-01 12:00:00',
    bytes: parquet('NANOS', [10n, 11n], [4_000_000_001n, 5_000_000_000n], [7_000_000n, 8_000_000n]),
    stats: stats(
      2,
      ['1970-01-01T00:00:04.000Z', '1970-01-01T00:00:07.000'],
      ['1970-01-01T00:00:05.000Z', '1970-01-01T00:00:08.000'],
      0,
    ),
  },
])
const fetch = fileFetch(dir)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function open(): Promise<Snapshot> {
  return openSnapshot(URL, { fetch, attempts: 1 })
}

function byId(rows: Row[]): Row[] {
  return [...rows].sort((a, b) => Number(a.id) - Number(b.id))
}

/** `snaptrain scan` in process on the table folder; stdout lines. */
async function scan(...argv: string[]): Promise<string[]> {
  const out: string[] = []
  const err: string[] = []
  const code = await run(['--table', dir, ...argv], {
    out: l => {
      out.push(l)
    },
    err: l => {
      err.push(l)
    },
  })
  expect(err).toEqual([])
  expect(code).toBe(0)
  return out.join('\n').split('\n').filter(Boolean)
}

/** Ids of the rows a planned scan with `filter` delivers, and the files it pruned. */
async function planned(filter: string): Promise<{ ids: bigint[]; filesPruned: number }> {
  const snapshot = await open()
  const plan = await planScan(snapshot, { fetch, attempts: 1, filter, columns: ['id'] })
  const ids: bigint[] = []
  for (const unit of plan.units) {
    if (!unit.liveRows) continue
    const file = snapshot.files.find(f => f.path === plan.files[unit.fileIndex].path)!
    const rows = await readRows({ ...snapshot, files: [file] }, { fetch, attempts: 1, columns: ['id'] })
    const live = unit.live ?? Uint32Array.from({ length: unit.rowEnd - unit.rowStart }, (_, i) => unit.rowStart + i)
    for (const row of live) ids.push(rows[row].id as bigint)
  }
  return { ids: ids.sort((a, b) => Number(a - b)), filesPruned: plan.stats.filesPruned }
}

describe('conformance: microsecond timestamps', () => {
  test('readRows keeps the µs of timestamp and timestamp_ntz columns, and of the partition value', async () => {
    const rows = byId(await readRows(await open(), { fetch, attempts: 1 }))
    const micros = (column: string) => rows.map(r => (r[column] as Timestamp | null)?.micros ?? null)
    expect(micros('ts')).toEqual([...MICROS_TS, 4_000_000n, 5_000_000n])
    expect(micros('ntz')).toEqual([...MICROS_TS, 7_000_000n, 8_000_000n])
    expect(rows[0].ts).toEqual(new Timestamp(4_000_500n))
    expect(rows[0].p).toEqual(P_MICROS)
    expect(P_MICROS.micros).toBe(1_609_502_400_123_456n)
    expect(rows[4].p).toEqual(Timestamp.parse('2021-01-01 12:00:00'))
  })

  test('INT64 TIMESTAMP(NANOS) keeps its nanoseconds', async () => {
    const rows = byId(await readRows(await open(), { fetch, attempts: 1, columns: ['id', 'ts'] }))
    expect(rows[4]).toEqual({ id: 10n, ts: new Timestamp(4_000_000n, 1) })
    expect((rows[4].ts as Timestamp).epochNanos).toBe(4_000_000_001n)
    expect(rows[5]).toEqual({ id: 11n, ts: new Timestamp(5_000_000n, 0) })
  })

  test('scan prints six fraction digits for µs, nine for ns, and the ms form otherwise', async () => {
    const lines = await scan('--columns', 'id,ts,ntz,p')
    const rows = new Map(lines.map(l => JSON.parse(l)).map(r => [r.id, r]))
    const p = '2021-01-01T12:00:00.123456Z'
    expect(rows.get(0)).toEqual({ id: 0, ts: '1970-01-01T00:00:04.000500Z', ntz: '1970-01-01T00:00:04.000500Z', p })
    expect(rows.get(1)).toEqual({ id: 1, ts: '1970-01-01T00:00:04.000Z', ntz: '1970-01-01T00:00:04.000Z', p })
    expect(rows.get(2)).toMatchObject({ ts: '1969-12-31T23:59:59.999999Z' })
    expect(rows.get(3)).toMatchObject({ ts: null, ntz: null })
    expect(rows.get(10)).toEqual({
      id: 10,
      ts: '1970-01-01T00:00:04.000000001Z',
      ntz: '1970-01-01T00:00:07.000Z',
      p: '2021-01-01T12:00:00.000Z',
    })
    const csv = await scan('--columns', 'id,ts', '--format', 'csv')
    expect(csv).toContain('0,1970-01-01T00:00:04.000500Z')
  })

  test("filter ts > TIMESTAMP '…04.000Z' keeps the 4.0005 s row, though the file's max stat says 4.000", async () => {
    const filter = "ts > TIMESTAMP '1970-01-01T00:00:04.000Z'"
    expect(await planned(filter)).toEqual({ ids: [0n, 10n, 11n], filesPruned: 0 })
    const lines = await scan('--columns', 'id,ts', '--filter', filter)
    expect(lines.map(l => JSON.parse(l).id).sort((a, b) => a - b)).toEqual([0, 10, 11])
    expect(await planned("ts = TIMESTAMP '1970-01-01 00:00:04.0005'")).toMatchObject({ ids: [0n] })
    expect(await planned("ntz > TIMESTAMP '1970-01-01 00:00:04'")).toEqual({ ids: [0n, 10n, 11n], filesPruned: 0 })
  })

  test('stats pruning: an ms-truncated max covers up to +999 µs and no further', async () => {
    const snapshot = await open()
    const stats = deltaFileStats(snapshot, snapshot.files.find(f => f.path === 'micros.parquet')!)
    const may = (filter: string) => mayMatch(parseFilter(filter, snapshot.schema), stats)
    expect(may("ts > TIMESTAMP '1970-01-01 00:00:04.000998'")).toBe(true)
    expect(may("ts > TIMESTAMP '1970-01-01 00:00:04.000999'")).toBe(false)
    expect(may("ntz > TIMESTAMP '1970-01-01 00:00:04.000998'")).toBe(true)
    expect(await planned("ts > TIMESTAMP '1970-01-01T00:00:04.001Z'")).toEqual({ ids: [11n], filesPruned: 1 })
  })

  test('a timestamp partition value keeps its µs for filters and pruning', async () => {
    const fileA = { ids: [0n, 1n, 2n, 3n], filesPruned: 1 }
    expect(await planned("p = TIMESTAMP '2021-01-01 12:00:00.123456'")).toEqual(fileA)
    expect(await planned("p > TIMESTAMP '2021-01-01 12:00:00.123455'")).toMatchObject({ ids: [0n, 1n, 2n, 3n] })
    expect(await planned("p = TIMESTAMP '2021-01-01 12:00:00.123'")).toEqual({ ids: [], filesPruned: 2 })
  })

  test('nanosecond literals compare exactly with NANOS data', async () => {
    expect(await planned("ts = TIMESTAMP '1970-01-01 00:00:04.000000001'")).toMatchObject({ ids: [10n] })
    expect(
      await planned("ts > TIMESTAMP '1970-01-01 00:00:04.000000001' AND ts < TIMESTAMP '1970-01-01 00:00:04.9'"),
    ).toMatchObject({ ids: [0n] })
  })

  test('float32 features hold seconds since the epoch, partition values included', async () => {
    const snapshot = await open()
    const plan = await planScan(snapshot, { fetch, attempts: 1, columns: ['id', 'ts', 'p'] })
    const unit = plan.units.findIndex(u => plan.files[u.fileIndex].path === 'micros.parquet')
    const decoded = await readUnit(plan, unit, { id: 'hash32', ts: 'float32', p: 'float32' }, { fetch, attempts: 1 })
    expect(Array.from(decoded.columns.ts.values)).toEqual([4.0005, 4, -1e-6, NaN].map(Math.fround))
    expect(Array.from(decoded.columns.p.values)).toEqual(Array(4).fill(Math.fround(1_609_502_400.123456)))
  })

  test('unannotated INT64 µs and a date widened to timestamp_ntz: exact Rows, seconds as features', async () => {
    const schema: SchemaElement[] = [
      { name: 'root', num_children: 3 },
      { name: 'id', type: 'INT64', repetition_type: 'REQUIRED' },
      { name: 'ts', type: 'INT64', repetition_type: 'OPTIONAL' },
      { name: 'ntz', type: 'INT32', repetition_type: 'OPTIONAL', converted_type: 'DATE' },
    ]
    const columnData = [
      { name: 'id', data: [0n, 1n] },
      { name: 'ts', data: [4_000_500n, null] },
      { name: 'ntz', data: [1, -1] },
    ]
    const bytes = new Uint8Array(parquetWriteBuffer({ schema, columnData }))
    const legacy = writeDelta([{ path: 'legacy.parquet', bytes, p: null }])
    try {
      const http = { fetch: fileFetch(legacy), attempts: 1 }
      const snapshot = await openSnapshot(URL, http)
      expect(await readRows(snapshot, { ...http, columns: ['ts', 'ntz'] })).toEqual([
        { ts: new Timestamp(4_000_500n), ntz: Timestamp.fromDays(1) },
        { ts: null, ntz: Timestamp.fromDays(-1) },
      ])
      const plan = await planScan(snapshot, { ...http, columns: ['ts', 'ntz'] })
      const decoded = await readUnit(plan, 0, { ts: 'float32', ntz: 'float32' }, http)
      expect(Array.from(decoded.columns.ts.values)).toEqual([Math.fround(4.0005), NaN])
      expect(Array.from(decoded.columns.ntz.values)).toEqual([86_400, -86_400])
    } finally {
      rmSync(legacy, { recursive: true, force: true })
    }
  })

  test('Timestamp: parse, print and structured clone', () => {
    expect(Timestamp.parse('1970-01-01T00:00:04.0005Z')?.toISOString()).toBe('1970-01-01T00:00:04.000500Z')
    expect(Timestamp.parse('1970-01-01 00:00:04')?.toISOString()).toBe('1970-01-01T00:00:04.000Z')
    expect(Timestamp.fromNanos(-1n)).toEqual(new Timestamp(-1n, 999))
    expect(Timestamp.fromNanos(-1n).toISOString()).toBe('1969-12-31T23:59:59.999999999Z')
    expect(JSON.stringify({ t: Timestamp.fromMillis(1) })).toBe('{"t":"1970-01-01T00:00:00.001Z"}')
    expect(Timestamp.from(structuredClone(P_MICROS))).toEqual(P_MICROS)
    expect(Timestamp.from({ micros: 1n, nanos: 0, extra: 1 })).toBeUndefined()
    expect(new Timestamp(9n * 10n ** 18n).toJSON()).toBeNull() // year 287 000: beyond what Date prints
    expect(Timestamp.parse('2021-02-29 00:00:00')).toBeUndefined()
  })
})
