/**
 * Objectives (XGBoost `RegLossObj`): per-row gradient/hessian of the loss at a margin, the
 * prediction transform, label checks and the intercept (base_score) estimate.
 * N = rows. Margins are raw scores; predictions are after the transform.
 */
import type { GbdtParams } from './types.ts'

type Objective = GbdtParams['objective']

/** Hessian floor of the logistic loss, as XGBoost (keeps H > 0 when p saturates). */
export const MIN_LOGISTIC_HESS = 1e-16

/** True for objectives whose predictions are probabilities (base_score stored as one). */
export function isLogistic(objective: Objective): boolean {
  return objective !== 'reg:squarederror'
}

/** σ(x) = 1 / (1 + e^−x). */
export function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x))
}

/**
 * (g, h) of one row: d loss / d margin and d² loss / d margin², times the row weight `w`.
 * Logistic: g = (p − y)·w', h = max(p(1−p), 1e-16)·w' with w' = w·scalePosWeight on positives.
 */
export function rowGradient(
  objective: Objective,
  margin: number,
  y: number,
  w: number,
  scalePosWeight: number,
): [number, number] {
  if (objective === 'reg:squarederror') return [(margin - y) * w, w]
  const wp = w + y * (scalePosWeight * w - w)
  const p = sigmoid(margin)
  return [(p - y) * wp, Math.max(p * (1 - p), MIN_LOGISTIC_HESS) * wp]
}

/** Loss of one row (for finite-difference checks): logistic NLL or ½(m − y)². */
export function rowLoss(objective: Objective, margin: number, y: number, w: number, scalePosWeight: number): number {
  if (objective === 'reg:squarederror') return 0.5 * (margin - y) ** 2 * w
  const wp = w + y * (scalePosWeight * w - w)
  // log(1 + e^m) − y·m, written to stay finite for large |m|.
  const softplus = margin > 0 ? margin + Math.log1p(Math.exp(-margin)) : Math.log1p(Math.exp(margin))
  return (softplus - y * margin) * wp
}

/** Prediction from a margin: sigmoid for logistic objectives, identity for squared error. */
export function transform(objective: Objective, margin: number): number {
  return isLogistic(objective) ? sigmoid(margin) : margin
}

/** Margin offset of a base_score (XGBoost `ProbToMargin`): logit for logistic objectives. */
export function baseMargin(objective: Objective, baseScore: number): number {
  return isLogistic(objective) ? Math.log(baseScore / (1 - baseScore)) : baseScore
}

/** XGBoost 2.0's estimate: one Newton step from margin 0, transformed (σ(4(ȳ−½)) for logistic). */
export function newtonStepBaseScore(p: GbdtParams, labels: ArrayLike<number>, weights?: ArrayLike<number>): number {
  let sg = 0,
    sh = 0
  for (let i = 0; i < labels.length; i++) {
    const [g, h] = rowGradient(p.objective, 0, labels[i], weights ? weights[i] : 1, p.scale_pos_weight)
    sg += g
    sh += h
  }
  return transform(p.objective, sh > 0 ? -sg / sh : 0)
}
