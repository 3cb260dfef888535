/** matmul_backward_dweight: dweight[OC×C] = doutᵀ · inp (shaders/recsys/matmul_backward_dweight.wgsl). */
import source from '../../../shaders/recsys/matmul_backward_dweight.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec, UniformField } from '../spec.ts'
import type { MatmulShape } from './matmul_forward.ts'
import { MATMUL_UNIFORMS, matmulGrid } from './matmul_forward.ts'
import { defineKernel } from '../wgsl.ts'

/** Uniform fields of the dweight kernels: b, c, oc, accumulate (u32). */
export const DWEIGHT_UNIFORMS: readonly UniformField[] = [...MATMUL_UNIFORMS, { name: 'accumulate', type: 'u32' }]

/** Spec of matmul_backward_dweight (naive, version 1); overrides WX × WY = workgroup tile of dweight elements. */
export const matmulBackwardDweightSpec: KernelSpec<MatmulShape> = defineKernel({
  name: 'matmul_backward_dweight',
  source,
  entryPoint: 'matmul_backward_dweight',
  bindings: matmulBackwardDweightBindings(),
  uniforms: DWEIGHT_UNIFORMS,
  overrides: { WX: 16, WY: 16 },
  dispatchSize: (s, k) => matmulGrid(s.c, s.oc, k.WX, k.WY),
})

/** Bindings of both dweight kernels: params, dout, inp (read), dweight (read_write: accumulate reads it). */
export function matmulBackwardDweightBindings(): KernelSpec<MatmulShape>['bindings'] {
  return [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'dout', kind: 'read-only-storage' },
    { binding: 2, name: 'inp', kind: 'read-only-storage' },
    { binding: 3, name: 'dweight', kind: 'storage' },
  ]
}

/** Buffers of a dweight call: dout f32 [B×OC], inp f32 [B×C], dweight f32 [OC×C]. */
export type MatmulBackwardDweightBuffers = { dout: GPUBuffer; inp: GPUBuffer; dweight: GPUBuffer }

/**
 * A call writing `dweight` = `dout`ᵀ · `inp` with the naive kernel, or adding it to `dweight`
 * when `accumulate`. B = 0 writes zeros (or leaves dweight unchanged when accumulating).
 */
export function matmulBackwardDweightCall(
  buffers: MatmulBackwardDweightBuffers,
  shape: MatmulShape,
  accumulate = false,
  constants: { WX?: number; WY?: number } = {},
): KernelCall<MatmulShape> {
  return {
    spec: matmulBackwardDweightSpec,
    shape,
    buffers,
    uniforms: { ...shape, accumulate: accumulate ? 1 : 0 },
    constants,
  }
}
