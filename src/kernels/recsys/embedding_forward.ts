/** embedding_forward: out[p, :] = weights[rows[p], :] (shaders/recsys/embedding_forward.wgsl). */
import source from '../../../shaders/recsys/embedding_forward.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import { checkCount, checkFlat } from './embedding-optim-checks.ts'
import type { EmbeddingForwardShape } from './embedding-optim-types.ts'
import { defineKernel } from '../wgsl.ts'

/** Spec of embedding_forward; override WG = workgroup size (one lookup, all D floats, per invocation). */
export const embeddingForwardSpec: KernelSpec<EmbeddingForwardShape> = defineKernel({
  name: 'embedding_forward',
  source,
  snippets: ['grid'],
  entryPoint: 'embedding_forward',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'weights', kind: 'read-only-storage' },
    { binding: 2, name: 'rows', kind: 'read-only-storage' },
    { binding: 3, name: 'out', kind: 'storage' },
  ],
  uniforms: [
    { name: 'positions', type: 'u32' },
    { name: 'dim', type: 'u32' },
    { name: 'totalRows', type: 'u32' },
  ],
  overrides: { WG: 64 },
  dispatchSize: (shape, c) => linearDispatch(shape.positions, c.WG),
})

/** Buffers of embedding_forward: weights f32 [R × D], rows u32 [B·S], out f32 [B·S × D]. */
export type EmbeddingForwardBuffers = { weights: GPUBuffer; rows: GPUBuffer; out: GPUBuffer }

/** A call gathering `positions` = B·S embedding rows of `dim` = D floats into `out` (overwritten). */
export function embeddingForwardCall(
  buffers: EmbeddingForwardBuffers,
  shape: EmbeddingForwardShape,
  constants: { WG?: number } = {},
): KernelCall<EmbeddingForwardShape> {
  checkCount('embedding_forward', 'positions', shape.positions)
  checkCount('embedding_forward', 'dim', shape.dim, 1)
  checkCount('embedding_forward', 'totalRows', shape.totalRows)
  checkFlat('embedding_forward', 'positions·dim', shape.positions, shape.dim)
  checkFlat('embedding_forward', 'totalRows·dim', shape.totalRows, shape.dim)
  return { spec: embeddingForwardSpec, shape, buffers, uniforms: { ...shape }, constants }
}
