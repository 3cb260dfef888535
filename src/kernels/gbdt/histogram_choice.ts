/**
 * Picks the histogram kernel per adapter: storage atomics on a fallback (software) adapter without
 * measuring, else by measuring — storage atomics win on SwiftShader (workgroup atomics 1.5–43 M/s
 * there against ~60 M/s storage), workgroup privatisation on real GPUs.
 * Not a kernel itself: it times histogram_build and histogram_build_wg on one fixed workload.
 */
import { uploadBuffer } from '../../gpu/buffers.ts'
import { isSoftware } from '../../gpu/device.ts'
import type { PipelineCache } from '../../gpu/pipeline-cache.ts'
import { Rng } from '../../util/rng.ts'
import type { KernelCall } from '../runner.ts'
import { prepareKernel, submitAndWait } from '../runner.ts'
import type { HistogramBuffers, HistogramShape } from './histogram_build.ts'
import { histogramBuildCall } from './histogram_build.ts'
import { histogramBuildWgCall, histogramChunks } from './histogram_build_wg.ts'

/** Which histogram kernel a device should use. */
export type HistogramKernel = 'storage' | 'workgroup'

/** Milliseconds (best of the timed runs, wall clock incl. submit) per variant. */
export interface HistogramTimings {
  storage: number
  workgroup: number
}

/** The fixed workload: 16384 rows × 8 features × 64 bins (no missing), 2 slots, every row built. */
const N = 16_384,
  F = 8,
  BINS = 64,
  SLOTS = 2

/**
 * Choices per adapter (adapterKey), shared by every device of the page on that adapter: a sweep's
 * slots each own a device, and measuring on each while another slot already trained let a stalled
 * queue make storage atomics look slower, so one slot ran every trial with the workgroup kernel
 * (15–40× slower on SwiftShader at depth 9).
 */
const byAdapter = new Map<string, Promise<HistogramKernel>>()
/** Fallback when the device does not expose its adapter (GPUDevice.adapterInfo absent). */
const byDevice = new WeakMap<GPUDevice, Promise<HistogramKernel>>()

/** The answer on a fallback adapter (one promise, as a measured adapter's is). */
const STORAGE: Promise<HistogramKernel> = Promise.resolve('storage')

/** Timed runs per variant: best-of-3 keeps one stall of a busy machine from deciding. */
const CHOICE_REPS = 3

/**
 * The variant to use for `t`: workgroup privatisation only when clearly faster (by 20%), since
 * picking it wrongly costs 40–100× on adapters where workgroup atomics are slow (SwiftShader),
 * while picking storage atomics wrongly costs far less on real GPUs.
 */
export function pickHistogramKernel(t: HistogramTimings): HistogramKernel {
  return t.workgroup < 0.8 * t.storage ? 'workgroup' : 'storage'
}

/**
 * Identity of the adapter behind `device` (vendor|architecture|device|description), or undefined
 * where the browser lacks GPUDevice.adapterInfo.
 */
export function adapterKey(device: GPUDevice): string | undefined {
  const info = (device as { adapterInfo?: GPUAdapterInfo }).adapterInfo
  return info ? [info.vendor, info.architecture, info.device, info.description].join('|') : undefined
}

/**
 * The faster variant on `cache.device`. On a fallback adapter (fallbackAdapter) the answer is
 * known, storage atomics, and nothing is compiled or timed: measuring there compiled both
 * variants (~3 s of a first round on SwiftShader) to pick what it always picks. Elsewhere it is
 * measured once per adapter (devices of one adapter share the first measurement, made before any
 * of them trains) and then cached; a failed measurement is forgotten so the next device measures
 * again. `measure` is for tests.
 */
