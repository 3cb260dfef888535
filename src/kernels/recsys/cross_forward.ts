/** cross_forward: out = x0 ⊙ (z + bias[c]) + xl over [B×C0], a DCN-v2 cross layer after its matmul (shaders/recsys/cross_forward.wgsl). */
import source from '../../../shaders/recsys/cross_forward.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import { defineKernel } from '../wgsl.ts'

/** Shape of a cross layer's elementwise step: b = B batch rows, c = C0 cross width. */
export interface CrossLayerShape {
  b: number
  c: number
}

/** Spec of cross_forward; override WG = workgroup size (one element per invocation). */
export const crossForwardSpec: KernelSpec<CrossLayerShape> = defineKernel({
  name: 'cross_forward',
  source,
  snippets: ['grid'],
  entryPoint: 'cross_forward',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'x0', kind: 'read-only-storage' },
    { binding: 2, name: 'xl', kind: 'read-only-storage' },
    { binding: 3, name: 'z', kind: 'read-only-storage' },
    { binding: 4, name: 'bias', kind: 'read-only-storage' },
    { binding: 5, name: 'out', kind: 'storage' },
  ],
  uniforms: [
    { name: 'b', type: 'u32' },
    { name: 'c', type: 'u32' },
  ],
  overrides: { WG: 256 },
  dispatchSize: (s, k) => linearDispatch(s.b * s.c, k.WG),
})

/** Buffers: x0, xl, z f32 [B×C] (x0 may be xl), bias f32 [C], out f32 [B×C] (overwritten). */
export type CrossForwardBuffers = { x0: GPUBuffer; xl: GPUBuffer; z: GPUBuffer; bias: GPUBuffer; out: GPUBuffer }

/** A call writing `out` = `x0` ⊙ (`z` + `bias`) + `xl`. */
export function crossForwardCall(
  buffers: CrossForwardBuffers,
  shape: CrossLayerShape,
  constants: { WG?: number } = {},
): KernelCall<CrossLayerShape> {
  return { spec: crossForwardSpec, shape, buffers, uniforms: { ...shape }, constants }
}
