/**
 * The hidden models' link: the logistic function and the intercept that pins a base rate. (Their
 * AUCs are computed by the trainer's own metric, src/eval/metrics.ts `auc`.)
 */

/** Logistic function 1 / (1 + e^-x). */
export function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x))
}

/**
 * The intercept b such that mean(sigmoid(logits + b)) = target (bisection; the mean is
 * monotone in b). Used to pin a hidden model's base rate. Large inputs are calibrated on an
 * evenly strided sample of `maxSample` logits: exact enough, and 60 passes stay cheap.
 */
export function interceptFor(logits: ArrayLike<number>, target: number, maxSample = 100_000): number {
  const stride = Math.max(1, Math.floor(logits.length / maxSample))
  const sample = Float64Array.from({ length: Math.ceil(logits.length / stride) }, (_, i) => logits[i * stride])
  let lo = -30
  let hi = 30
  for (let it = 0; it < 60; it++) {
    const mid = (lo + hi) / 2
    let sum = 0
    for (let i = 0; i < sample.length; i++) sum += sigmoid(sample[i] + mid)
    if (sum / sample.length < target) lo = mid
    else hi = mid
  }
  return (lo + hi) / 2
}
