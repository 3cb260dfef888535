/** Pure helpers of the loader bench: shares, rows from values, repeats, the peer's chunk conversion, paths. */
import { describe, expect, it } from 'vitest'
import {
  CLICKS_COLUMNS,
  LOADER_SIZES,
  LOADER_SIZES_QUICK,
  firstAndFull,
  repeat,
  shareValues,
  valueRow,
} from '../../../bench/loader-rows.ts'
import { writeChunk } from '../../../bench/loader-peer.ts'
import { loaderBenchPaths } from '../../../bench/cli-loader.ts'
import { SUITE_NAMES } from '../../../bench/suites.ts'
import { hashInt64, hashString } from '../../../src/util/hash.ts'
import type { LoaderStats } from '../../../src/data/types.ts'

const CTX = {
  suite: 'loader',
  commit: 'abc1234',
  date: '2026-11-30T00:00:00.000Z',
  adapter: {
    vendor: 'v',
    architecture: 'a',
    device: 'd',
    description: 'desc',
    isFallbackAdapter: false,
    features: [],
    limits: {},
  },
} as never

function stats(fetchMs: number, decodeMs: number, transferMs: number): LoaderStats {
  return {
    workers: 2,
    unitsRead: 1,
    rowsDelivered: 1,
    batchesDelivered: 1,
    bytesDelivered: 1,
    bytesFetched: 1,
    fetchMs,
    decodeMs,
    transferMs,
    waitMs: 0,
    peakBytes: 0,
  }
}

describe('loader bench helpers', () => {
  it('shareValues splits worker time into network/decode/transfer percentages, skipping empty samples', () => {
    const s = shareValues([stats(30, 60, 10), stats(0, 0, 0), stats(1, 1, 2)])
    expect(s.network).toEqual([30, 25])
    expect(s.decode).toEqual([60, 25])
    expect(s.transfer).toEqual([10, 50])
  })

  it('valueRow takes the median of the values and stamps the context', () => {
    const row = valueRow(CTX, 'w', 'latency', 's', [3, 1, 2, 10])
    expect(row).toMatchObject({
      suite: 'loader',
      workload: 'w',
      metric: 'latency',
      unit: 's',
      value: 2.5,
      min: 1,
      max: 10,
      repeats: 4,
      timing: 'wall',
      commit: 'abc1234',
    })
    expect(() => valueRow(CTX, 'w', 'latency', 's', [])).toThrow(/no values/)
  })

  it('repeat runs warmups untimed and returns only the timed results', async () => {
    let calls = 0
    const out = await repeat(async () => ++calls, { warmup: 2, repeats: 3 })
    expect(out).toEqual([3, 4, 5])
    expect(
      firstAndFull(
        [
          { first: 1, full: 4 },
          { first: 2, full: 5 },
        ],
        'full',
      ),
    ).toEqual([4, 5])
  })

  it('presets: 1, 2 and 4 workers; clicks columns cover the schema with the embedding as n × 8', () => {
    expect(LOADER_SIZES.workers).toEqual([1, 2, 4])
    expect(LOADER_SIZES_QUICK.repeats).toBeLessThanOrEqual(LOADER_SIZES.repeats)
    expect(CLICKS_COLUMNS.map(c => c.name)).toHaveLength(18)
    expect(CLICKS_COLUMNS.find(c => c.name === 'emb')).toEqual({ name: 'emb', encoding: 'fixed_list', length: 8 })
    expect(SUITE_NAMES).toContain('loader')
  })

  it('writeChunk converts hyparquet chunks: bigint/string hashes, nulls to NaN, lists flattened', () => {
    const ids = new Uint32Array(4)
    writeChunk(ids, { name: 'id', encoding: 'hash32' }, { columnData: [5n, 6n] as never, rowStart: 2, rowEnd: 4 })
    expect(Array.from(ids)).toEqual([0, 0, hashInt64(5n), hashInt64(6n)])
    const names = new Uint32Array(1)
    writeChunk(names, { name: 's', encoding: 'hash32' }, { columnData: ['x'] as never, rowStart: 0, rowEnd: 1 })
    expect(names[0]).toBe(hashString('x'))
    const f = new Float32Array(3)
    writeChunk(f, { name: 'f', encoding: 'float32' }, { columnData: [1.5, null, 2] as never, rowStart: 0, rowEnd: 3 })
    expect(Array.from(f)).toEqual([1.5, NaN, 2])
    const typed = new Float32Array(2)
    writeChunk(
      typed,
      { name: 'd', encoding: 'float32' },
      { columnData: Float64Array.of(0.1, 0.2) as never, rowStart: 0, rowEnd: 2 },
    )
    expect(Array.from(typed)).toEqual([Math.fround(0.1), Math.fround(0.2)])
    const emb = new Float32Array(4)
    writeChunk(
      emb,
      { name: 'e', encoding: 'fixed_list', length: 2 },
      { columnData: [[1, 2], null] as never, rowStart: 0, rowEnd: 2 },
    )
    expect(Array.from(emb)).toEqual([1, 2, NaN, NaN])
  })

  it('loaderBenchPaths: 1M rows under bench/tables, --quick the 200k sample in public/tables', () => {
    expect(loaderBenchPaths(false, '/r')).toEqual({
      tableDir: '/r/bench/tables/clicks-1000000/clicks',
      rows: 1_000_000,
      csvPath: '/r/bench/tables/clicks-1000000.csv',
    })
    expect(loaderBenchPaths(true, '/r')).toEqual({
      tableDir: '/r/public/tables/clicks',
      rows: 200_000,
      csvPath: '/r/bench/tables/clicks-200000.csv',
    })
  })
})
