/** Shared inputs of the GBDT kernels' parity tests: seeded random binned matrices and pairs. */
import { uploadBuffer } from '../../../src/gpu/buffers.ts'
import type { HistogramBuffers, HistogramShape } from '../../../src/kernels/gbdt/histogram_build.ts'
import { ROW_UNUSED } from '../../../src/kernels/gbdt/layout.ts'
import { Rng } from '../../../src/util/rng.ts'

export { checked, expectMatch, gpuCache } from '../bench/setup.ts'

/** CPU inputs of a histogram build, in the layouts of src/models/gbdt/types.ts. */
export interface HistogramCase {
  shape: HistogramShape
  bins: Uint32Array<ArrayBuffer>
  missOff: Uint32Array<ArrayBuffer>
  cutPtrs: Uint32Array<ArrayBuffer>
  qgpair: Int32Array<ArrayBuffer>
  positions: Uint32Array<ArrayBuffer>
  nodeSlot: Int32Array<ArrayBuffer>
}

/** Options of `histogramCase`: per-feature bin counts and missOff, slots, the size of |q|. */
export interface CaseOptions {
  widths: number[]
  missOff: number[]
  slots: number
  /** Largest |q|; near 2^30 the low words wrap after a few rows (carry paths). */
  qMax?: number
  /** Probability a row's byte is the missing byte 0 (features with missOff 1). */
  missing?: number
}

/** A seeded random histogram case with `n` rows; nodes 0..2·slots−1, half of them not built. */
export function histogramCase(seed: number, n: number, o: CaseOptions): HistogramCase {
  const rng = new Rng(seed)
  const f = o.widths.length,
    rowWords = Math.ceil(n / 4)
  const cutPtrs = new Uint32Array(f + 1)
  o.widths.forEach((w, k) => {
    cutPtrs[k + 1] = cutPtrs[k] + w
  })
  const bins = new Uint32Array(Math.max(1, f * rowWords))
  for (let k = 0; k < f; k++) {
    for (let i = 0; i < n; i++) {
      const s = o.missOff[k] && rng.next() < (o.missing ?? 0.1) ? 0 : o.missOff[k] + rng.int(o.widths[k])
      bins[k * rowWords + (i >> 2)] |= s << ((i & 3) * 8)
    }
  }
  const qMax = o.qMax ?? 2 ** 30
  const qgpair = Int32Array.from({ length: 2 * n }, (_, j) =>
    j & 1 ? rng.int(qMax + 1) : rng.int(2 * qMax + 1) - qMax,
  )
  const nodes = 2 * o.slots
  const positions = Uint32Array.from({ length: n }, () => (rng.int(8) === 0 ? ROW_UNUSED : rng.int(nodes)))
  // Even nodes are built, into slots in reverse order (slot ≠ node id).
  const nodeSlot = Int32Array.from({ length: nodes }, (_, p) => (p % 2 === 0 ? o.slots - 1 - p / 2 : -1))
  const shape = { n, f, rowWords, b: cutPtrs[f], slots: o.slots }
  return { shape, bins, missOff: Uint32Array.from(o.missOff), cutPtrs, qgpair, positions, nodeSlot }
}

/** Uploads a case; `hist` starts as `histStart`. Call the returned `destroy` when done. */
export function uploadCase(
  device: GPUDevice,
  c: HistogramCase,
  histStart: Uint32Array<ArrayBuffer>,
): HistogramBuffers & { destroy(): void } {
  const b: HistogramBuffers = {
    bins: uploadBuffer(device, c.bins),
    missOff: uploadBuffer(device, c.missOff),
    cutPtrs: uploadBuffer(device, c.cutPtrs),
    qgpair: uploadBuffer(device, c.qgpair),
    positions: uploadBuffer(device, c.positions),
    nodeSlot: uploadBuffer(device, c.nodeSlot),
    hist: uploadBuffer(device, histStart),
  }
  return { ...b, destroy: () => Object.values(b).forEach(x => x.destroy()) }
}
