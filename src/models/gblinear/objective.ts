/**
 * The objectives as XGBoost 1.7's `RegLossObj` computes them on the CPU, in float32 step by step
 * (its GradientPair holds floats), so coordinate descent follows XGBoost's arithmetic: gradients,
 * the sigmoid (`common::Sigmoid`), the margin of base_score (`ProbToMargin`). N = rows.
 */
import type { LinearObjective } from './params.ts'
import { xgboostSigmoid } from '../../util/float32.ts'

const f32 = Math.fround
const EPS = f32(1e-16)

/** True for objectives whose predictions are probabilities. */
export function isLogistic(objective: LinearObjective): boolean {
  return objective !== 'reg:squarederror'
}

/** Prediction from a margin. */
export function transform(objective: LinearObjective, margin: number): number {
  return isLogistic(objective) ? xgboostSigmoid(margin) : margin
}

/** Margin offset of base_score (XGBoost `ProbToMargin`: −log(1/p − 1) in float for logistic). */
export function baseMargin(objective: LinearObjective, baseScore: number): number {
  return isLogistic(objective) ? f32(-Math.log(f32(f32(1 / f32(baseScore)) - 1))) : f32(baseScore)
}

/**
 * Gradient pairs of every row at `margins` into `g`, `h` (float32, length N): the row weight
 * times scale_pos_weight on label 1 (XGBoost applies it for every RegLossObj), then
 * logistic: (p − y, max(p(1 − p), 1e-16)); squared error: (m − y, 1).
 */
export function gradients(
  objective: LinearObjective,
  margins: Float32Array,
  labels: Float32Array,
  weights: Float32Array | undefined,
  scalePosWeight: number,
  g: Float32Array,
  h: Float32Array,
): void {
  const spw = f32(scalePosWeight)
  const logistic = isLogistic(objective)
  for (let i = 0; i < margins.length; i++) {
    const y = labels[i]
    let w = weights ? weights[i] : 1
    if (y === 1) w = f32(w * spw)
    if (logistic) {
      const p = xgboostSigmoid(margins[i])
      g[i] = f32(p - y) * w
      h[i] = Math.max(f32(p * f32(1 - p)), EPS) * w
    } else {
      g[i] = f32(margins[i] - y) * w
      h[i] = w
    }
  }
}
