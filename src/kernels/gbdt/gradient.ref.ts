/**
 * Reference for gradient.wgsl: per-row gradient pairs (g, h) of the objective at the current
 * margins, as XGBoost's `binary:logistic` / `reg:logistic` and `reg:squarederror`.
 * N = rows. gpair is interleaved (g, h) per row, i.e. `array<vec2<f32>>` of length N.
 */
import { OBJECTIVE_LOGISTIC, OBJECTIVE_SQUARED_ERROR, ROW_UNUSED } from './layout.ts'

/** Hessian floor of the logistic loss (XGBoost `kRtEps`-style clamp, keeps H > 0). */
export const LOGISTIC_MIN_HESS = 1e-16

const f32 = Math.fround

/** Sigmoid evaluated in f32 steps, as the kernel does: 1 / (1 + exp(−m)). */
export function sigmoid32(m: number): number {
  return f32(1 / f32(1 + f32(Math.exp(-m))))
}

/**
 * Fills `gpair` (Float32Array, length ≥ 2n: g, h per row) from `margins`, `labels` (Float32Array,
 * length ≥ n), optional `weights` (null = all 1) and optional `positions` (Uint32Array, null =
 * every row used; ROW_UNUSED rows get (0, 0)). Logistic: p = σ(m), g = (p − y)·w', h =
 * max(p(1 − p), 1e-16)·w' with w' = w · (y == 1 ? scalePosWeight : 1). Squared error: g = (m − y)·w,
 * h = w (scalePosWeight ignored, as XGBoost).
 */
export function gradient(
  margins: Float32Array,
  labels: Float32Array,
  weights: Float32Array | null,
  positions: Uint32Array | null,
  gpair: Float32Array,
  n: number,
  objective: number,
  scalePosWeight: number,
): void {
  for (let i = 0; i < n; i++) {
    const used = !positions || positions[i] !== ROW_UNUSED
    const [g, h] = used
      ? rowGradient(margins[i], labels[i], weights ? weights[i] : 1, objective, scalePosWeight)
      : [0, 0]
    gpair[2 * i] = g
    gpair[2 * i + 1] = h
  }
}

/** (g, h) of one row in f32 arithmetic. */
export function rowGradient(
  m: number,
  y: number,
  w: number,
  objective: number,
  scalePosWeight: number,
): [number, number] {
  if (objective === OBJECTIVE_SQUARED_ERROR) return [f32(f32(m - y) * w), f32(w)]
  if (objective !== OBJECTIVE_LOGISTIC) throw new RangeError(`gradient: unknown objective id ${objective}`)
  const wp = y === 1 ? f32(w * scalePosWeight) : f32(w)
  const p = sigmoid32(m)
  const h = Math.max(f32(p * f32(1 - p)), f32(LOGISTIC_MIN_HESS))
  return [f32(f32(p - y) * wp), f32(h * wp)]
}
