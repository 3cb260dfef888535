/** concat_backward: the embedding slice of the MLP input gradient (shaders/recsys/concat_backward.wgsl). */
import source from '../../../shaders/recsys/concat_backward.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import { CONCAT_UNIFORMS, type ConcatShape } from './concat_forward.ts'
import { defineKernel } from '../wgsl.ts'

/** Spec of concat_backward; override WG (one element of demb per invocation). */
export const concatBackwardSpec: KernelSpec<ConcatShape> = defineKernel({
  name: 'concat_backward',
  source,
  snippets: ['grid'],
  entryPoint: 'concat_backward',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'dinp', kind: 'read-only-storage' },
    { binding: 2, name: 'demb', kind: 'storage' },
  ],
  uniforms: CONCAT_UNIFORMS,
  overrides: { WG: 256 },
  dispatchSize: (s, k) => linearDispatch(s.b * s.e, k.WG),
})

/** Writes demb f32 [B × E] from dinp f32 [B × (E + Cd)]. */
export function concatBackwardCall(
  buffers: { dinp: GPUBuffer; demb: GPUBuffer },
  shape: ConcatShape,
): KernelCall<ConcatShape> {
  return { spec: concatBackwardSpec, shape, buffers, uniforms: { ...shape } }
}
