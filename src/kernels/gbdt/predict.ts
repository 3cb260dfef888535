/** predict: ensemble margins on raw f32 features (shaders/gbdt/predict.wgsl). */
import source from '../../../shaders/gbdt/predict.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import { defineKernel } from '../wgsl.ts'

/** Problem shape: N rows × F features, T trees, longest path `maxDepth` (from packTrees). */
export interface PredictShape {
  rows: number
  features: number
  trees: number
  maxDepth: number
}

/** Spec of predict; override WG = workgroup size (one row per invocation, all trees). */
export const predictSpec: KernelSpec<PredictShape> = defineKernel({
  name: 'predict',
  source,
  snippets: ['grid'],
  entryPoint: 'predict',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'features', kind: 'read-only-storage' },
    { binding: 2, name: 'nodes', kind: 'read-only-storage' },
    { binding: 3, name: 'treeOffsets', kind: 'read-only-storage' },
    { binding: 4, name: 'out', kind: 'storage' },
    { binding: 5, name: 'catBits', kind: 'read-only-storage' },
  ],
  uniforms: [
    { name: 'rows', type: 'u32' },
    { name: 'features', type: 'u32' },
    { name: 'trees', type: 'u32' },
    { name: 'maxDepth', type: 'u32' },
    { name: 'baseMargin', type: 'f32' },
  ],
  overrides: { WG: 128 },
  dispatchSize: (shape, c) => linearDispatch(shape.rows, c.WG),
})

/**
 * A call writing `out` (f32 × N) = baseMargin + Σ_t leaf_t for `features` (f32 × N·F, row-major,
 * NaN = missing) over `nodes` / `catBits` / `treeOffsets` from packTrees (layout.ts).
 */
export function predictCall(
  buffers: { features: GPUBuffer; nodes: GPUBuffer; catBits: GPUBuffer; treeOffsets: GPUBuffer; out: GPUBuffer },
  shape: PredictShape,
  baseMargin: number,
  constants: { WG?: number } = {},
): KernelCall<PredictShape> {
  if (!Number.isFinite(baseMargin)) throw new RangeError(`predict: baseMargin must be finite, got ${baseMargin}`)
  return { spec: predictSpec, shape, buffers, uniforms: { ...shape, baseMargin }, constants }
}
