/** predict_binned: margins += Σ_t leaf_t on binned rows (shaders/gbdt/predict_binned.wgsl). */
import code from '../../../shaders/gbdt/predict_binned.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'

/** Problem shape: N rows (rowWords = ceil(N / 4) of the binned matrix), T trees, longest path. */
export interface PredictBinnedShape { rows: number; rowWords: number; trees: number; maxDepth: number }

/** Spec of predict_binned; override WG = workgroup size (one row per invocation, all trees). */
export const predictBinnedSpec: KernelSpec<PredictBinnedShape> = {
  name: 'predict_binned',
  code,
  entryPoint: 'predict_binned',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'bins', kind: 'read-only-storage' },
    { binding: 2, name: 'missOff', kind: 'read-only-storage' },
    { binding: 3, name: 'nodes', kind: 'read-only-storage' },
    { binding: 4, name: 'treeOffsets', kind: 'read-only-storage' },
    { binding: 5, name: 'margins', kind: 'storage' },
  ],
  uniforms: [
    { name: 'rows', type: 'u32' }, { name: 'rowWords', type: 'u32' }, { name: 'trees', type: 'u32' }, { name: 'maxDepth', type: 'u32' },
  ],
  overrides: { WG: 128 },
  dispatchSize: (shape, c) => linearDispatch(shape.rows, c.WG),
}

/**
 * A call adding the T trees' leaf values to `margins` (f32 × N, in place) for rows in `bins`
 * (u32 × F·rowWords) with `missOff` (u32 × F); `nodes` / `treeOffsets` from packTrees.
 */
export function predictBinnedCall(
  buffers: { bins: GPUBuffer; missOff: GPUBuffer; nodes: GPUBuffer; treeOffsets: GPUBuffer; margins: GPUBuffer },
  shape: PredictBinnedShape, constants: { WG?: number } = {},
): KernelCall<PredictBinnedShape> {
  if (shape.rowWords < Math.ceil(shape.rows / 4)) throw new RangeError(`predict_binned: rowWords ${shape.rowWords} < ceil(rows / 4) for ${shape.rows} rows`)
  return { spec: predictBinnedSpec, shape, buffers, uniforms: { ...shape }, constants }
}
