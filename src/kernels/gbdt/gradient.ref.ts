/**
 * Reference for gradient.wgsl: per-row gradient pairs (g, h) of the objective at the current
 * margins, in f32 steps as XGBoost 1.7.4's objectives compute them (src/objective/regression_obj.cu,
 * regression_loss.h, hinge.cu; reg:quantileerror as XGBoost 2.0's quantile_obj.cu). The f64
 * formulas with their losses are models/gbdt/objective.ts.
 * N = rows. gpair is interleaved (g, h) per row, i.e. `array<vec2<f32>>` of length N.
 */
import {
  OBJECTIVE_ABSOLUTE,
  OBJECTIVE_COUNT,
  OBJECTIVE_GAMMA,
  OBJECTIVE_HINGE,
  OBJECTIVE_LOGISTIC,
  OBJECTIVE_POISSON,
  OBJECTIVE_PSEUDO_HUBER,
  OBJECTIVE_QUANTILE,
  OBJECTIVE_SQUARED_ERROR,
  OBJECTIVE_SQUARED_LOG,
  OBJECTIVE_TWEEDIE,
  ROW_UNUSED,
  LOGISTIC_MIN_HESS,
  SOFTMAX_MIN_HESS,
  softmaxAt,
} from './layout.ts'

/**
 * Multiclass gradient pairs (XGBoost 1.7.4 SoftmaxMultiClassObj::GetGradient; 2.0 the same):
 * for row i and class j, p = softmax(margins of row i)_j, g = (p − [y = j])·w,
 * h = max(2·p·(1 − p)·w, 1e-16) in f32. `margins` N × K row-major (row i, class j at i·K + j);
 * `gpair` (g, h) per (row, class) in the same order, length ≥ 2·N·K; `positions` N × K (null =
 * every row used): a (row, class) whose position is ROW_UNUSED gets (0, 0) — each class tree
 * samples its own rows, as XGBoost's hist samples per tree.
 */
export function softmaxGradient(
  margins: Float32Array,
  labels: Float32Array,
  weights: Float32Array | null,
  positions: Uint32Array | null,
  gpair: Float32Array,
  n: number,
  k: number,
): void {
  const p = new Float32Array(k)
  for (let i = 0; i < n; i++) {
    const w = weights ? f32(weights[i]) : 1
    const y = labels[i]
    softmaxAt(margins.subarray(i * k, (i + 1) * k), p, 0, k)
    for (let j = 0; j < k; j++) {
      const at = i * k + j
      const used = !positions || positions[at] !== ROW_UNUSED
      const h = Math.max(f32(f32(f32(2 * p[j]) * f32(1 - p[j])) * w), f32(SOFTMAX_MIN_HESS))
      gpair[2 * at] = used ? f32((y === j ? f32(p[j] - 1) : p[j]) * w) : 0
      gpair[2 * at + 1] = used ? h : 0
    }
  }
}

/** Hessian of binary:hinge rows past the margin: FLT_MIN, unweighted (XGBoost hinge.cu). */
export const HINGE_MIN_HESS = 2 ** -126

const f32 = Math.fround

/** Sigmoid evaluated in f32 steps, as the kernel does: 1 / (1 + exp(−m)). */
export function sigmoid32(m: number): number {
  return f32(1 / f32(1 + f32(Math.exp(-m))))
}

