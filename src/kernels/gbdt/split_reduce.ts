/** split_reduce: best per-feature record per node (shaders/gbdt/split_reduce.wgsl). */
import code from '../../../shaders/gbdt/split_reduce.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'

/** Problem shape: M nodes × F features of records. */
export interface ReduceShape { nodes: number; features: number }

/** Spec of split_reduce; override WG = workgroup size (one node per invocation). */
export const splitReduceSpec: KernelSpec<ReduceShape> = {
  name: 'split_reduce',
  code,
  entryPoint: 'split_reduce',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'featureBest', kind: 'read-only-storage' },
    { binding: 2, name: 'out', kind: 'storage' },
  ],
  uniforms: [{ name: 'nodes', type: 'u32' }, { name: 'features', type: 'u32' }],
  overrides: { WG: 64 },
  dispatchSize: (shape, c) => linearDispatch(shape.nodes, c.WG),
}

/** A call writing `out` (u32 × M·16) from `featureBest` (u32 × M·F·16, split_evaluate_scan's records). */
export function splitReduceCall(
  buffers: { featureBest: GPUBuffer; out: GPUBuffer }, shape: ReduceShape, constants: { WG?: number } = {},
): KernelCall<ReduceShape> {
  return { spec: splitReduceSpec, shape, buffers, uniforms: { ...shape }, constants }
}
