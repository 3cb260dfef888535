/** tree_shap: TreeSHAP values on raw f32 features (shaders/gbdt/tree_shap.wgsl). */
import source from '../../../shaders/gbdt/tree_shap.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import { defineKernel } from '../wgsl.ts'

/** Longest root-to-leaf path the kernel's fixed path arrays hold (params.ts caps max_depth at 16). */
export const TREE_SHAP_MAX_DEPTH = 16

/** Problem shape: N rows × F features, T trees, K = `nodes` packed nodes, longest path `maxDepth` (from packTrees). */
export interface TreeShapShape {
  rows: number
  features: number
  trees: number
  nodes: number
  maxDepth: number
}

/** Spec of tree_shap; override WG = workgroup size (one row per invocation, all trees). */
export const treeShapSpec: KernelSpec<TreeShapShape> = defineKernel({
  name: 'tree_shap',
  source,
  snippets: ['grid'],
  entryPoint: 'tree_shap',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'features', kind: 'read-only-storage' },
    { binding: 2, name: 'nodes', kind: 'read-only-storage' },
    { binding: 3, name: 'treeOffsets', kind: 'read-only-storage' },
    { binding: 4, name: 'covers', kind: 'read-only-storage' },
    { binding: 5, name: 'catBits', kind: 'read-only-storage' },
    { binding: 6, name: 'out', kind: 'storage' },
    { binding: 7, name: 'treePhi', kind: 'storage' },
  ],
  uniforms: [
    { name: 'rows', type: 'u32' },
    { name: 'features', type: 'u32' },
    { name: 'trees', type: 'u32' },
    { name: 'maxDepth', type: 'u32' },
    { name: 'nodes', type: 'u32' },
    { name: 'baseMargin', type: 'f32' },
  ],
  overrides: { WG: 64 },
  dispatchSize: (shape, c) => linearDispatch(shape.rows, c.WG),
})

/**
 * A call writing `out` (f32 × (F + 1)·N, feature-major: φ_f of row i at f·N + i, the bias at
 * F·N + i) for `features` (f32 × N·F, row-major, NaN = missing) over `nodes` / `catBits` /
 * `treeOffsets` from packTrees and `covers` from packCovers (layout.ts). `treePhi` is scratch of
 * f32 × F·N (at least 4 bytes), any contents.
 *
 * @throws RangeError when a tree is deeper than TREE_SHAP_MAX_DEPTH (callers use the CPU reference)
 */
export function treeShapCall(
  buffers: {
    features: GPUBuffer
    nodes: GPUBuffer
    catBits: GPUBuffer
    treeOffsets: GPUBuffer
    covers: GPUBuffer
    out: GPUBuffer
    treePhi: GPUBuffer
  },
  shape: TreeShapShape,
  baseMargin: number,
  constants: { WG?: number } = {},
): KernelCall<TreeShapShape> {
  if (shape.maxDepth > TREE_SHAP_MAX_DEPTH)
    throw new RangeError(
      `tree_shap: trees of depth ${shape.maxDepth} exceed the kernel's limit of ${TREE_SHAP_MAX_DEPTH}`,
    )
  if (!Number.isFinite(baseMargin)) throw new RangeError(`tree_shap: baseMargin must be finite, got ${baseMargin}`)
  return { spec: treeShapSpec, shape, buffers, uniforms: { ...shape, baseMargin }, constants }
}
