/**
 * Threshold curves of a binary classifier on its validation rows: the ROC curve (false positive
 * rate → true positive rate), the precision–recall curve and the confusion matrix at a chosen
 * threshold. Pure computation over scores (probabilities, V) and 0/1 labels (> 0.5 is positive),
 * unweighted. Tied scores are one point (one threshold), so the ROC's trapezoid area is the
 * Mann–Whitney AUC with ties counting ½ — the run's reported AUC (src/eval/metrics.ts `auc`).
 */

/** The curves of one set of scores; a point per distinct score, highest score first. */
export interface ThresholdCurves {
  positives: number
  negatives: number
  /** ROC points from (0, 0) to (1, 1); empty when a class is absent (the AUC is NaN then). */
  roc: { fpr: number[]; tpr: number[] }
  /** The score at or above which point i of `roc` calls a row positive (point 0: +Infinity, none). */
  thresholds: number[]
  /** Precision–recall points, (recall 0, precision 1) first; empty without positives. */
  pr: { recall: number[]; precision: number[] }
  /** Trapezoid area under `roc`; NaN when a class is absent. */
  auc: number
}

/** Counts at one threshold: a row is called positive when its score is ≥ the threshold. */
export interface Confusion {
  tp: number
  fp: number
  tn: number
  fn: number
}

/** ROC and PR curves of `scores` against `labels` (same length; RangeError naming both otherwise). */
export function thresholdCurves(scores: ArrayLike<number>, labels: ArrayLike<number>): ThresholdCurves {
  if (scores.length !== labels.length)
    throw new RangeError(`scores (${scores.length}) and labels (${labels.length}): lengths differ`)
  const order = Array.from({ length: scores.length }, (_, i) => i).sort((a, b) => scores[b] - scores[a])
  let P = 0
  for (let i = 0; i < labels.length; i++) if (labels[i] > 0.5) P++
  const N = labels.length - P
  const cum = { tp: [0], fp: [0], thresholds: [Number.POSITIVE_INFINITY] }
  let tp = 0,
    fp = 0
  for (let s = 0; s < order.length; ) {
    const score = scores[order[s]]
    // One group of tied scores moves the point once: every tied row changes side at the same threshold.
    for (; s < order.length && scores[order[s]] === score; s++) {
      if (labels[order[s]] > 0.5) tp++
      else fp++
    }
    cum.tp.push(tp)
    cum.fp.push(fp)
    cum.thresholds.push(score)
  }
  const roc = P > 0 && N > 0 ? { fpr: cum.fp.map(f => f / N), tpr: cum.tp.map(t => t / P) } : { fpr: [], tpr: [] }
  const pr = { recall: [] as number[], precision: [] as number[] }
  if (P > 0) {
    pr.recall.push(0)
    pr.precision.push(1)
    for (let i = 1; i < cum.tp.length; i++) {
      pr.recall.push(cum.tp[i] / P)
      pr.precision.push(cum.tp[i] / (cum.tp[i] + cum.fp[i]))
    }
  }
  return {
    positives: P,
    negatives: N,
    roc,
    thresholds: roc.fpr.length ? cum.thresholds : [],
    pr,
    auc: roc.fpr.length ? trapezoidArea(roc.fpr, roc.tpr) : Number.NaN,
  }
}

/** Area under the polyline through (xs[i], ys[i]), xs non-decreasing, by the trapezoid rule. */
export function trapezoidArea(xs: readonly number[], ys: readonly number[]): number {
  let area = 0
  for (let i = 1; i < xs.length; i++) area += ((xs[i] - xs[i - 1]) * (ys[i] + ys[i - 1])) / 2
  return area
}

/** The confusion matrix at `threshold`: score ≥ threshold is called positive. */
export function confusionAt(scores: ArrayLike<number>, labels: ArrayLike<number>, threshold: number): Confusion {
  const c: Confusion = { tp: 0, fp: 0, tn: 0, fn: 0 }
  for (let i = 0; i < scores.length; i++) {
    const called = scores[i] >= threshold,
      positive = labels[i] > 0.5
    if (called) positive ? c.tp++ : c.fp++
    else positive ? c.fn++ : c.tn++
  }
  return c
}

/**
 * At most `max` points of a curve for drawing (every k-th, the last always kept): a curve of a
 * point per distinct score can have one per validation row.
 */
export function thinCurve(xs: readonly number[], ys: readonly number[], max = 400): { xs: number[]; ys: number[] } {
  if (xs.length <= max) return { xs: [...xs], ys: [...ys] }
  const step = Math.ceil(xs.length / max)
  const out = { xs: [] as number[], ys: [] as number[] }
  for (let i = 0; i < xs.length; i += step) {
    out.xs.push(xs[i])
    out.ys.push(ys[i])
  }
  if (out.xs[out.xs.length - 1] !== xs[xs.length - 1] || out.ys[out.ys.length - 1] !== ys[ys.length - 1]) {
    out.xs.push(xs[xs.length - 1])
    out.ys.push(ys[ys.length - 1])
  }
  return out
}
