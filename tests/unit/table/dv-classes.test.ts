/**
 * Deletion-vector classes end to end: small Delta tables written at test time (hand-written log,
 * hyparquet-writer data file, framed DV file) and served by the fake file server, read through
 * openSnapshot + readRows and through the scan planner that the trainers' data path uses.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { describe, expect, test } from 'vitest'
import { planScan } from '../../../src/data/plan.ts'
import { liveRowAt } from '../../../src/data/units.ts'
import { crc32 } from '../../../src/table/deletion-vector.ts'
import { openSnapshot, readRows } from '../../../src/table/index.ts'
import { TableError, type DeletionVectorDescriptor } from '../../../src/table/types.ts'
import { fileFetch } from '../../support/file-fetch.ts'
import { craftedBitmap, deltaBitmap, dvFile } from './roaring-fixtures.ts'

const TABLE = 'http://table.test/t/'
const SCHEMA = JSON.stringify({ type: 'struct', fields: [{ name: 'id', type: 'long', nullable: true, metadata: {} }] })
const PROTOCOL = {
  protocol: {
    minReaderVersion: 3,
    minWriterVersion: 7,
    readerFeatures: ['deletionVectors'],
    writerFeatures: ['deletionVectors'],
  },
}
const META = {
  metaData: {
    id: 'dv',
    format: { provider: 'parquet', options: {} },
    schemaString: SCHEMA,
    partitionColumns: [],
    configuration: { 'delta.enableDeletionVectors': 'true' },
  },
}
/** Rows 0..6 in row groups of 3, so deletions cross row-group boundaries. */
const ROWS = 7

/**
 * Writes table `t` (one data file, one commit) into a fresh folder. `dvFiles` maps names on disk
 * (relative to the table, unencoded) to their bytes. Returns the folder.
 */
function writeTable(dv: DeletionVectorDescriptor, dvFiles: Record<string, Uint8Array>): string {
  const dir = mkdtempSync(join(tmpdir(), 'dv-classes-'))
  const table = join(dir, 't')
  mkdirSync(join(table, '_delta_log'), { recursive: true })
  const data = new Uint8Array(
    parquetWriteBuffer({
      columnData: [{ name: 'id', data: Array.from({ length: ROWS }, (_, i) => BigInt(i)), type: 'INT64' }],
      rowGroupSize: 3,
    }),
  )
  writeFileSync(join(table, 'part-0.parquet'), data)
  for (const [name, bytes] of Object.entries(dvFiles)) {
    mkdirSync(dirname(join(table, name)), { recursive: true })
    writeFileSync(join(table, name), bytes)
  }
  const add = {
    add: {
      path: 'part-0.parquet',
      partitionValues: {},
      size: data.length,
      modificationTime: 0,
      dataChange: true,
      stats: JSON.stringify({ numRecords: ROWS }),
      deletionVector: dv,
    },
  }
  const log = [{ commitInfo: { timestamp: 1000, operation: 'DELETE' } }, PROTOCOL, META, add]
  const commit = log.map(a => JSON.stringify(a)).join('\n') + '\n'
  writeFileSync(join(table, '_delta_log', `${'0'.repeat(20)}.json`), commit)
  return dir
}

/** A 'p' descriptor for the first DV of a file made by dvFile. */
function pathDv(path: string, bitmap: Uint8Array, cardinality: number): DeletionVectorDescriptor {
  return { storageType: 'p', pathOrInlineDv: path, offset: 1, sizeInBytes: bitmap.length, cardinality }
}

/** A DV file holding `bitmap` alone, with a correct size and CRC-32 (so only the bitmap can be wrong). */
function framed(bitmap: Uint8Array): Uint8Array {
  return dvFile([bitmap], crc32).file
}

async function failure(p: Promise<unknown>): Promise<TableError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(TableError)
  return error as TableError
}

