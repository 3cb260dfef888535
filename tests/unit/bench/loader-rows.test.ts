/** Pure helpers of the loader bench: shares, rows from values, repeats, the peer's chunk conversion, paths. */
import { describe, expect, it } from 'vitest'
import {
  CLICKS_COLUMNS,
  LOADER_SIZES,
  LOADER_SIZES_QUICK,
  addChecksum,
  firstAndFull,
  repeat,
  rowChecksum,
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
    cacheHits: 0,
    cacheMisses: 0,
    bytesFromCache: 0,
    revalidations: 0,
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

  it('addChecksum: order- and batching-free, NaN as one pattern; a changed value or a swapped pair of columns changes it', () => {
    const cols = [
      { name: 'id', encoding: 'hash32' as const },
      { name: 'x', encoding: 'float32' as const },
      { name: 'e', encoding: 'fixed_list' as const, length: 2 },
    ]
    const id = Uint32Array.from([7, 8, 9, 10])
    const x = Float32Array.from([0.5, Number.NaN, -1, 3])
    const e = Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8])
    const whole = rowChecksum()
    addChecksum(whole, cols, 4, { id, x, e })
    // The same rows reversed, in two batches of 2.
    const order = [3, 2, 1, 0]
    const flipped = rowChecksum()
    for (const part of [order.slice(0, 2), order.slice(2)])
      addChecksum(flipped, cols, 2, {
        id: Uint32Array.from(part, r => id[r]!),
        x: Float32Array.from(part, r => (r === 1 ? new Float32Array(new Uint32Array([0xffc00001]).buffer)[0]! : x[r]!)),
        e: Float32Array.from(part.flatMap(r => [e[2 * r]!, e[2 * r + 1]!])),
      })
    expect(flipped).toEqual(whole)
    expect(whole.rows).toBe(4)
    const changed = rowChecksum()
    addChecksum(changed, cols, 4, { id, x, e: Float32Array.from(e, (v, i) => (i === 5 ? v + 1 : v)) })
    expect(changed.sum).not.toBe(whole.sum)
    // Two values of one row swapped between columns (row contents are ordered by the spec).
    const swapped = rowChecksum()
    addChecksum(swapped, cols, 4, {
      id,
      x: Float32Array.from([0.5, Number.NaN, -1, 3]),
      e: Float32Array.from([2, 1, 3, 4, 5, 6, 7, 8]),
    })
    expect(swapped.sum).not.toBe(whole.sum)
    expect(() => addChecksum(rowChecksum(), cols, 4, { id, x, e: e.subarray(1) })).toThrow(
      /column e has 7 values, expected 8/,
    )
  })
})
