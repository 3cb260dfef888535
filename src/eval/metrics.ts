/**
 * Evaluation metrics of every family, as XGBoost computes them (`src/metric/`): auc, logloss,
 * error, rmse. Inputs are predictions after the objective's transform (probabilities for
 * logistic), labels and optional row weights, all length N. Weighted metrics divide by the weight sum.
 */

/** Metric names (XGBoost eval_metric). */
export type MetricName = 'auc' | 'logloss' | 'error' | 'rmse'

/** True when larger is better (only AUC), as XGBoost's early stopping decides. */
export function maximize(metric: MetricName): boolean {
  return metric === 'auc'
}

/** Evaluates `metric` on predictions `pred` against `labels`. */
export function evaluate(
  metric: MetricName,
  pred: ArrayLike<number>,
  labels: ArrayLike<number>,
  weights?: ArrayLike<number>,
): number {
  if (metric === 'auc') return auc(pred, labels, weights)
  if (metric === 'logloss') return meanOf(pred, labels, weights, loglossRow)
  if (metric === 'error') return meanOf(pred, labels, weights, (p, y) => (p > 0.5 ? 1 - y : y))
  return Math.sqrt(meanOf(pred, labels, weights, (p, y) => (p - y) ** 2))
}

/** XGBoost's EvalRowLogLoss: probabilities clamped to [1e-16, 1 − 1e-16]. */
export function loglossRow(p: number, y: number): number {
  const eps = 1e-16
  const q = Math.min(1 - eps, Math.max(eps, p))
  return -y * Math.log(q) - (1 - y) * Math.log(1 - q)
}

function meanOf(
  pred: ArrayLike<number>,
  labels: ArrayLike<number>,
  weights: ArrayLike<number> | undefined,
  row: (p: number, y: number) => number,
): number {
  let sum = 0,
    sw = 0
  for (let i = 0; i < pred.length; i++) {
    const w = weights ? weights[i] : 1
    sum += w * row(pred[i], labels[i])
    sw += w
  }
  return sw > 0 ? sum / sw : NaN
}

/**
 * Exact ROC AUC with ties at the average rank (Mann–Whitney), weighted: the probability that a
 * random positive scores above a random negative, ties counting ½. Labels are 0/1 (> 0.5 is
 * positive). NaN when one class is absent (XGBoost warns and reports NaN-like values too).
 */
export function auc(pred: ArrayLike<number>, labels: ArrayLike<number>, weights?: ArrayLike<number>): number {
  const order = Array.from({ length: pred.length }, (_, i) => i).sort((a, b) => pred[a] - pred[b])
  let negBelow = 0,
    area = 0,
    totPos = 0,
    totNeg = 0
  for (let s = 0; s < order.length; ) {
    let e = s,
      pos = 0,
      neg = 0
    // One group of tied scores: positives beat the negatives below and half of the tied ones.
    while (e < order.length && pred[order[e]] === pred[order[s]]) {
      const i = order[e++],
        w = weights ? weights[i] : 1
      if (labels[i] > 0.5) pos += w
      else neg += w
    }
    area += pos * (negBelow + neg / 2)
    negBelow += neg
    totPos += pos
    totNeg += neg
    s = e
  }
  return totPos > 0 && totNeg > 0 ? area / (totPos * totNeg) : NaN
}
