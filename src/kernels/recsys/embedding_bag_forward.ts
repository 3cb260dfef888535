/** embedding_bag_forward: out[b, k, :] = pooled weights of bag (b, k)'s items (shaders/recsys/embedding_bag_forward.wgsl). */
import source from '../../../shaders/recsys/embedding_bag_forward.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import { checkCount, checkFlat } from './embedding-optim-checks.ts'
import type { EmbeddingBagForwardShape } from './embedding-optim-types.ts'
import { defineKernel } from '../wgsl.ts'

/** Spec of embedding_bag_forward; override WG = workgroup size (one (bag, d) pool per invocation). */
export const embeddingBagForwardSpec: KernelSpec<EmbeddingBagForwardShape> = defineKernel({
  name: 'embedding_bag_forward',
  source,
  snippets: ['grid'],
  entryPoint: 'embedding_bag_forward',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'weights', kind: 'read-only-storage' },
    { binding: 2, name: 'bagRows', kind: 'read-only-storage' },
    { binding: 3, name: 'bagOffsets', kind: 'read-only-storage' },
    { binding: 4, name: 'pooling', kind: 'read-only-storage' },
    { binding: 5, name: 'out', kind: 'storage' },
  ],
  uniforms: [
    { name: 'b', type: 'u32' },
    { name: 'k', type: 'u32' },
    { name: 'dim', type: 'u32' },
    { name: 'totalRows', type: 'u32' },
  ],
  overrides: { WG: 64 },
  dispatchSize: (shape, c) => linearDispatch(shape.b * shape.k * shape.dim, c.WG),
})

/**
 * Buffers of embedding_bag_forward: weights f32 [R × D], bagRows u32 [M] (a ≥4-byte buffer when
 * M = 0), bagOffsets u32 [B·K + 1], pooling u32 [K] (1 = mean), out f32 [B × K × D].
 */
export type EmbeddingBagForwardBuffers = {
  weights: GPUBuffer
  bagRows: GPUBuffer
  bagOffsets: GPUBuffer
  pooling: GPUBuffer
  out: GPUBuffer
}

/** A call pooling the items of `b`·`k` bags into `out` (overwritten). */
export function embeddingBagForwardCall(
  buffers: EmbeddingBagForwardBuffers,
  shape: EmbeddingBagForwardShape,
  constants: { WG?: number } = {},
): KernelCall<EmbeddingBagForwardShape> {
  checkCount('embedding_bag_forward', 'b', shape.b)
  checkCount('embedding_bag_forward', 'k', shape.k, 1)
  checkCount('embedding_bag_forward', 'dim', shape.dim, 1)
  checkCount('embedding_bag_forward', 'totalRows', shape.totalRows)
  checkFlat('embedding_bag_forward', 'b·k·dim', shape.b * shape.k, shape.dim)
  checkFlat('embedding_bag_forward', 'totalRows·dim', shape.totalRows, shape.dim)
  return { spec: embeddingBagForwardSpec, shape, buffers, uniforms: { ...shape }, constants }
}
