/** embedding_backward: dRows[u, :] = Σ dout over segment u (shaders/recsys/embedding_backward.wgsl). */
import source from '../../../shaders/recsys/embedding_backward.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import { checkCount, checkFlat } from './embedding-optim-checks.ts'
import type { EmbeddingBackwardShape } from './embedding-optim-types.ts'
import { defineKernel } from '../wgsl.ts'

/** Spec of embedding_backward; override WG = workgroup size (one (u, d) sum per invocation). */
export const embeddingBackwardSpec: KernelSpec<EmbeddingBackwardShape> = defineKernel({
  name: 'embedding_backward',
  source,
  snippets: ['grid'],
  entryPoint: 'embedding_backward',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'dout', kind: 'read-only-storage' },
    { binding: 2, name: 'order', kind: 'read-only-storage' },
    { binding: 3, name: 'segStart', kind: 'read-only-storage' },
    { binding: 4, name: 'dRows', kind: 'storage' },
  ],
  uniforms: [
    { name: 'uniq', type: 'u32' },
    { name: 'dim', type: 'u32' },
  ],
  overrides: { WG: 256 },
  dispatchSize: (shape, c) => linearDispatch(shape.uniq * shape.dim, c.WG),
})

/**
 * Buffers of embedding_backward: dout f32 [B·S × D], order u32 [B·S], segStart u32 [U + 1]
 * (from models/recsys/segments.ts embeddingSegments), dRows f32 [U × D] (overwritten).
 */
export type EmbeddingBackwardBuffers = { dout: GPUBuffer; order: GPUBuffer; segStart: GPUBuffer; dRows: GPUBuffer }

/** A call summing the gradient of each of `uniq` = U rows over its lookups, in a fixed order. */
export function embeddingBackwardCall(
  buffers: EmbeddingBackwardBuffers,
  shape: EmbeddingBackwardShape,
  constants: { WG?: number } = {},
): KernelCall<EmbeddingBackwardShape> {
  checkCount('embedding_backward', 'uniq', shape.uniq)
  checkCount('embedding_backward', 'dim', shape.dim, 1)
  checkCount('embedding_backward', 'positions', shape.positions)
  if (shape.uniq > shape.positions)
    throw new RangeError(`embedding_backward: uniq ${shape.uniq} > positions ${shape.positions}`)
  checkFlat('embedding_backward', 'positions·dim', shape.positions, shape.dim)
  return { spec: embeddingBackwardSpec, shape, buffers, uniforms: { uniq: shape.uniq, dim: shape.dim }, constants }
}
