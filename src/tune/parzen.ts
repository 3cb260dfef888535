/**
 * Parzen estimators of TPE on the unit interval: a mixture of Gaussians truncated to [0, 1], one
 * per observation plus a broad prior N(0.5, 1) (hyperopt / Optuna), with per-point bandwidths
 * from the gaps to the neighbours; categoricals as smoothed counts.
 */
import type { Rng } from '../util/rng.ts'

/** A 1-D mixture of equally weighted Gaussians truncated to [0, 1]. */
export interface Parzen {
  mus: number[]
  sigmas: number[]
}

/** Fits a Parzen mixture to points `xs` in [0, 1] (the prior component included). */
export function fitParzen(xs: readonly number[]): Parzen {
  const mus = [...xs, 0.5].sort((a, b) => a - b)
  const minSigma = 1 / Math.min(100, mus.length)
  const sigmas = mus.map((m, i) => {
    const left = m - (i > 0 ? mus[i - 1] : 0)
    const right = (i < mus.length - 1 ? mus[i + 1] : 1) - m
    return Math.min(1, Math.max(minSigma, left, right))
  })
  // The prior is broad whatever its neighbours: it keeps every region reachable.
  const p = mus.indexOf(0.5, 0)
  sigmas[p] = 1
  return { mus, sigmas }
}

/** log density of the mixture at x ∈ [0, 1]. */
export function parzenLogPdf(p: Parzen, x: number): number {
  const logs = p.mus.map((m, i) => truncLogPdf(x, m, p.sigmas[i]))
  return logSumExp(logs) - Math.log(p.mus.length)
}

/** One draw from the mixture (a component uniformly, then its truncated normal by rejection). */
export function parzenSample(p: Parzen, rng: Rng): number {
  const i = rng.int(p.mus.length)
  for (let t = 0; t < 32; t++) {
    const x = p.mus[i] + p.sigmas[i] * rng.normal()
    if (x >= 0 && x <= 1) return x
  }
  return Math.min(1, Math.max(0, p.mus[i]))
}

/** Smoothed probabilities of `k` choices from observed indices: (count + 1) / (n + k). */
export function fitCategorical(idx: readonly number[], k: number): number[] {
  const counts = new Array<number>(k).fill(1)
  for (const i of idx) counts[i]++
  return counts.map(c => c / (idx.length + k))
}

/** One draw of an index from probabilities `probs`. */
export function categoricalSample(probs: readonly number[], rng: Rng): number {
  let u = rng.next()
  for (let i = 0; i < probs.length; i++) {
    u -= probs[i]
    if (u < 0) return i
  }
  return probs.length - 1
}

function truncLogPdf(x: number, mu: number, sigma: number): number {
  const z = (x - mu) / sigma
  const mass = phi((1 - mu) / sigma) - phi(-mu / sigma)
  return -0.5 * z * z - Math.log(sigma * Math.sqrt(2 * Math.PI)) - Math.log(Math.max(mass, 1e-12))
}

function logSumExp(xs: readonly number[]): number {
  const m = Math.max(...xs)
  if (!Number.isFinite(m)) return m
  return m + Math.log(xs.reduce((s, x) => s + Math.exp(x - m), 0))
}

/** Standard normal CDF via erf (Abramowitz & Stegun 7.1.26, |error| < 1.5e-7). */
function phi(z: number): number {
  const x = Math.abs(z) / Math.SQRT2
  const t = 1 / (1 + 0.3275911 * x)
  const y =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x)
  return 0.5 * (1 + (z >= 0 ? y : -y))
}
