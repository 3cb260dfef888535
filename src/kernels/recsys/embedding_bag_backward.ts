/** embedding_bag_backward: each bag item's gradient row from its bag's pooled gradient (shaders/recsys/embedding_bag_backward.wgsl). */
import source from '../../../shaders/recsys/embedding_bag_backward.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import { checkCount, checkFlat } from './embedding-optim-checks.ts'
import type { EmbeddingBagBackwardShape } from './embedding-optim-types.ts'
import { defineKernel } from '../wgsl.ts'

/** Spec of embedding_bag_backward; override WG = workgroup size (one (item, d) per invocation). */
export const embeddingBagBackwardSpec: KernelSpec<EmbeddingBagBackwardShape> = defineKernel({
  name: 'embedding_bag_backward',
  source,
  snippets: ['grid'],
  entryPoint: 'embedding_bag_backward',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'dout', kind: 'read-only-storage' },
    { binding: 2, name: 'bagOffsets', kind: 'read-only-storage' },
    { binding: 3, name: 'pooling', kind: 'read-only-storage' },
    { binding: 4, name: 'dItems', kind: 'storage' },
  ],
  uniforms: [
    { name: 'b', type: 'u32' },
    { name: 'k', type: 'u32' },
    { name: 'dim', type: 'u32' },
    { name: 'items', type: 'u32' },
    { name: 'stride', type: 'u32' },
    { name: 'offset', type: 'u32' },
    { name: 'base', type: 'u32' },
  ],
  overrides: { WG: 256 },
  dispatchSize: (shape, c) => linearDispatch(shape.items * shape.dim, c.WG),
})

/**
 * Buffers of embedding_bag_backward: dout f32 [B × stride], bagOffsets u32 [B·K + 1], pooling
 * u32 [K], dItems f32 [(base + M) × D] (items written from position base).
 */
export type EmbeddingBagBackwardBuffers = {
  dout: GPUBuffer
  bagOffsets: GPUBuffer
  pooling: GPUBuffer
  dItems: GPUBuffer
}

/** A call writing the gradient of each of `items` = M bag items into dItems from position `base`. */
export function embeddingBagBackwardCall(
  buffers: EmbeddingBagBackwardBuffers,
  shape: EmbeddingBagBackwardShape,
  constants: { WG?: number } = {},
): KernelCall<EmbeddingBagBackwardShape> {
  const name = 'embedding_bag_backward'
  checkCount(name, 'b', shape.b)
  checkCount(name, 'k', shape.k, 1)
  checkCount(name, 'dim', shape.dim, 1)
  checkCount(name, 'items', shape.items)
  checkCount(name, 'offset', shape.offset)
  checkCount(name, 'base', shape.base)
  if (shape.stride < shape.offset + shape.k * shape.dim)
    throw new RangeError(`${name}: stride ${shape.stride} < offset ${shape.offset} + k·dim ${shape.k * shape.dim}`)
  checkFlat(name, '(base + items)·dim', shape.base + shape.items, shape.dim)
  checkFlat(name, 'b·stride', shape.b, shape.stride)
  return { spec: embeddingBagBackwardSpec, shape, buffers, uniforms: { ...shape }, constants }
}
