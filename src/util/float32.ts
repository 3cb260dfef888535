/**
 * XGBoost's float32 arithmetic where results must match it bit for bit (its sigmoid), and float32
 * values as text: the shortest decimal that reads back as the same float32 — what XGBoost
 * writes for its floats, and what its parser expects (1.7's from_chars misreads a 17-digit
 * decimal of a float32, e.g. base_score "0.4000000059604645").
 */

/** Shortest decimal number that reads back as the same float32 as `x`. Throws on a non-finite value. */
export function shortestFloat32(x: number): number {
  const f = Math.fround(x)
  if (!Number.isFinite(f)) throw new RangeError(`non-finite value ${x} cannot be written as a float32 decimal`)
  for (let p = 1; p < 9; p++) {
    const s = Number(f.toPrecision(p))
    if (Math.fround(s) === f) return s
  }
  return Number(f.toPrecision(9))
}

/**
 * A float32 as C++ streams it in its default `%g` style with `digits` significant digits:
 * XGBoost's config values (dmlc `PrintValue`, max_digits10 = 9: 0.7 → "0.699999988", 1.5 → "1.5",
 * 1e-7 → "1.00000001e-07") and its metric names (6 digits: error@0.3, tweedie-nloglik@1.5).
 */
export function cFloat(x: number, digits = 9): string {
  const v = Math.fround(x)
  if (v === 0) return Object.is(v, -0) ? '-0' : '0'
  if (!Number.isFinite(v)) return Number.isNaN(v) ? 'nan' : v > 0 ? 'inf' : '-inf'
  const [mant, exp] = v.toExponential(digits - 1).split('e')
  const e = Number(exp)
  const strip = (s: string): string => (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s)
  if (e < -4 || e >= digits) return `${strip(mant)}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`
  return strip(v.toFixed(Math.max(0, digits - 1 - e)))
}

/**
 * XGBoost's float sigmoid (src/common/math.h `Sigmoid`, 1.7.4 and 2.0): 1 / (expf(min(−x, 88.7)) +
 * 1 + 1e-16) in float32 steps — the transform of its logistic objectives (GBDT and gblinear), so a
 * margin far out gives exactly 1 where XGBoost does (a float64 sigmoid rounded to float32 stays one
 * ulp below 1 a little longer, which moves logloss under large weights).
 */
export function xgboostSigmoid(x: number): number {
  const e = Math.fround(Math.exp(Math.min(-x, Math.fround(88.7))))
  return Math.fround(1 / Math.fround(Math.fround(e + 1) + SIGMOID_EPS))
}

const SIGMOID_EPS = Math.fround(1e-16)
