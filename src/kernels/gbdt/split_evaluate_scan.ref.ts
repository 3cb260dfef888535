/**
 * Reference for split_evaluate_scan.wgsl: the best split of every (node, feature) pair, as
 * split_evaluate finds it within one feature (forward scan, then backward when the feature has
 * missing rows; strict > keeps the earlier candidate). split_reduce then picks per node.
 * M = nodes, F = features.
 */
import type { SplitParams, SplitShape } from './split_evaluate.ref.ts'
import { emptyBest, nodeContext, scanFeature, writeResult } from './split_evaluate.ref.ts'

/**
 * Same inputs as splitEvaluate (split_evaluate.ref.ts); writes `featureBest`: u32 [M × F × 16],
 * record m·F + f in split_evaluate's 16-word layout (gain −∞ / feature 0xFFFFFFFF when the
 * feature is masked off or has no valid split).
 */
export function splitEvaluateScan(
  hist: Uint32Array, cutPtrs: Uint32Array, featureMask: Uint32Array, nodeSlots: Uint32Array,
  nodeSums: Uint32Array, scales: Float32Array, featureBest: Uint32Array, shape: SplitShape, p: SplitParams,
): void {
  const F = shape.features, B = cutPtrs[F] ?? 0
  for (let m = 0; m < shape.nodes; m++) {
    const ctx = nodeContext(nodeSums, m, scales, p)
    for (let f = 0; f < F; f++) {
      const best = emptyBest()
      if (featureMask[shape.maskPerNode ? m * F + f : f] !== 0) {
        scanFeature(hist, nodeSlots[m] * B + cutPtrs[f], cutPtrs[f + 1] - cutPtrs[f], f, ctx, best)
      }
      writeResult(featureBest, m * F + f, best, ctx)
    }
  }
}
