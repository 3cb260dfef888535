/**
 * Reference for bce_loss_forward.wgsl: binary cross-entropy with logits, per row. N = rows.
 * loss[i] = w·(max(z, 0) − z·y + log1p(exp(−|z|))), probs[i] = σ(z), z = logits[i], y = labels[i]
 * (0/1), w = weights[i] or 1. Every step is rounded to f32 in the kernel's order.
 */

const f32 = Math.fround

/** Below this, log1p uses its Taylor series (1/64, exact in f32). */
export const LOG1P_SERIES_MAX = 0.015625

/**
 * log1p(x) in f32 steps for x ≥ 0 (WGSL has none). Below 1/64 the series x − x²/2 + x³/3 − x⁴/4
 * (relative truncation < x⁴/5 ≈ 3e-8): WGSL promises log() only to 2^-21 absolute near 1, which
 * would swamp tiny losses. Above, with u = 1 + x rounded, log(u)·x/(u − 1) cancels u's rounding
 * error (Goldberg, "What every computer scientist…", Theorem 4).
 */
export function log1p32(x: number): number {
  if (x < LOG1P_SERIES_MAX) {
    const t = f32(f32(0.33333334) - f32(x * 0.25))
    return f32(x * f32(1 - f32(x * f32(0.5 - f32(x * t)))))
  }
  const u = f32(1 + x)
  return f32(f32(Math.log(u)) * f32(x / f32(u - 1)))
}

/** σ(z) in f32 from e = exp(−|z|) (no overflow for any z): 1/(1+e) for z ≥ 0, e/(1+e) below. */
export function sigmoidFromExp32(z: number, e: number): number {
  const d = f32(1 + e)
  return z >= 0 ? f32(1 / d) : f32(e / d)
}

/** σ(z) in f32, overflow-free. */
export function sigmoid32(z: number): number {
  return sigmoidFromExp32(z, f32(Math.exp(-Math.abs(z))))
}

/**
 * Writes `loss` and `probs` (Float32Array, n each) from `logits`, `labels` (n) and optional
 * `weights` (n; null = all 1).
 */
export function bceLossForward(
  logits: Float32Array,
  labels: Float32Array,
  weights: Float32Array | null,
  loss: Float32Array,
  probs: Float32Array,
  n: number,
): void {
  for (let i = 0; i < n; i++) {
    const z = logits[i],
      y = labels[i],
      w = weights ? weights[i] : 1
    const e = f32(Math.exp(-Math.abs(z)))
    const l = f32(f32(Math.max(z, 0) - f32(z * y)) + log1p32(e))
    loss[i] = f32(l * w)
    probs[i] = sigmoidFromExp32(z, e)
  }
}
