/**
 * quantise: max |g|, |h| → power-of-two scales → i32 pairs, two passes of shaders/gbdt/quantise.wgsl
 * (entry points quantise_max, quantise) sharing one binding layout.
 */
import code from '../../../shaders/gbdt/quantise.wgsl?raw'
import type { PipelineCache } from '../../gpu/pipeline-cache.ts'
import type { KernelCall } from '../runner.ts'
import { prepareKernel } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'

/** Problem shape: `n` rows. */
export interface QuantiseShape { n: number }

/** Bytes of the scales buffer: f32 × 4 [maxAbsG, maxAbsH, gScale, hScale]. */
export const SCALES_BYTES = 16

/** Spec of the second pass (quantise); override WG = workgroup size, a power of two. */
export const quantiseSpec: KernelSpec<QuantiseShape> = {
  name: 'quantise',
  code,
  entryPoint: 'quantise',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'gpair', kind: 'read-only-storage' },
    { binding: 2, name: 'qgpair', kind: 'storage' },
    { binding: 3, name: 'scales', kind: 'storage' },
  ],
  uniforms: [{ name: 'n', type: 'u32' }],
  overrides: { WG: 256 },
  // At least one workgroup: it also publishes the scales, which must be right for N = 0 too.
  dispatchSize: (shape, c) => linearDispatch(Math.max(shape.n, 1), c.WG),
}

/** Spec of the first pass (quantise_max): same module and bindings, another entry point. */
export const quantiseMaxSpec: KernelSpec<QuantiseShape> = {
  ...quantiseSpec, name: 'quantise_max', entryPoint: 'quantise_max',
  dispatchSize: (shape, c) => linearDispatch(shape.n, c.WG),
}

/** Buffers: gpair vec2<f32> × N in; qgpair vec2<i32> × N out; scales 16 bytes (zeroed by encodeQuantise). */
export interface QuantiseBuffers { gpair: GPUBuffer; qgpair: GPUBuffer; scales: GPUBuffer }

/** The two calls [max pass, quantise pass] for `n` rows; `scales` must be zero before the first. */
export function quantiseCalls(buffers: QuantiseBuffers, n: number, constants: { WG?: number } = {}): [KernelCall<QuantiseShape>, KernelCall<QuantiseShape>] {
  const wg = constants.WG ?? quantiseSpec.overrides.WG
  if (!Number.isInteger(Math.log2(wg))) throw new RangeError(`quantise: WG must be a power of two, got ${wg}`)
  const call = { shape: { n }, buffers: { ...buffers }, uniforms: { n }, constants }
  return [{ spec: quantiseMaxSpec, ...call }, { spec: quantiseSpec, ...call }]
}

/**
 * Encodes clear(scales) + both passes into `encoder` (separate compute passes, so the maxima are
 * complete before any row is scaled). Returns a function freeing the uniform buffers.
 */
export function encodeQuantise(cache: PipelineCache, encoder: GPUCommandEncoder, buffers: QuantiseBuffers, n: number, constants: { WG?: number } = {}): () => void {
  const prepared = quantiseCalls(buffers, n, constants).map(c => prepareKernel(cache, c))
  encoder.clearBuffer(buffers.scales, 0, SCALES_BYTES)
  for (const k of prepared) {
    const pass = encoder.beginComputePass({ label: k.name })
    k.encode(pass)
    pass.end()
  }
  return () => prepared.forEach(k => k.destroy())
}
