/**
 * Reference for split_reduce.wgsl: per node, the best of its F per-feature records (from
 * split_evaluate_scan): larger gain wins, equal gains keep the smaller feature (XGBoost
 * SplitEntry::NeedReplace). M = nodes, F = features.
 */
import { NO_FEATURE, SPLIT_WORDS } from './split_evaluate.ref.ts'

/**
 * - featureBest: u32 [M × F × 16] records (split_evaluate.ref.ts layout)
 * - out: u32 [M × 16], the chosen record copied, or the "no split" record (gain −∞,
 *   feature 0xFFFFFFFF, zeros) when no feature has a valid split.
 */
export function splitReduce(featureBest: Uint32Array, out: Uint32Array, nodes: number, features: number): void {
  const gains = new Float32Array(featureBest.buffer, featureBest.byteOffset, featureBest.length)
  for (let m = 0; m < nodes; m++) {
    let best = -1
    for (let f = 0; f < features; f++) {
      const r = (m * features + f) * SPLIT_WORDS
      if (featureBest[r + 1] === NO_FEATURE) continue
      if (best < 0 || gains[r] > gains[best]) best = r
    }
    const o = m * SPLIT_WORDS
    if (best >= 0) { out.set(featureBest.subarray(best, best + SPLIT_WORDS), o); continue }
    out.fill(0, o, o + SPLIT_WORDS)
    out[o] = 0xff800000
    out[o + 1] = NO_FEATURE
  }
}
