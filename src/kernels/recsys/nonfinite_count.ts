/**
 * nonfinite_count: NaN/±Infinity count and first index of an f32 buffer
 * (shaders/recsys/nonfinite_count.wgsl), so a diverging model is caught on the GPU without
 * reading the (large) embedding table back.
 */
import source from '../../../shaders/recsys/nonfinite_count.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { defineKernel } from '../wgsl.ts'

/** Most workgroups one scan dispatches; beyond N = MAX_GROUPS·WG each invocation loops. */
export const NONFINITE_MAX_GROUPS = 256

/** n = N elements scanned; slot = which [count, first] pair of `out` receives the result. */
export interface NonFiniteShape {
  n: number
  slot: number
}

/** Spec of nonfinite_count; override WG (invocations stride over the elements, see the shader). */
export const nonfiniteCountSpec: KernelSpec<NonFiniteShape> = defineKernel({
  name: 'nonfinite_count',
  source,
  snippets: ['grid'],
  entryPoint: 'nonfinite_count',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'inp', kind: 'read-only-storage' },
    { binding: 2, name: 'out', kind: 'storage' },
  ],
  uniforms: [
    { name: 'n', type: 'u32' },
    { name: 'slot', type: 'u32' },
  ],
  overrides: { WG: 256 },
  dispatchSize: (s, k) => [Math.min(Math.ceil(s.n / k.WG), NONFINITE_MAX_GROUPS), s.n > 0 ? 1 : 0, s.n > 0 ? 1 : 0],
})

/**
 * Adds the non-finite count of inp f32 [N] (n ≤ its length) into out u32 [2·(slot + 1)] at
 * 2·slot, and max(n − first index) at 2·slot + 1 (decodeNonFinite in layout.ts reads both).
 * `out` must be zeroed before a scan (encoder.clearBuffer). N = 0 dispatches nothing.
 */
export function nonfiniteCountCall(
  buffers: { inp: GPUBuffer; out: GPUBuffer },
  shape: NonFiniteShape,
  constants: { WG?: number } = {},
): KernelCall<NonFiniteShape> {
  if (shape.n >= 2 ** 32 - 1) throw new RangeError(`nonfinite_count: ${shape.n} elements exceed the u32 index range`)
  return { spec: nonfiniteCountSpec, shape, buffers, uniforms: { ...shape }, constants }
}
