/** rowwise_adam: lazy Adam(W) on the embedding rows a batch touched (shaders/recsys/rowwise_adam.wgsl). */
import source from '../../../shaders/recsys/rowwise_adam.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import { checkHyper } from './adam.ts'
import { adamUniforms } from './layout.ts'
import { checkRowShape } from './adagrad.ts'
import type { RowUpdateShape, RowwiseAdamHyper } from './embedding-optim-types.ts'
import { defineKernel } from '../wgsl.ts'

/** Spec of rowwise_adam; override WG = workgroup size (one touched row, all D components, per invocation). */
export const rowwiseAdamSpec: KernelSpec<RowUpdateShape> = defineKernel({
  name: 'rowwise_adam',
  source,
  snippets: ['grid', 'adam_step'],
  entryPoint: 'rowwise_adam',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'weights', kind: 'storage' },
    { binding: 2, name: 'm', kind: 'storage' },
    { binding: 3, name: 'v', kind: 'storage' },
    { binding: 4, name: 'rowStep', kind: 'storage' },
    { binding: 5, name: 'dRows', kind: 'read-only-storage' },
    { binding: 6, name: 'uniq', kind: 'read-only-storage' },
  ],
  uniforms: [
    { name: 'lr', type: 'f32' },
    { name: 'beta1', type: 'f32' },
    { name: 'beta2', type: 'f32' },
    { name: 'eps', type: 'f32' },
    { name: 'weight_decay', type: 'f32' },
    { name: 'uniq', type: 'u32' },
    { name: 'dim', type: 'u32' },
    { name: 'totalRows', type: 'u32' },
  ],
  overrides: { WG: 64 },
  dispatchSize: (shape, c) => linearDispatch(shape.uniq, c.WG),
})

/**
 * Buffers of rowwise_adam: weights, m, v f32 [R × D] (m, v zeros initially), rowStep u32 [R]
 * (zeros initially; bumped per touched row), dRows f32 [U × D], uniq u32 [U] distinct row ids.
 */
export type RowwiseAdamBuffers = {
  weights: GPUBuffer
  m: GPUBuffer
  v: GPUBuffer
  rowStep: GPUBuffer
  dRows: GPUBuffer
  uniq: GPUBuffer
}

/** A call applying one lazy Adam step to the `uniq` = U touched rows of a [R × D] table. */
export function rowwiseAdamCall(
  buffers: RowwiseAdamBuffers,
  shape: RowUpdateShape,
  h: RowwiseAdamHyper,
  constants: { WG?: number } = {},
): KernelCall<RowUpdateShape> {
  checkRowShape('rowwise_adam', shape)
  checkHyper('rowwise_adam', h)
  const { t: _t, ...u } = adamUniforms({ ...h, t: 1 })
  return { spec: rowwiseAdamSpec, shape, buffers, uniforms: { ...u, ...shape }, constants }
}