export function chooseHistogramKernel(
  cache: PipelineCache,
  measure: (c: PipelineCache) => Promise<HistogramKernel> = c =>
    measureHistogramKernels(c, CHOICE_REPS).then(pickHistogramKernel),
): Promise<HistogramKernel> {
  if (fallbackAdapter(cache.device)) return STORAGE
  const key = adapterKey(cache.device)
  let hit = key === undefined ? byDevice.get(cache.device) : byAdapter.get(key)
  if (!hit) {
    const mine = measure(cache)
    if (key === undefined) byDevice.set(cache.device, mine)
    else {
      byAdapter.set(key, mine)
      mine.catch(() => {
        if (byAdapter.get(key) === mine) byAdapter.delete(key)
      })
    }
    hit = mine
  }
  return hit
}

/**
 * True when `device`'s adapter is a fallback (software) one: GPUAdapterInfo.isFallbackAdapter
 * where the browser sets it, or the adapter being SwiftShader or another CPU rasteriser
 * (gpu/device.ts isSoftware; the recommender's defaultMatmul reads the same rule). False where
 * the device does not expose its adapter: that one measures.
 */
export function fallbackAdapter(device: GPUDevice): boolean {
  const info = (device as { adapterInfo?: GPUAdapterInfo & { isFallbackAdapter?: boolean } }).adapterInfo
  if (!info) return false
  const { vendor, architecture, description } = info
  return isSoftware({ vendor, architecture, description, isFallbackAdapter: Boolean(info.isFallbackAdapter) })
}

/** Times both variants on the fixed workload (one warm-up run each, then best of `reps`). */
export async function measureHistogramKernels(cache: PipelineCache, reps = 2): Promise<HistogramTimings> {
  const { device } = cache
  const { buffers, shape, chunks } = workload(device)
  const table = histogramChunks(chunks)
  const chunkBuf = uploadBuffer(device, table)
  try {
    const storage = await timeCall(cache, histogramBuildCall(buffers, shape), reps)
    const workgroup = await timeCall(
      cache,
      histogramBuildWgCall({ ...buffers, chunks: chunkBuf }, { ...shape, chunks: table.length / 2 }),
      reps,
    )
    return { storage, workgroup }
  } finally {
    chunkBuf.destroy()
    Object.values(buffers).forEach(b => b.destroy())
  }
}

/** Seeded inputs of the fixed workload on `device`; returns cutPtrs (CPU) for the chunk table. */
function workload(device: GPUDevice): { buffers: HistogramBuffers; shape: HistogramShape; chunks: Uint32Array } {
  const rng = new Rng(1)
  const rowWords = N / 4
  const cutPtrs = Uint32Array.from({ length: F + 1 }, (_, f) => f * BINS)
  const bins = Uint32Array.from({ length: F * rowWords }, () => rng.nextU32() & 0x3f3f3f3f)
  const qgpair = Int32Array.from({ length: 2 * N }, (_, j) => (j & 1 ? rng.int(2 ** 30) : rng.int(2 ** 31) - 2 ** 30))
  const buffers: HistogramBuffers = {
    bins: uploadBuffer(device, bins),
    missOff: uploadBuffer(device, new Uint32Array(F)),
    cutPtrs: uploadBuffer(device, cutPtrs),
    qgpair: uploadBuffer(device, qgpair),
    positions: uploadBuffer(
      device,
      Uint32Array.from({ length: N }, (_, i) => i & 1),
    ),
    nodeSlot: uploadBuffer(device, Int32Array.from([0, 1])),
    hist: uploadBuffer(device, new Uint32Array(SLOTS * F * BINS * 4)),
  }
  return { buffers, shape: { n: N, f: F, rowWords, b: F * BINS, slots: SLOTS }, chunks: cutPtrs }
}

async function timeCall<S>(cache: PipelineCache, call: KernelCall<S>, reps: number): Promise<number> {
  const k = prepareKernel(cache, call)
  let best = Infinity
  try {
    for (let r = 0; r <= reps; r++) {
      const t0 = performance.now()
      await submitAndWait(cache.device, k)
      // Run 0 is the warm-up (pipeline compilation, first-touch of buffers).
      if (r > 0) best = Math.min(best, performance.now() - t0)
    }
  } finally {
    k.destroy()
  }
  return best
}
