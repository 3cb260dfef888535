import { describe, expect, test } from 'vitest'
import { uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import { histogramBuildWgCall, histogramChunks } from '../../../src/kernels/gbdt/histogram_build_wg.ts'
import { histogramBuildWg } from '../../../src/kernels/gbdt/histogram_build_wg.ref.ts'
import {
  chooseHistogramKernel,
  fallbackAdapter,
  measureHistogramKernels,
  pickHistogramKernel,
} from '../../../src/kernels/gbdt/histogram_choice.ts'
import { runKernel } from '../../../src/kernels/runner.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import type { CaseOptions, HistogramCase } from './setup.ts'
import { checked, expectMatch, gpuCache, histogramCase, uploadCase } from './setup.ts'

type WgConstants = { WG?: number; WG_BINS?: number; ROWS?: number }

async function expectParity(c: HistogramCase, what: string, constants: WgConstants = {}): Promise<void> {
  const cache = await gpuCache()
  const { device } = cache
  const s = c.shape,
    len = s.slots * s.b * 4
  const start = Uint32Array.from({ length: len }, (_, k) => (k * 2654435761) >>> 0)
  const want = start.slice()
  histogramBuildWg(c.bins, c.missOff, c.cutPtrs, c.qgpair, c.positions, c.nodeSlot, want, s.n, s.f, s.rowWords, s.b)
  const table = histogramChunks(c.cutPtrs, constants.WG_BINS)
  const bufs = { ...uploadCase(device, c, start), chunks: uploadBuffer(device, table) }
  try {
    await checked(device, () =>
      runKernel(cache, histogramBuildWgCall(bufs, { ...s, chunks: table.length / 2 }, constants)),
    )
    expectMatch(compareArrays(await readBuffer(device, bufs.hist, Uint32Array, len), want), what)
  } finally {
    bufs.destroy()
    bufs.chunks.destroy()
  }
}

const MIXED: CaseOptions = { widths: [5, 256, 3, 17, 1], missOff: [1, 0, 1, 0, 1], slots: 3 }

describe('histogramChunks', () => {
  test('groups features greedily within WG_BINS and refuses wider features', () => {
    expect([...histogramChunks(Uint32Array.from([0, 200, 300, 556, 700]), 300)]).toEqual([0, 2, 2, 3, 3, 4])
    expect([...histogramChunks(Uint32Array.from([0]), 300)]).toEqual([])
    expect(() => histogramChunks(Uint32Array.from([0, 257]), 256)).toThrow(/feature 0 has 257 bins/)
  })
})

describe('histogram_build_wg matches the reference exactly', () => {
  test.each([0, 1, 255, 257, 4099])('n = %i, 5 features, 3 slots', async n => {
    await expectParity(histogramCase(n, n, MIXED), `histogram_build_wg n=${n}`)
  })

  test('several chunks and row blocks (WG_BINS 256, ROWS 300, WG 64)', async () => {
    await expectParity(histogramCase(11, 2001, MIXED), 'chunks', { WG_BINS: 256, ROWS: 300, WG: 64 })
  })

  test('one feature, 256 bins, no missing values', async () => {
    await expectParity(histogramCase(4, 3000, { widths: [256], missOff: [0], slots: 1 }), 'F=1 256 bins', {
      WG_BINS: 256,
    })
  })

  test('all-missing features contribute nothing', async () => {
    await expectParity(histogramCase(5, 777, { widths: [4, 9], missOff: [1, 1], slots: 2, missing: 1 }), 'all missing')
  })

  test('|q| near 2^30 over 20k rows: private and global low words wrap', async () => {
    await expectParity(histogramCase(6, 20_000, { widths: [2, 3], missOff: [0, 1], slots: 2 }), 'carry', {
      ROWS: 20_000,
    })
  })
})

describe('chooseHistogramKernel', () => {
  test('measures both variants; the choice (storage, unmeasured, on a fallback adapter) is cached per device', async () => {
    const cache = await gpuCache()
    const t = await measureHistogramKernels(cache, 1)
    expect(t.storage).toBeGreaterThan(0)
    expect(t.workgroup).toBeGreaterThan(0)
    const first = await chooseHistogramKernel(cache)
    expect(['storage', 'workgroup']).toContain(first)
    if (fallbackAdapter(cache.device)) expect(first).toBe('storage')
    expect(chooseHistogramKernel(cache)).toBe(chooseHistogramKernel(cache))
    console.log(`histogram kernel timings (ms): ${JSON.stringify(t)} → ${first}`)
  })
})

describe('pickHistogramKernel', () => {
  test('picks workgroup only when it beats storage by more than 20%', () => {
    expect(pickHistogramKernel({ storage: 10, workgroup: 7.9 })).toBe('workgroup')
    expect(pickHistogramKernel({ storage: 10, workgroup: 8.1 })).toBe('storage')
    expect(pickHistogramKernel({ storage: 10, workgroup: 10 })).toBe('storage')
    expect(pickHistogramKernel({ storage: 7.5, workgroup: 40 })).toBe('storage')
  })
})
