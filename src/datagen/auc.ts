/**
 * ROC AUC by ranks (Mann–Whitney U), ties counted half: the probability that a random
 * positive scores above a random negative.
 */

/** AUC of `scores` against 0/1 `labels` (same length). NaN if one class is absent. */
export function rocAuc(scores: ArrayLike<number>, labels: ArrayLike<number>): number {
  const n = scores.length
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[a] - scores[b])
  let positives = 0
  let rankSum = 0
  for (let i = 0; i < n;) {
    let j = i
    while (j + 1 < n && scores[order[j + 1]] === scores[order[i]]) j++
    const midRank = (i + j) / 2 + 1
    for (let k = i; k <= j; k++) if (labels[order[k]] === 1) { positives++; rankSum += midRank }
    i = j + 1
  }
  const negatives = n - positives
  if (positives === 0 || negatives === 0) return NaN
  return (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives)
}

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
