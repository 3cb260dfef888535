import { describe, test } from 'vitest'
import { readBuffer } from '../../../src/gpu/readback.ts'
import { histogramBuildCall, histogramBuildRowsCall } from '../../../src/kernels/gbdt/histogram_build.ts'
import { histogramBuild, histogramBuildRows } from '../../../src/kernels/gbdt/histogram_build.ref.ts'
import { runKernel } from '../../../src/kernels/runner.ts'
import { uploadBuffer } from '../../../src/gpu/buffers.ts'
import { Rng } from '../../../src/util/rng.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import type { CaseOptions, HistogramCase } from './setup.ts'
import { checked, expectMatch, gpuCache, histogramCase, uploadCase } from './setup.ts'

/** Runs the kernel on `c` starting from a non-zero histogram and compares with the reference exactly. */
async function expectParity(
  c: HistogramCase,
  what: string,
  constants: { WG?: number; FPI?: number } = {},
): Promise<void> {
  const cache = await gpuCache()
  const { device } = cache
  const len = c.shape.slots * c.shape.b * 4
  // Non-zero start: the kernel accumulates; values near 2^32 make the first adds carry.
  const start = Uint32Array.from({ length: len }, (_, k) => (k * 2654435761) >>> 0)
  const want = start.slice()
  const s = c.shape
  histogramBuild(c.bins, c.missOff, c.cutPtrs, c.qgpair, c.positions, c.nodeSlot, want, s.n, s.f, s.rowWords, s.b)
  const bufs = uploadCase(device, c, start)
  try {
    await checked(device, () => runKernel(cache, histogramBuildCall(bufs, s, constants)))
    expectMatch(compareArrays(await readBuffer(device, bufs.hist, Uint32Array, len), want), what)
  } finally {
    bufs.destroy()
  }
}

const MIXED: CaseOptions = { widths: [5, 256, 3, 17, 1], missOff: [1, 0, 1, 0, 1], slots: 3 }

describe('histogram_build matches its reference exactly', () => {
  test.each([0, 1, 3, 255, 257, 1000, 4099])('n = %i, 5 features, 3 slots', async n => {
    await expectParity(histogramCase(n, n, MIXED), `histogram_build n=${n}`)
  })

  test.each([1, 3, 8])('features per invocation FPI = %i', async FPI => {
    await expectParity(histogramCase(9, 2001, MIXED), `histogram_build FPI=${FPI}`, { FPI, WG: 64 })
  })

  test('one feature, 256 bins, no missing values', async () => {
    await expectParity(histogramCase(4, 3000, { widths: [256], missOff: [0], slots: 1 }), 'F=1 256 bins')
  })

  test('all-missing feature contributes nothing', async () => {
    await expectParity(histogramCase(5, 777, { widths: [4, 9], missOff: [1, 1], slots: 2, missing: 1 }), 'all missing')
  })

  test('many rows per bin at |q| near 2^30: low words wrap many times', async () => {
    await expectParity(histogramCase(6, 20_000, { widths: [2, 3], missOff: [0, 1], slots: 2, qMax: 2 ** 30 }), 'carry')
  })

  test('small |q|: the hi words stay sign-only', async () => {
    await expectParity(histogramCase(7, 5000, { widths: [7, 7], missOff: [0, 0], slots: 4, qMax: 3 }), 'small q')
  })
})

/** histogram_build_rows over `list` (count words read) against its reference; direct worst-case dispatch. */
async function expectRowsParity(
  c: HistogramCase,
  list: Uint32Array<ArrayBuffer>,
  count: number,
  what: string,
  constants: { WG?: number; FPI?: number } = {},
): Promise<void> {
  const cache = await gpuCache()
  const { device } = cache
  const s = c.shape,
    len = s.slots * s.b * 4
  const start = Uint32Array.from({ length: len }, (_, k) => (k * 2654435761) >>> 0)
  const want = start.slice()
  histogramBuildRows(
    c.bins,
    c.missOff,
    c.cutPtrs,
    c.qgpair,
    c.positions,
    c.nodeSlot,
    want,
    list,
    count,
    s.n,
    s.f,
    s.rowWords,
    s.b,
  )
  const bufs = uploadCase(device, c, start)
  const rows = uploadBuffer(device, list),
    rowCount = uploadBuffer(device, Uint32Array.of(count))
  try {
    await checked(device, () => runKernel(cache, histogramBuildRowsCall({ ...bufs, rows, rowCount }, s, constants)))
    expectMatch(compareArrays(await readBuffer(device, bufs.hist, Uint32Array, len), want), what)
  } finally {
    bufs.destroy()
    rows.destroy()
    rowCount.destroy()
  }
}

describe('histogram_build_rows matches its reference exactly', () => {
  test.each([0, 1, 257, 4099])('n = %i, every row listed in shuffled order', async n => {
    const rng = new Rng(n)
    const list = Uint32Array.from({ length: Math.max(1, n) }, (_, i) => i)
    for (let i = n - 1; i > 0; i--) {
      const j = rng.int(i + 1)
      ;[list[i], list[j]] = [list[j], list[i]]
    }
    const c = histogramCase(n, n, MIXED)
    await expectRowsParity(c, list, n, `rows n=${n}`, { FPI: 2, WG: 64 })
    // Every row listed, in any order: the same sums as the all-rows build.
    const direct = c.shape.slots * c.shape.b * 4,
      a = new Uint32Array(direct),
      b = new Uint32Array(direct),
      s = c.shape
    histogramBuild(c.bins, c.missOff, c.cutPtrs, c.qgpair, c.positions, c.nodeSlot, a, s.n, s.f, s.rowWords, s.b)
    histogramBuildRows(
      c.bins,
      c.missOff,
      c.cutPtrs,
      c.qgpair,
      c.positions,
      c.nodeSlot,
      b,
      list,
      n,
      s.n,
      s.f,
      s.rowWords,
      s.b,
    )
    expectMatch(compareArrays(b, a), `rows ref = all-rows ref n=${n}`)
  })

  test('a partial list with out-of-range entries; count past n is clamped', async () => {
    const c = histogramCase(11, 500, MIXED)
    const list = Uint32Array.from([3, 499, 500, 7, 0xffffffff, 3, 42])
    await expectRowsParity(c, list, 5, 'partial list')
    await expectRowsParity(c, list, 1_000_000, 'count clamped')
  })
})
