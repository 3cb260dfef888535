/**
 * Histogram throughput of the `gbdt` suite outside training: histogram_build (storage atomics)
 * over every row of the real binned matrix into one slot, and the storage-atomic ceiling of the
 * device suite measured in the same run for the ratio. Bin updates/s = rows × features / s.
 */
import { createBuffer, uploadBuffer } from '../src/gpu/buffers.ts'
import { TimestampQueryManager } from '../src/gpu/timestamp.ts'
import { histogramBuildCall } from '../src/kernels/gbdt/histogram_build.ts'
import { prepareKernel } from '../src/kernels/runner.ts'
import type { BinnedMatrix, Cuts } from '../src/models/gbdt/types.ts'
import { Rng } from '../src/util/rng.ts'
import { atomicRows } from './device-atomics.ts'
import { DEVICE_SIZES, DEVICE_SIZES_QUICK } from './device-suite.ts'
import { measure } from './measure.ts'
import { timeKernel } from './pass.ts'
import { bestRow, makeRow, withPeer } from './rows.ts'
import type { BenchRow, SuiteContext } from './types.ts'

/** Counters of the ceiling workload: about as many as one histogram slot of 28 × 256 bins has words. */
export const CEILING_K = 4096

/**
 * The device suite's storage atomicAdd rows at K = CEILING_K (workgroup variants skipped: they
 * are ~40× slower on SwiftShader and not the ceiling the histogram kernel runs against).
 */
export async function atomicCeiling(ctx: SuiteContext): Promise<BenchRow> {
  const base = ctx.quick ? DEVICE_SIZES_QUICK : DEVICE_SIZES
  const rows = await atomicRows(ctx, { ...base, atomicKs: [CEILING_K], atomicWorkgroupSizes: [], repeats: 7 })
  return bestRow(rows)
}

/** histogram_build over all `binned.rows` rows, one slot, as a row compared with `ceiling`. */
export async function standaloneHistogramRow(
  ctx: SuiteContext,
  binned: BinnedMatrix,
  cuts: Cuts,
  ceiling: BenchRow,
): Promise<BenchRow> {
  const { device } = ctx
  const n = binned.rows,
    f = binned.features,
    b = cuts.cutPtrs[f]
  const rng = new Rng(5)
  const qgpair = Int32Array.from({ length: 2 * n }, (_, j) => (j & 1 ? rng.int(2 ** 20) : rng.int(2 ** 21) - 2 ** 20))
  const buffers = {
    bins: uploadBuffer(device, owned(binned.bins)),
    missOff: uploadBuffer(device, owned(binned.missOff)),
    cutPtrs: uploadBuffer(device, owned(cuts.cutPtrs)),
    qgpair: uploadBuffer(device, qgpair),
    positions: createBuffer(device, 4 * n),
    nodeSlot: uploadBuffer(device, Int32Array.of(0)),
    hist: createBuffer(device, 16 * b),
  }
  const call = histogramBuildCall(buffers, { n, f, rowWords: binned.rowWords, b, slots: 1 })
  const workload = `histogram_build all rows n=${n} f=${f} bins=${b} slots=1`
  ctx.progress(workload)
  const kernel = prepareKernel(ctx.cache, call)
  const ts = new TimestampQueryManager(device)
  try {
    // The histogram keeps accumulating across samples; the exact 64-bit sums cannot overflow here.
    const samples = await measure(() => timeKernel(device, kernel, 1, ts), { warmup: 1, repeats: ctx.quick ? 2 : 3 })
    const row = makeRow(ctx, {
      workload,
      metric: 'bin updates',
      unit: 'M ops/s',
      samples,
      fromSeconds: s => (n * f) / s / 1e6,
    })
    return withPeer(row, ceiling)
  } finally {
    kernel.destroy()
    ts.destroy()
    Object.values(buffers).forEach(buf => buf.destroy())
  }
}

/** The array typed as backed by a plain ArrayBuffer (the model's arrays are; uploads need it). */
function owned(a: Uint32Array): Uint32Array<ArrayBuffer> {
  return a as Uint32Array<ArrayBuffer>
}