describe('conformance: absolute deletion vector paths', () => {
  const bitmap = deltaBitmap([1, 4, 5], 'plain')

  test("a 'p' DV whose file name holds '&', '%' and a space is read, its URI decoded exactly once", async () => {
    // On disk: "dv dir/deletion_vector_a&b%c d.bin"; in the log, the URI of that file.
    const uri = `${TABLE}dv%20dir/deletion_vector_a&b%25c%20d.bin`
    const dir = writeTable(pathDv(uri, bitmap, 3), { 'dv dir/deletion_vector_a&b%c d.bin': framed(bitmap) })
    const fetch = fileFetch(dir)
    const snapshot = await openSnapshot(TABLE, { fetch })
    expect((await readRows(snapshot, { fetch })).map(r => r.id)).toEqual([0n, 2n, 3n, 6n])
    expect(fetch.requests.filter(r => r.url.includes('deletion_vector')).map(r => r.url)).toEqual([uri])
    const plan = await planScan(snapshot, { fetch })
    expect(plan.stats.rows).toBe(4)
    const live = plan.units.flatMap(u => Array.from({ length: u.liveRows }, (_, i) => liveRowAt(u, i)))
    expect(live).toEqual([0, 2, 3, 6])
  })

  for (const path of ['http://elsewhere.test/t/dv.bin', 's3://bucket/t/dv.bin', 'file:/data/t/dv.bin']) {
    test(`a 'p' DV at ${path} is refused naming the path, with no request sent to it`, async () => {
      const fetch = fileFetch(writeTable(pathDv(path, bitmap, 3), { 'dv.bin': framed(bitmap) }))
      // The table is plain http on a fake host: its token may go there only with the opt-in.
      const opts = { fetch, headers: { Authorization: 'Bearer table-token' }, allowInsecureHttp: true }
      const snapshot = await openSnapshot(TABLE, opts)
      for (const read of [readRows(snapshot, opts), planScan(snapshot, opts)]) {
        const error = await failure(read)
        expect(error.code).toBe('unsupported-feature')
        expect(error.message).toContain(`deletion vector path '${path}' is not on the table's origin http://table.test`)
      }
      expect(fetch.requests.filter(r => !r.url.startsWith('http://table.test/'))).toEqual([])
      expect(fetch.requests.some(r => r.url.endsWith('dv.bin'))).toBe(false)
    })
  }
})

describe('conformance: invalid deletion-vector bitmaps', () => {
  const array = (values: number[], cardinality?: number) =>
    craftedBitmap([{ key: 0, kind: 'array', values, cardinality }])
  const runs = (list: [number, number][], cardinality?: number) =>
    craftedBitmap([{ key: 0, kind: 'run', runs: list, cardinality }])
  const cases = [
    {
      what: 'unsorted array container',
      bitmap: array([1, 5, 4]),
      why: /array container 0 of bucket 0: values not strictly ascending at index 2 \(4 after 5\)/,
    },
    { what: 'duplicate in an array container', bitmap: array([1, 4, 4]), why: /index 2 \(4 after 4\)/ },
    {
      what: 'overlapping runs',
      bitmap: runs([
        [1, 1],
        [2, 0],
      ]),
      why: /run container 0 of bucket 0: run 1 starts at 2/,
    },
    {
      what: 'unsorted runs',
      bitmap: runs([
        [5, 0],
        [1, 1],
      ]),
      why: /run 1 starts at 1, not after the previous run's end 5/,
    },
    {
      what: 'run header cardinality too high',
      bitmap: runs([[1, 2]], 4),
      why: /holds 3 values, its header says 4/,
      cardinality: 4,
    },
    {
      what: 'array header cardinality too low',
      bitmap: array([1, 4, 5], 2),
      why: /2 bytes left after the last container/,
    },
  ]
  for (const { what, bitmap, why, cardinality } of cases as ((typeof cases)[number] & { cardinality?: number })[]) {
    test(`${what}: readRows and the scan planner both refuse it as corrupt-file, naming the DV file`, async () => {
      const fetch = fileFetch(
        writeTable(pathDv(`${TABLE}dv.bin`, bitmap, cardinality ?? 3), { 'dv.bin': framed(bitmap) }),
      )
      const snapshot = await openSnapshot(TABLE, { fetch })
      const fromRows = await failure(readRows(snapshot, { fetch }))
      const fromPlan = await failure(planScan(snapshot, { fetch }))
      for (const error of [fromRows, fromPlan]) {
        expect(error.code).toBe('corrupt-file')
        expect(error.url).toBe(`${TABLE}dv.bin`)
        expect(error.message).toMatch(why)
      }
      expect(fromPlan.message).toBe(fromRows.message)
    })
  }

  test('a valid bitmap whose cardinality differs from the log is still refused', async () => {
    const bitmap = deltaBitmap([1, 4, 5], 'run')
    for (const [logSays, message] of [
      [4, 'holds 3 deleted rows, the log says 4'],
      [2, 'the headers claim at least 3 deleted rows, more than the 2 allowed'],
    ] as const) {
      const fetch = fileFetch(writeTable(pathDv(`${TABLE}dv.bin`, bitmap, logSays), { 'dv.bin': framed(bitmap) }))
      const snapshot = await openSnapshot(TABLE, { fetch })
      const error = await failure(readRows(snapshot, { fetch }))
      expect(error.code).toBe('corrupt-file')
      expect(error.message).toContain(message)
    }
  })
})
