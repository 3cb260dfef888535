import { describe, expect, test } from 'vitest'
import { mayMatch } from '../../../src/data/filter-eval.ts'
import { parseFilter } from '../../../src/data/filter-parse.ts'
import { deltaFileStats, filePartitionValues, withPartitions } from '../../../src/data/range-stats.ts'
import type { AddFile, Snapshot, StructField } from '../../../src/table/types.ts'

const fields: StructField[] = [
  ['s', 'string'],
  ['n', 'long'],
  ['ts', 'timestamp'],
  ['d', 'date'],
  ['x', 'double'],
  ['p', 'integer'],
  ['m', 'decimal(5,2)'],
].map(([name, type]) => ({ name, type, nullable: true, metadata: {} }))
const snapshot = {
  tableUrl: 'http://t/',
  version: 0,
  schema: { type: 'struct', fields },
  partitionColumns: ['p'],
  columnMapping: 'none',
} as unknown as Snapshot
const long = 'k'.repeat(32)

function file(over: Partial<AddFile>): AddFile {
  return { path: 'f', url: 'http://t/f', size: 1, partitionValues: { p: '7' }, modificationTime: 0, ...over }
}

const stats = file({
  stats: {
    numRecords: 10,
    minValues: { s: 'b', n: 5, ts: '2024-01-01T10:00:00.000Z', d: '2024-01-02', x: 1.5, m: 1.25 },
    // biome-ignore lint/correctness/noPrecisionLoss: the stats JSON carries a long beyond 2^53; the test feeds exactly that
    maxValues: { s: long, n: 9007199254740993, ts: '2024-01-01T11:00:00.123+00:00', d: '2024-01-05', x: 2.5, m: 3.5 },
    nullCount: { s: 0, n: 0, ts: 0, d: 0, x: 0, m: 0 },
  },
})
const ranges = withPartitions(deltaFileStats(snapshot, stats), filePartitionValues(snapshot, stats))
const may = (filter: string) => mayMatch(parseFilter(filter, snapshot.schema), ranges)

describe('range stats from Delta stats and partition values', () => {
  test('typed bounds prune where they are exact', () => {
    expect(may("s < 'b'")).toBe(false)
    expect(may('n < 5')).toBe(false)
    expect(may("ts < TIMESTAMP '2024-01-01 09:00:00'")).toBe(false)
    expect(may("ts > TIMESTAMP '2024-01-01 11:00:00.125'")).toBe(false)
    expect(may("d > DATE '2024-01-05'")).toBe(false)
    expect(may('x < 1')).toBe(false)
    expect(may('p = 8')).toBe(false)
    expect(may('p = 7')).toBe(true)
    expect(may('p IS NULL')).toBe(false)
  })

  test('conservative: truncated string max, unsafe long, ms-truncated timestamps, NaN, decimals', () => {
    expect(may(`s > '${long}zzz'`)).toBe(true) // a 32-char max may be a truncated prefix
    expect(may('n > 9007199254740993')).toBe(true) // not exactly representable in JSON: unknown
    expect(may("ts > TIMESTAMP '2024-01-01 11:00:00.123'")).toBe(true) // µs beyond the ms in stats
    expect(may("ts > TIMESTAMP '2024-01-01 11:00:00.123998'")).toBe(true) // the max covers up to +999 µs
    expect(may("ts >= TIMESTAMP '2024-01-01 11:00:00.123999'")).toBe(true)
    expect(may("ts > TIMESTAMP '2024-01-01 11:00:00.123999'")).toBe(false) // and no further
    expect(may('x > 3')).toBe(true) // NaN rows escape min/max
    expect(may('m > 100')).toBe(true) // JSON decimals are lossy: no pruning
  })

  test('null partitions are all-null ranges even without numRecords', () => {
    const nullPart = file({ partitionValues: { p: null } })
    const r = withPartitions(deltaFileStats(snapshot, nullPart), filePartitionValues(snapshot, nullPart))
    expect(mayMatch(parseFilter('p IS NULL'), r)).toBe(true)
    expect(mayMatch(parseFilter('p = 1'), r)).toBe(false)
    expect(mayMatch(parseFilter('NOT p = 1'), r)).toBe(false)
    expect(mayMatch(parseFilter("s = 'x'"), r)).toBe(true) // no stats: unknown
  })
})
