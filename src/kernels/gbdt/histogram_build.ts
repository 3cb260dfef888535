/** histogram_build: per-(slot, bin) exact 64-bit gradient sums with storage atomics (shaders/gbdt/histogram_build.wgsl). */
import source from '../../../shaders/gbdt/histogram_build.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import { defineKernel } from '../wgsl.ts'

/**
 * Problem shape: `n` rows, `f` features, `rowWords` = ceil(n / 4), `b` = total bins, `slots`
 * built; `classes` = entries per row (multiclass K: qgpair and positions N × K; default 1).
 */
export interface HistogramShape {
  n: number
  f: number
  rowWords: number
  b: number
  slots: number
  classes?: number
}

/** Buffers of a histogram build (both variants); see src/models/gbdt/types.ts for layouts. */
export interface HistogramBuffers {
  /** u32 × F·rowWords: u8 bins, feature-major. */
  bins: GPUBuffer
  /** u32 × F: 1 = byte 0 means missing. */
  missOff: GPUBuffer
  /** u32 × (F + 1): first global bin of each feature. */
  cutPtrs: GPUBuffer
  /** vec2<i32> × N·K quantised (g, h), K = classes. */
  qgpair: GPUBuffer
  /** u32 × N·K node id per (row, class); 0xFFFFFFFF = unused. */
  positions: GPUBuffer
  /** i32 × maxNodes: node id → slot to build, −1 = not built. */
  nodeSlot: GPUBuffer
  /** u32 × S·B·4 [gLo, gHi, hLo, hHi]; accumulated into (clear the slots first). */
  hist: GPUBuffer
}

/**
 * Features per invocation. Measured on SwiftShader, 100k rows × 28 features × 256 bins, 1 slot,
 * all rows built (wall clock incl. submit): FPI = 1 (one invocation per (row, feature)) 4.7 M
 * bin updates/s, FPI = 4 20 M/s, FPI = 28 or 32 (one invocation per row) 22 M/s, against a
 * storage-atomic ceiling of 50–60 M atomics/s; each bin update costs ~2.25 atomics (g lo, h lo,
 * plus a hi word for 1/8 of each), so the per-row build runs near the atomic ceiling.
 */
export const DEFAULT_FPI = 32

/** Spec of histogram_build; overrides WG = workgroup size, FPI = features per invocation. */
export const histogramBuildSpec: KernelSpec<HistogramShape> = defineKernel({
  name: 'histogram_build',
  source,
  snippets: ['fixed64', 'grid'],
  entryPoint: 'histogram_build',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'bins', kind: 'read-only-storage' },
    { binding: 2, name: 'missOff', kind: 'read-only-storage' },
    { binding: 3, name: 'cutPtrs', kind: 'read-only-storage' },
    { binding: 4, name: 'qgpair', kind: 'read-only-storage' },
    { binding: 5, name: 'positions', kind: 'read-only-storage' },
    { binding: 6, name: 'nodeSlot', kind: 'read-only-storage' },
    { binding: 7, name: 'hist', kind: 'storage' },
  ],
  uniforms: [
    { name: 'n', type: 'u32' },
    { name: 'f', type: 'u32' },
    { name: 'rowWords', type: 'u32' },
    { name: 'b', type: 'u32' },
    { name: 'classes', type: 'u32' },
  ],
  overrides: { WG: 256, FPI: DEFAULT_FPI },
  dispatchSize: (s, c) => linearDispatch(s.f === 0 ? 0 : s.n * Math.ceil(s.f / c.FPI), c.WG),
})

/**
 * Spec of histogram_build_classes: histogram_build for classes = K > 1 (multiclass), K entries per
 * row in one pass; histogramBuildCall picks it when shape.classes > 1.
 */
export const histogramBuildClassesSpec: KernelSpec<HistogramShape> = {
  ...histogramBuildSpec,
  name: 'histogram_build_classes',
  entryPoint: 'histogram_build_classes',
}

