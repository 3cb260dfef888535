/**
 * Reference for adam.wgsl: one AdamW step over a dense tensor of P parameters, PyTorch order:
 * p ← p·(1 − lr·wd); m ← β1·m + (1−β1)·g; v ← β2·v + (1−β2)·g²;
 * p ← p − (lr / (1 − β1^t)) · m / (√v / √(1 − β2^t) + eps). Every operation is rounded to f32
 * as the kernel does (Math.fround), so the two differ only by the GPU's sqrt/division ulps.
 */
import type { AdamHyper, AdamShape } from './embedding-optim-types.ts'
import { adamUniforms } from './layout.ts'

/**
 * beta^n by square-and-multiply with every product rounded to f32. The kernels compute bias
 * corrections the same way (WGSL `pow` is exp2∘log2 with loose error bounds, and 1 − β2^t cancels
 * badly for small t), so the corrections match the reference exactly.
 */
export function powU32F32(beta: number, n: number): number {
  let result = 1
  let base = Math.fround(beta)
  for (let e = n >>> 0; e > 0; e >>>= 1) {
    if (e & 1) result = Math.fround(result * base)
    base = Math.fround(base * base)
  }
  return result
}

/**
 * One Adam(W) update of element i in place; shared with rowwise_adam.ref.ts (same arithmetic,
 * there with the row's own step). `u` holds f32 hyperparameters (adamUniforms), `t` ≥ 1.
 */
export function adamElement(
  p: Float32Array,
  g: number,
  m: Float32Array,
  v: Float32Array,
  i: number,
  u: Record<string, number>,
  t: number,
): void {
  const f = Math.fround
  const decay = f(1 - f(u.lr * u.weight_decay))
  p[i] = f(p[i] * decay)
  m[i] = f(f(u.beta1 * m[i]) + f(f(1 - u.beta1) * g))
  v[i] = f(f(u.beta2 * v[i]) + f(f(1 - u.beta2) * f(g * g)))
  const stepSize = f(u.lr / f(1 - powU32F32(u.beta1, t)))
  const denom = f(f(f(Math.sqrt(v[i])) / f(Math.sqrt(f(1 - powU32F32(u.beta2, t))))) + u.eps)
  p[i] = f(p[i] - f(stepSize * f(m[i] / denom)))
}

/**
 * - params, grads, m, v: f32 [P]; params, m, v updated in place (m, v start at 0 before t = 1)
 * Throws RangeError unless t is an integer ≥ 1 (bias correction divides by 1 − β1^t).
 */
export function adam(
  params: Float32Array,
  grads: Float32Array,
  m: Float32Array,
  v: Float32Array,
  shape: AdamShape,
  h: AdamHyper,
): void {
  if (!Number.isInteger(h.t) || h.t < 1) throw new RangeError(`adam: t must be an integer ≥ 1, got ${h.t}`)
  const u = adamUniforms(h)
  for (let i = 0; i < shape.params; i++) adamElement(params, grads[i], m, v, i, u, h.t)
}
