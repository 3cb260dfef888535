/**
 * quantise: max |g|, |h| → power-of-two scales → i32 pairs, two passes of shaders/gbdt/quantise.wgsl
 * (entry points quantise_max, quantise) sharing one binding layout.
 */
import source from '../../../shaders/gbdt/quantise.wgsl?raw'
import type { PipelineCache } from '../../gpu/pipeline-cache.ts'
import type { KernelCall } from '../runner.ts'
import { prepareKernel } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import { defineKernel } from '../wgsl.ts'

/** Problem shape: `n` rows. */
export interface QuantiseShape {
  n: number
}

/** Bytes of the scales buffer: f32 × 4 [maxAbsG, maxAbsH, gScale, hScale]. */
export const SCALES_BYTES = 16

/** Rows per invocation of the max pass (override RPI). */
export const QUANTISE_RPI = 64

/** Spec of the second pass (quantise); overrides WG = workgroup size, RPI = rows per max-pass invocation. */
export const quantiseSpec: KernelSpec<QuantiseShape> = defineKernel({
  name: 'quantise',
  source,
  snippets: ['grid'],
  entryPoint: 'quantise',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'gpair', kind: 'read-only-storage' },
    { binding: 2, name: 'qgpair', kind: 'storage' },
    { binding: 3, name: 'scales', kind: 'storage' },
  ],
  uniforms: [{ name: 'n', type: 'u32' }],
  overrides: { WG: 256, RPI: QUANTISE_RPI },
  // At least one workgroup: it also publishes the scales, which must be right for N = 0 too.
  dispatchSize: (shape, c) => linearDispatch(Math.max(shape.n, 1), c.WG),
})

/**
 * Spec of the first pass (quantise_max): same module and bindings, another entry point; one
 * invocation per RPI rows, each ending in one atomicMax per column (no workgroup barriers).
 */
export const quantiseMaxSpec: KernelSpec<QuantiseShape> = {
  ...quantiseSpec,
  name: 'quantise_max',
  entryPoint: 'quantise_max',
  dispatchSize: (shape, c) => linearDispatch(Math.ceil(shape.n / c.RPI), c.WG),
}

/** Buffers: gpair vec2<f32> × N in; qgpair vec2<i32> × N out; scales 16 bytes (zeroed by encodeQuantise). */
export interface QuantiseBuffers {
  gpair: GPUBuffer
  qgpair: GPUBuffer
  scales: GPUBuffer
}

/** The two calls [max pass, quantise pass] for `n` rows; `scales` must be zero before the first. */
export function quantiseCalls(
  buffers: QuantiseBuffers,
  n: number,
  constants: { WG?: number; RPI?: number } = {},
): [KernelCall<QuantiseShape>, KernelCall<QuantiseShape>] {
  const rpi = constants.RPI ?? QUANTISE_RPI
  if (!Number.isInteger(rpi) || rpi < 1) throw new RangeError(`quantise: RPI must be an integer ≥ 1, got ${rpi}`)
  const call = { shape: { n }, buffers: { ...buffers }, uniforms: { n }, constants }
  return [
    { spec: quantiseMaxSpec, ...call },
    { spec: quantiseSpec, ...call },
  ]
}

/**
 * Encodes clear(scales) + both passes into `encoder` (separate compute passes, so the maxima are
 * complete before any row is scaled). Returns a function freeing the uniform buffers.
 */
export function encodeQuantise(
  cache: PipelineCache,
  encoder: GPUCommandEncoder,
  buffers: QuantiseBuffers,
  n: number,
  constants: { WG?: number; RPI?: number } = {},
): () => void {
  const prepared = quantiseCalls(buffers, n, constants).map(c => prepareKernel(cache, c))
  encoder.clearBuffer(buffers.scales, 0, SCALES_BYTES)
  for (const k of prepared) {
    const pass = encoder.beginComputePass({ label: k.name })
    k.encode(pass)
    pass.end()
  }
  return () => prepared.forEach(k => k.destroy())
}