/**
 * Fills `gpair` (Float32Array, length ≥ 2n: g, h per row) from `margins`, `labels` (Float32Array,
 * length ≥ n), optional `weights` (null = all 1) and optional `positions` (Uint32Array, null =
 * every row used; ROW_UNUSED rows get (0, 0)). `objective`: an id of layout.ts; `scalePosWeight`
 * multiplies the weight of rows labelled exactly 1 under XGBoost's RegLossObj objectives (logistic,
 * squared error, squared log error); `objParam`: huber_slope, max_delta_step (poisson),
 * tweedie_variance_power or quantile_alpha, unused by the others. Formulas at `rowGradient`.
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
  objParam = 0,
): void {
  if (!(Number.isInteger(objective) && objective >= 0 && objective < OBJECTIVE_COUNT))
    throw new RangeError(`gradient: unknown objective id ${objective}`)
  for (let i = 0; i < n; i++) {
    const used = !positions || positions[i] !== ROW_UNUSED
    const [g, h] = used
      ? rowGradient(margins[i], labels[i], weights ? weights[i] : 1, objective, scalePosWeight, objParam)
      : [0, 0]
    gpair[2 * i] = g
    gpair[2 * i + 1] = h
  }
}

/**
 * (g, h) of one row in f32 arithmetic (m = margin, y = label, w = weight):
 * - logistic (binary:logistic, reg:logistic, binary:logitraw): p = σ(m), g = (p − y)·w', h = max(p(1 − p), 1e-16)·w'
 * - squared error: g = (m − y)·w', h = w'
 * - squared log error: m' = max(m, −1 + 1e-6), g = (log1p(m') − log1p(y)) / (m' + 1)·w',
 *   h = max((−log1p(m') + log1p(y) + 1) / (m' + 1)², 1e-6)·w'
 *   (w' = w · scalePosWeight when y = 1, else w: XGBoost's RegLossObj)
 * - pseudo-Huber (δ = objParam): z = m − y, s = √(1 + z²/δ²), g = z/s·w, h = δ²/((δ² + z²)·s)·w
 * - poisson (objParam = max_delta_step): g = (eᵐ − y)·w, h = e^(m + max_delta_step)·w
 * - gamma: g = (1 − y/eᵐ)·w, h = y/eᵐ·w
 * - tweedie (ρ = objParam): g = (−y·e^((1−ρ)m) + e^((2−ρ)m))·w, h = (−y(1−ρ)e^((1−ρ)m) + (2−ρ)e^((2−ρ)m))·w
 * - absolute error: g = sign(m − y)·w, h = w
 * - hinge: y' = 2y − 1; m·y' < 1: g = −y'·w, h = w; else g = 0, h = FLT_MIN
 * - quantile (α = objParam): g = (m − y ≥ 0 ? 1 − α : −α)·w, h = w
 */
export function rowGradient(
  m: number,
  y: number,
  w: number,
  objective: number,
  scalePosWeight: number,
  objParam = 0,
): [number, number] {
  const wp = y === 1 ? f32(w * scalePosWeight) : f32(w)
  switch (objective) {
    case OBJECTIVE_LOGISTIC: {
      const p = sigmoid32(m)
      const h = Math.max(f32(p * f32(1 - p)), f32(LOGISTIC_MIN_HESS))
      return [f32(f32(p - y) * wp), f32(h * wp)]
    }
    case OBJECTIVE_SQUARED_ERROR:
      return [f32(f32(m - y) * wp), wp]
    case OBJECTIVE_SQUARED_LOG: {
      const mp = Math.max(m, f32(-1 + 1e-6))
      const lm = f32(Math.log1p(mp)),
        ly = f32(Math.log1p(y)),
        m1 = f32(mp + 1)
      const g = f32(f32(lm - ly) / m1)
      // std::pow(float, 2) is a double in C++: the division happens in double, then rounds.
      const h = Math.max(f32(f32(f32(-lm + ly) + 1) / (m1 * m1)), f32(1e-6))
      return [f32(g * wp), f32(h * wp)]
    }
    case OBJECTIVE_PSEUDO_HUBER: {
      const z = f32(m - y),
        d2 = f32(objParam * objParam),
        z2 = f32(z * z)
      const s = f32(Math.sqrt(f32(1 + f32(z2 / d2))))
      return [f32(f32(z / s) * w), f32(f32(d2 / f32(f32(d2 + z2) * s)) * w)]
    }
    case OBJECTIVE_POISSON:
      return [f32(f32(f32(Math.exp(m)) - y) * w), f32(f32(Math.exp(f32(m + objParam))) * w)]
    case OBJECTIVE_GAMMA: {
      const r = f32(y / f32(Math.exp(m)))
      return [f32(f32(1 - r) * w), f32(r * w)]
    }
    case OBJECTIVE_TWEEDIE: {
      const a = f32(Math.exp(f32(f32(1 - objParam) * m))),
        b = f32(Math.exp(f32(f32(2 - objParam) * m)))
      const g = f32(f32(-y * a) + b)
      const h = f32(f32(f32(f32(-y * f32(1 - objParam)) * a)) + f32(f32(2 - objParam) * b))
      return [f32(g * w), f32(h * w)]
    }
    case OBJECTIVE_ABSOLUTE:
      return [f32(Math.sign(f32(m - y)) * w), f32(w)]
    case OBJECTIVE_HINGE: {
      const yy = f32(y * 2 - 1)
      return f32(m * yy) < 1 ? [f32(-yy * w), f32(w)] : [0, HINGE_MIN_HESS]
    }
    case OBJECTIVE_QUANTILE:
      return [f32(f32(m - y) >= 0 ? f32(f32(1 - objParam) * w) : f32(-objParam * w)), f32(w)]
    default:
      throw new RangeError(`gradient: unknown objective id ${objective}`)
  }
}
