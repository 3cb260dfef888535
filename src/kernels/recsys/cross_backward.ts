/** cross_backward: dz = dout ⊙ x0, dbias = Σ_b dz, dx0 (+)= dout ⊙ (z + bias) (+ dout) (shaders/recsys/cross_backward.wgsl). */
import source from '../../../shaders/recsys/cross_backward.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import type { CrossLayerShape } from './cross_forward.ts'
import { defineKernel } from '../wgsl.ts'

/** Spec of cross_backward; override WG = workgroup size (one channel per invocation). */
export const crossBackwardSpec: KernelSpec<CrossLayerShape> = defineKernel({
  name: 'cross_backward',
  source,
  snippets: ['grid'],
  entryPoint: 'cross_backward',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'dout', kind: 'read-only-storage' },
    { binding: 2, name: 'x0', kind: 'read-only-storage' },
    { binding: 3, name: 'z', kind: 'read-only-storage' },
    { binding: 4, name: 'bias', kind: 'read-only-storage' },
    { binding: 5, name: 'dz', kind: 'storage' },
    { binding: 6, name: 'dx0', kind: 'storage' },
    { binding: 7, name: 'dbias', kind: 'storage' },
  ],
  uniforms: [
    { name: 'b', type: 'u32' },
    { name: 'c', type: 'u32' },
    { name: 'accumulate', type: 'u32' },
    { name: 'residual', type: 'u32' },
  ],
  overrides: { WG: 64 },
  dispatchSize: (s, k) => linearDispatch(s.c, k.WG),
})

/**
 * Buffers: dout, x0, z f32 [B×C], bias f32 [C] (the forward's), dz f32 [B×C] and dbias f32 [C]
 * (overwritten), dx0 f32 [B×C] (overwritten, or added to with `accumulate`).
 */
export type CrossBackwardBuffers = {
  dout: GPUBuffer
  x0: GPUBuffer
  z: GPUBuffer
  bias: GPUBuffer
  dz: GPUBuffer
  dx0: GPUBuffer
  dbias: GPUBuffer
}

/**
 * A call of one cross layer's elementwise backward: `accumulate` adds x0's share to dx0 (every
 * layer but the first walked back), `residual` adds dout too (layer 0, whose xl is x0).
 */
export function crossBackwardCall(
  buffers: CrossBackwardBuffers,
  shape: CrossLayerShape,
  flags: { accumulate: boolean; residual: boolean },
  constants: { WG?: number } = {},
): KernelCall<CrossLayerShape> {
  const uniforms = { ...shape, accumulate: flags.accumulate ? 1 : 0, residual: flags.residual ? 1 : 0 }
  return { spec: crossBackwardSpec, shape, buffers, uniforms, constants }
}
