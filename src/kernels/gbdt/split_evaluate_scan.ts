/** split_evaluate_scan: best split per (node, feature) by a parallel scan (shaders/gbdt/split_evaluate_scan.wgsl). */
import code from '../../../shaders/gbdt/split_evaluate_scan.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import type { SplitParams, SplitShape } from './split_evaluate.ref.ts'
import { checkSplitParams } from './split_evaluate.ts'

/** SplitShape plus `maxBins`, the largest feature's bin count (≤ WG). */
export interface ScanShape extends SplitShape { maxBins: number }

/** Spec of split_evaluate_scan; override WG = invocations per (node, feature) = bins scanned (power of 2). */
export const splitEvaluateScanSpec: KernelSpec<ScanShape> = {
  name: 'split_evaluate_scan',
  code,
  entryPoint: 'split_evaluate_scan',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'hist', kind: 'read-only-storage' },
    { binding: 2, name: 'cutPtrs', kind: 'read-only-storage' },
    { binding: 3, name: 'featureMask', kind: 'read-only-storage' },
    { binding: 4, name: 'nodeSlots', kind: 'read-only-storage' },
    { binding: 5, name: 'nodeSums', kind: 'read-only-storage' },
    { binding: 6, name: 'scales', kind: 'read-only-storage' },
    { binding: 7, name: 'featureBest', kind: 'storage' },
  ],
  uniforms: [
    { name: 'nodes', type: 'u32' }, { name: 'features', type: 'u32' }, { name: 'maskPerNode', type: 'u32' },
    { name: 'lambda', type: 'f32' }, { name: 'alpha', type: 'f32' }, { name: 'minChildWeight', type: 'f32' },
  ],
  overrides: { WG: 256 },
  dispatchSize: shape => linearDispatch(shape.nodes * shape.features, 1),
}

/**
 * A call writing `featureBest` (u32 × M·F·16, record m·F + f in split_evaluate.ref.ts's layout)
 * from the same inputs as split_evaluate; split_reduce then picks each node's best.
 */
export function splitEvaluateScanCall(
  buffers: { hist: GPUBuffer; cutPtrs: GPUBuffer; featureMask: GPUBuffer; nodeSlots: GPUBuffer; nodeSums: GPUBuffer; scales: GPUBuffer; featureBest: GPUBuffer },
  shape: ScanShape, p: SplitParams, constants: { WG?: number } = {},
): KernelCall<ScanShape> {
  const wg = constants.WG ?? 256
  if (!(wg >= 1 && (wg & (wg - 1)) === 0)) throw new RangeError(`split_evaluate_scan: WG must be a power of 2, got ${wg}`)
  if (shape.maxBins > wg) throw new RangeError(`split_evaluate_scan: a feature has ${shape.maxBins} bins, more than WG = ${wg}`)
  checkSplitParams(p)
  const { nodes, features, maskPerNode } = shape
  return { spec: splitEvaluateScanSpec, shape, buffers, uniforms: { nodes, features, maskPerNode, ...p }, constants }
}
