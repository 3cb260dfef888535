/**
 * Node weight and gain maths (XGBoost `TreeEvaluator` / `param.h`: CalcWeight, CalcGain). The
 * split search over histograms itself is the split_evaluate kernel and its reference
 * (src/kernels/gbdt/split_evaluate.ref.ts); the driver uses these for leaf values — except under
 * monotone constraints, where the leaves take the weights the split search clamped to the node's
 * bounds (SplitCandidate.leftWeight / rightWeight), so the order it checked is the order stored.
 */
import type { GbdtParams } from './types.ts'

/** Gains at or below this are no split (XGBoost kRtEps). */
export const RT_EPS = 1e-6

/** Regularisation parameters the maths needs. */
export type RegParams = Pick<GbdtParams, 'lambda' | 'alpha' | 'min_child_weight' | 'max_delta_step'>

function thresholdL1(g: number, alpha: number): number {
  return g > alpha ? g - alpha : g < -alpha ? g + alpha : 0
}

/** Optimal unscaled node weight −T_α(G)/(H + λ), clipped to ±max_delta_step (XGBoost CalcWeight). */
export function calcWeight(p: RegParams, g: number, h: number): number {
  if (h < p.min_child_weight || h <= 0) return 0
  const w = -thresholdL1(g, p.alpha) / (h + p.lambda)
  return p.max_delta_step !== 0 && Math.abs(w) > p.max_delta_step ? Math.sign(w) * p.max_delta_step : w
}

/** Structure score of a node (XGBoost CalcGain; not halved, as XGBoost's loss_chg). */
export function calcGain(p: RegParams, g: number, h: number): number {
  if (h < p.min_child_weight || h <= 0) return 0
  if (p.max_delta_step === 0) return thresholdL1(g, p.alpha) ** 2 / (h + p.lambda)
  const w = calcWeight(p, g, h)
  return -(2 * g * w + (h + p.lambda) * w * w) + p.alpha * Math.abs(w)
}
