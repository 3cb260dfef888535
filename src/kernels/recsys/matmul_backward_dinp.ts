/** matmul_backward_dinp: dinp[B×C] = dout[B×OC] · weight[OC×C] (shaders/recsys/matmul_backward_dinp.wgsl). */
import source from '../../../shaders/recsys/matmul_backward_dinp.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec, UniformField } from '../spec.ts'
import type { MatmulShape } from './matmul_forward.ts'
import { MATMUL_UNIFORMS, matmulGrid } from './matmul_forward.ts'
import { defineKernel } from '../wgsl.ts'

/** Uniforms of matmul_backward_dinp: b, c, oc, then accumulate (0 / 1). */
export const DINP_UNIFORMS: readonly UniformField[] = [...MATMUL_UNIFORMS, { name: 'accumulate', type: 'u32' }]

/** Spec of matmul_backward_dinp (naive, version 1); overrides WX × WY = workgroup tile of dinp elements. */
export const matmulBackwardDinpSpec: KernelSpec<MatmulShape> = defineKernel({
  name: 'matmul_backward_dinp',
  source,
  entryPoint: 'matmul_backward_dinp',
  bindings: matmulBackwardDinpBindings(),
  uniforms: DINP_UNIFORMS,
  overrides: { WX: 16, WY: 16 },
  dispatchSize: (s, k) => matmulGrid(s.c, s.b, k.WX, k.WY),
})

/** Bindings of both dinp kernels: params, dout, weight (read), dinp (write). */
export function matmulBackwardDinpBindings(): KernelSpec<MatmulShape>['bindings'] {
  return [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'dout', kind: 'read-only-storage' },
    { binding: 2, name: 'weight', kind: 'read-only-storage' },
    { binding: 3, name: 'dinp', kind: 'storage' },
  ]
}

/** Buffers of a dinp call: dout f32 [B×OC], weight f32 [OC×C], dinp f32 [B×C] (overwritten, or added to). */
export type MatmulBackwardDinpBuffers = { dout: GPUBuffer; weight: GPUBuffer; dinp: GPUBuffer }

/** A call writing `dinp` = `dout` · `weight` (or, with `accumulate`, adding it) with the naive kernel. */
export function matmulBackwardDinpCall(
  buffers: MatmulBackwardDinpBuffers,
  shape: MatmulShape,
  accumulate = false,
  constants: { WX?: number; WY?: number } = {},
): KernelCall<MatmulShape> {
  return {
    spec: matmulBackwardDinpSpec,
    shape,
    buffers,
    uniforms: { ...shape, accumulate: accumulate ? 1 : 0 },
    constants,
  }
}
