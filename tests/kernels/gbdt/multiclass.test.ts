/**
 * The multiclass kernels against their references (K classes' entries per row, K = 2, 3, 26; N
 * not a multiple of 4 or 64; nodes without rows; K = 40, more than one batch of entries): histogram_build with classes = K (one pass for
 * the K class trees: exact, two features-per-invocation settings), row_partition
 * with classes = K (exact) and softmax_gradient (atol 1e-6, rtol 1e-5: GPU exp).
 */
import { describe, expect, test } from 'vitest'
import { createBuffer, uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import { histogramBuildCall, histogramBuildRowsCall } from '../../../src/kernels/gbdt/histogram_build.ts'
import { histogramBuild } from '../../../src/kernels/gbdt/histogram_build.ref.ts'
import { rowPartitionCall } from '../../../src/kernels/gbdt/row_partition.ts'
import { rowPartition } from '../../../src/kernels/gbdt/row_partition.ref.ts'
import { softmaxGradientCall } from '../../../src/kernels/gbdt/gradient.ts'
import { softmaxGradient } from '../../../src/kernels/gbdt/gradient.ref.ts'
import { NO_NODE, ROW_UNUSED, SPLIT_TABLE_WORDS } from '../../../src/kernels/gbdt/layout.ts'
import { runKernel } from '../../../src/kernels/runner.ts'
import { Rng } from '../../../src/util/rng.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { checked, expectMatch, gpuCache, histogramCase, uploadCase } from './setup.ts'

const SIZES = [
  [2, 1],
  [3, 63],
  [3, 1001],
  [26, 130],
  // More classes than a batch of histogram_build_classes (32 entries per row at a time).
  [40, 70],
] as const

/** A histogram case widened to K entries per row: each class's entries in its own nodes (some never reached). */
function multiCase(K: number, n: number) {
  const c = histogramCase(K * 7 + n, n, { widths: [5, 256, 3, 17], missOff: [1, 0, 1, 0], slots: 2 * K })
  const rng = new Rng(K + 3 * n)
  // Class k owns nodes 4k … 4k + 3; nodes 4k, 4k + 1 are built (4k + 1 never reached: empty).
  const positions = Uint32Array.from({ length: n * K }, (_, e) =>
    rng.int(9) === 0 ? ROW_UNUSED : 4 * (e % K) + [0, 2, 3][rng.int(3)],
  )
  const nodeSlot = Int32Array.from({ length: 4 * K }, (_, p) => (p % 4 < 2 ? 2 * K - 1 - (2 * (p >> 2) + (p % 4)) : -1))
  const qgpair = Int32Array.from({ length: 2 * n * K }, (_, j) =>
    j & 1 ? rng.int(2 ** 30 + 1) : rng.int(2 ** 31 + 1) - 2 ** 30,
  )
  return { ...c, positions, nodeSlot, qgpair, shape: { ...c.shape, slots: 2 * K, classes: K } }
}

describe('histogram_build with K classes per row matches its reference exactly', () => {
  test.each(SIZES)('K = %i, n = %i', async (K, n) => {
    const cache = await gpuCache()
    const c = multiCase(K, n),
      s = c.shape
    const len = s.slots * s.b * 4
    const start = Uint32Array.from({ length: len }, (_, k) => (k * 2654435761) >>> 0)
    const want = start.slice()
    histogramBuild(c.bins, c.missOff, c.cutPtrs, c.qgpair, c.positions, c.nodeSlot, want, s.n, s.f, s.rowWords, s.b, K)
    for (const FPI of [32, 3]) {
      const bufs = uploadCase(cache.device, c, start.slice())
      try {
        await checked(cache.device, () => runKernel(cache, histogramBuildCall(bufs, s, { FPI, WG: 64 })))
        expectMatch(
          compareArrays(await readBuffer(cache.device, bufs.hist, Uint32Array, len), want),
          `K=${K} n=${n} FPI=${FPI}`,
        )
      } finally {
        bufs.destroy()
      }
    }
  })

  test('the row-list variant takes one entry per row only', () => {
    const c = multiCase(3, 8)
    const none = {} as GPUBuffer
    const bufs = { ...c, bins: none, missOff: none, cutPtrs: none, qgpair: none, positions: none, nodeSlot: none }
    expect(() => histogramBuildRowsCall({ ...bufs, hist: none, rows: none, rowCount: none }, c.shape)).toThrow(
      'histogram_build_rows: one entry per row only, got classes 3',
    )
  })
})

describe('row_partition with K classes per row matches its reference exactly', () => {
  test.each(SIZES)('K = %i, n = %i', async (K, n) => {
    const cache = await gpuCache()
    const { device } = cache
    const c = multiCase(K, n),
      rng = new Rng(n)
    // Class k's root k splits (children K + 2k, K + 2k + 1); every third class's root does not.
    const nodes = 3 * K
    const table = new Uint32Array(nodes * SPLIT_TABLE_WORDS)
    for (let nid = 0; nid < nodes; nid++) table[nid * SPLIT_TABLE_WORDS + 3] = NO_NODE
    for (let k = 0; k < K; k++)
      if (k % 3 !== 2) table.set([rng.int(4), rng.int(6), k & 1, K + 2 * k, K + 2 * k + 1, 0], k * SPLIT_TABLE_WORDS)
    const positions = Uint32Array.from(c.positions, (p, e) => (p === ROW_UNUSED ? p : e % K))
    const shape = { rows: n, rowWords: c.shape.rowWords, nodes, classes: K }
    const want = positions.slice()
    rowPartition(c.bins, c.missOff, table, want, shape)
    const bufs = {
      bins: uploadBuffer(device, c.bins),
      missOff: uploadBuffer(device, c.missOff),
      splits: uploadBuffer(device, table),
      positions: uploadBuffer(device, positions),
    }
    try {
      await checked(device, () => runKernel(cache, rowPartitionCall(bufs, shape)))
      expectMatch(compareArrays(await readBuffer(device, bufs.positions, Uint32Array, n * K), want), `K=${K} n=${n}`)
    } finally {
      Object.values(bufs).forEach(b => b.destroy())
    }
  })
})

describe('softmax_gradient matches its reference (atol 1e-6, rtol 1e-5)', () => {
  test.each(SIZES)('K = %i, n = %i (weights, unsampled entries)', async (K, n) => {
    const cache = await gpuCache()
    const { device } = cache
    const rng = new Rng(K * n)
    const margins = rng.floats(n * K, -20, 20)
    const labels = Float32Array.from({ length: n }, () => rng.int(K))
    const weights = rng.floats(n, 0, 3)
    const positions = Uint32Array.from({ length: n * K }, () => (rng.int(5) === 0 ? ROW_UNUSED : 0))
    const want = new Float32Array(2 * n * K)
    softmaxGradient(margins, labels, weights, positions, want, n, K)
    const bufs = {
      margins: uploadBuffer(device, margins),
      labels: uploadBuffer(device, labels),
      weights: uploadBuffer(device, weights),
      positions: uploadBuffer(device, positions),
      gpair: createBuffer(device, 8 * n * K),
    }
    try {
      await checked(device, () => runKernel(cache, softmaxGradientCall(bufs, n, K)))
      expectMatch(
        compareArrays(await readBuffer(device, bufs.gpair, Float32Array, 2 * n * K), want, 1e-6, 1e-5),
        `K=${K} n=${n}`,
      )
    } finally {
      Object.values(bufs).forEach(b => b.destroy())
    }
  })
})
