/** adagrad: Adagrad on the embedding rows a batch touched (shaders/recsys/adagrad.wgsl). */
import source from '../../../shaders/recsys/adagrad.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import { checkCount, checkFlat } from './embedding-optim-checks.ts'
import type { AdagradHyper, RowUpdateShape } from './embedding-optim-types.ts'
import { defineKernel } from '../wgsl.ts'

/** Spec of adagrad; override WG = workgroup size (one (u, d) element per invocation). */
export const adagradSpec: KernelSpec<RowUpdateShape> = defineKernel({
  name: 'adagrad',
  source,
  snippets: ['grid'],
  entryPoint: 'adagrad',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'weights', kind: 'storage' },
    { binding: 2, name: 'accum', kind: 'storage' },
    { binding: 3, name: 'dRows', kind: 'read-only-storage' },
    { binding: 4, name: 'uniq', kind: 'read-only-storage' },
  ],
  uniforms: [
    { name: 'lr', type: 'f32' },
    { name: 'eps', type: 'f32' },
    { name: 'uniq', type: 'u32' },
    { name: 'dim', type: 'u32' },
    { name: 'totalRows', type: 'u32' },
  ],
  overrides: { WG: 256 },
  dispatchSize: (shape, c) => linearDispatch(shape.uniq * shape.dim, c.WG),
})

/**
 * Buffers of adagrad: weights and accum f32 [R × D] (accum from adagradAccumulator: zeros or
 * the initial accumulator value), dRows f32 [U × D], uniq u32 [U] distinct row ids.
 */
export type AdagradBuffers = { weights: GPUBuffer; accum: GPUBuffer; dRows: GPUBuffer; uniq: GPUBuffer }

/** A call updating the `uniq` = U touched rows of a [R × D] table; other rows stay bit for bit. */
export function adagradCall(
  buffers: AdagradBuffers,
  shape: RowUpdateShape,
  h: AdagradHyper,
  constants: { WG?: number } = {},
): KernelCall<RowUpdateShape> {
  checkRowShape('adagrad', shape)
  if (!(h.lr >= 0) || !Number.isFinite(h.lr)) throw new RangeError(`adagrad: lr out of range, got ${h.lr}`)
  if (!(h.eps > 0) || !Number.isFinite(h.eps)) throw new RangeError(`adagrad: eps must be > 0, got ${h.eps}`)
  return { spec: adagradSpec, shape, buffers, uniforms: { lr: h.lr, eps: h.eps, ...shape }, constants }
}

/** Throws RangeError naming the bad field of a row-update shape (counts, u32 index range). */
export function checkRowShape(kernel: string, shape: RowUpdateShape): void {
  checkCount(kernel, 'uniq', shape.uniq)
  checkCount(kernel, 'dim', shape.dim, 1)
  checkCount(kernel, 'totalRows', shape.totalRows)
  checkFlat(kernel, 'totalRows·dim', shape.totalRows, shape.dim)
  checkFlat(kernel, 'uniq·dim', shape.uniq, shape.dim)
}