/** Buffers of histogram_build_rows: the build's plus the row list and its length. */
export interface HistogramRowsBuffers extends HistogramBuffers {
  /** u32 × ≥ count: rows to add (row_compact's list); entries ≥ n are skipped. */
  rows: GPUBuffer
  /** u32 × 1: how many entries of `rows` to read (clamped to n). */
  rowCount: GPUBuffer
}

/**
 * Spec of histogram_build_rows: histogram_build over a row list. Its dispatchSize is the worst
 * case (every row listed); the GPU backend dispatches it indirectly with row_compact_args instead.
 */
export const histogramBuildRowsSpec: KernelSpec<HistogramShape> = {
  ...histogramBuildSpec,
  name: 'histogram_build_rows',
  entryPoint: 'histogram_build_rows',
  bindings: [
    ...histogramBuildSpec.bindings,
    { binding: 8, name: 'rows', kind: 'read-only-storage' },
    { binding: 9, name: 'rowCount', kind: 'read-only-storage' },
  ],
}

/** Checks a histogram shape; throws RangeError naming the bad field. */
export function checkHistogramShape(kernel: string, s: HistogramShape): void {
  for (const k of ['n', 'f', 'rowWords', 'b', 'slots'] as const) {
    if (!Number.isInteger(s[k]) || s[k] < 0) throw new RangeError(`${kernel}: ${k} must be an integer ≥ 0, got ${s[k]}`)
  }
  if (s.rowWords < Math.ceil(s.n / 4))
    throw new RangeError(`${kernel}: rowWords ${s.rowWords} < ceil(n / 4) for n = ${s.n}`)
  const K = s.classes ?? 1
  if (!Number.isInteger(K) || K < 1) throw new RangeError(`${kernel}: classes must be an integer ≥ 1, got ${K}`)
  if (s.n * K >= 2 ** 32) throw new RangeError(`${kernel}: n · classes = ${s.n} · ${K} overflows u32 indices`)
  if (s.slots * s.b * 4 >= 2 ** 32)
    throw new RangeError(`${kernel}: ${s.slots} slots × ${s.b} bins overflow u32 indices`)
}

/** A call accumulating the histograms of the nodes with nodeSlot ≥ 0 into `hist`. */
export function histogramBuildCall(
  buffers: HistogramBuffers,
  shape: HistogramShape,
  constants: { WG?: number; FPI?: number } = {},
): KernelCall<HistogramShape> {
  checkHistogramShape('histogram_build', shape)
  const fpi = constants.FPI ?? DEFAULT_FPI
  // The kernel's flat index n · ceil(f / FPI) is a u32.
  if (shape.n * Math.ceil(shape.f / fpi) >= 2 ** 32)
    throw new RangeError(
      `histogram_build: n · ceil(f / FPI) = ${shape.n} · ${Math.ceil(shape.f / fpi)} overflows u32; raise FPI`,
    )
  const classes = shape.classes ?? 1
  const uniforms = { n: shape.n, f: shape.f, rowWords: shape.rowWords, b: shape.b, classes }
  const spec = classes > 1 ? histogramBuildClassesSpec : histogramBuildSpec
  return { spec, shape, buffers: { ...buffers }, uniforms, constants }
}

/**
 * A call accumulating the listed rows (rows[0 .. rowCount[0])) of the nodes with nodeSlot ≥ 0
 * into `hist`: same sums as histogramBuildCall when the list holds every built row, in any order.
 */
export function histogramBuildRowsCall(
  buffers: HistogramRowsBuffers,
  shape: HistogramShape,
  constants: { WG?: number; FPI?: number } = {},
): KernelCall<HistogramShape> {
  if ((shape.classes ?? 1) !== 1)
    throw new RangeError(`histogram_build_rows: one entry per row only, got classes ${shape.classes}`)
  return { ...histogramBuildCall(buffers, shape, constants), spec: histogramBuildRowsSpec, buffers: { ...buffers } }
}
