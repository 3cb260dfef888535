/**
 * Reference for bce_loss_backward.wgsl: dlogits[i] = (σ(z) − y)·w / denom, the gradient of
 * Σ_i loss[i] / denom. N = rows; denom is the batch's row count B (the mean's divisor), passed as a
 * uniform so a partial last batch still averages over its own rows.
 */
import { sigmoid32 } from './bce_loss_forward.ref.ts'

const f32 = Math.fround

/** Writes `dlogits` (Float32Array, n) from `logits`, `labels` (n), optional `weights` (n; null = all 1). */
export function bceLossBackward(
  logits: Float32Array,
  labels: Float32Array,
  weights: Float32Array | null,
  dlogits: Float32Array,
  n: number,
  denom: number,
): void {
  for (let i = 0; i < n; i++) {
    const w = weights ? weights[i] : 1
    dlogits[i] = f32(f32(f32(sigmoid32(logits[i]) - labels[i]) * w) / f32(denom))
  }
}
