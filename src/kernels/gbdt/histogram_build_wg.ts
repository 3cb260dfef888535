/**
 * histogram_build_wg: the workgroup-privatised histogram build (shaders/gbdt/histogram_build_wg.wgsl),
 * same output as histogram_build; plus the feature-chunk table it needs.
 */
import source from '../../../shaders/gbdt/histogram_build_wg.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import type { HistogramBuffers, HistogramShape } from './histogram_build.ts'
import { checkHistogramShape } from './histogram_build.ts'
import { defineKernel } from '../wgsl.ts'

/** Histogram shape plus `chunks` = feature chunks in the chunk table. */
export interface HistogramWgShape extends HistogramShape {
  chunks: number
}

/** Spec of histogram_build_wg; overrides WG, WG_BINS (private bins), ROWS (rows per workgroup). */
export const histogramBuildWgSpec: KernelSpec<HistogramWgShape> = defineKernel({
  name: 'histogram_build_wg',
  source,
  snippets: ['fixed64', 'grid'],
  entryPoint: 'histogram_build_wg',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'bins', kind: 'read-only-storage' },
    { binding: 2, name: 'missOff', kind: 'read-only-storage' },
    { binding: 3, name: 'cutPtrs', kind: 'read-only-storage' },
    { binding: 4, name: 'qgpair', kind: 'read-only-storage' },
    { binding: 5, name: 'positions', kind: 'read-only-storage' },
    { binding: 6, name: 'nodeSlot', kind: 'read-only-storage' },
    { binding: 7, name: 'hist', kind: 'storage' },
    { binding: 8, name: 'chunks', kind: 'read-only-storage' },
  ],
  uniforms: [
    { name: 'n', type: 'u32' },
    { name: 'f', type: 'u32' },
    { name: 'rowWords', type: 'u32' },
    { name: 'b', type: 'u32' },
    { name: 'slots', type: 'u32' },
    { name: 'chunks', type: 'u32' },
  ],
  overrides: { WG: 256, WG_BINS: 1024, ROWS: 4096 },
  dispatchSize: (s, c) => linearDispatch(Math.ceil(s.n / c.ROWS) * s.chunks * s.slots * c.WG, c.WG),
})

/**
 * Feature chunks for a private histogram of `wgBins` bins: consecutive features grouped greedily
 * while their bins fit. Returns u32 × 2·C (first feature, end feature). Throws RangeError when
 * one feature alone has more than `wgBins` bins.
 */
export function histogramChunks(
  cutPtrs: Uint32Array,
  wgBins: number = histogramBuildWgSpec.overrides.WG_BINS,
): Uint32Array<ArrayBuffer> {
  const out: number[] = []
  const nf = cutPtrs.length - 1
  let start = 0
  for (let f = 0; f < nf; f++) {
    if (cutPtrs[f + 1] - cutPtrs[f] > wgBins)
      throw new RangeError(
        `histogram_build_wg: feature ${f} has ${cutPtrs[f + 1] - cutPtrs[f]} bins > WG_BINS ${wgBins}`,
      )
    if (cutPtrs[f + 1] - cutPtrs[start] > wgBins) {
      out.push(start, f)
      start = f
    }
  }
  if (nf > 0) out.push(start, nf)
  return Uint32Array.from(out)
}

/**
 * A call accumulating the histograms of nodes with nodeSlot ≥ 0 into `hist`; `chunks` is the
 * buffer of histogramChunks(cutPtrs, WG_BINS) and `shape.chunks` its length / 2.
 */
export function histogramBuildWgCall(
  buffers: HistogramBuffers & { chunks: GPUBuffer },
  shape: HistogramWgShape,
  constants: { WG?: number; WG_BINS?: number; ROWS?: number } = {},
): KernelCall<HistogramWgShape> {
  checkHistogramShape('histogram_build_wg', shape)
  if ((shape.classes ?? 1) !== 1)
    throw new RangeError(
      `histogram_build_wg: one entry per row only, got classes ${shape.classes} (use histogram_build)`,
    )
  const uniforms = {
    n: shape.n,
    f: shape.f,
    rowWords: shape.rowWords,
    b: shape.b,
    slots: shape.slots,
    chunks: shape.chunks,
  }
  return { spec: histogramBuildWgSpec, shape, buffers: { ...buffers }, uniforms, constants }
}
