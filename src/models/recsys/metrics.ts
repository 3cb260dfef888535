/**
 * Validation metrics a recommender reports beside auc and logloss: grouped AUC (gauc) and
 * calibration, and which of them early stopping and a sweep may optimise. N = validation rows.
 */
import { auc, evaluate } from '../../eval/metrics.ts'

/** Metrics early stopping (`early_stopping_metric`) and a sweep (`--metric`) may optimise. */
export const RECSYS_TARGET_METRICS = ['auc', 'logloss', 'gauc'] as const
export type RecsysTargetMetric = (typeof RECSYS_TARGET_METRICS)[number]

/**
 * Why calibration is no target: it is 1 for any model that predicts the base rate, so optimising
 * it (or |1 − calibration|) rewards a constant model. It is reported, never optimised.
 */
export const CALIBRATION_NOT_A_TARGET =
  "calibration is reported, not optimised (a constant prediction of the base rate scores a perfect 1); choose 'auc', 'logloss' or 'gauc'"

/**
 * Grouped AUC as recommenders define it: the AUC of each group's rows (`groups[i]` = the group
 * column's value of row i), over the groups that hold both classes (a group of only clicks or only
 * non-clicks has no AUC and is skipped), averaged weighted by each counted group's row count.
 * NaN when no group holds both classes.
 */
export function groupedAuc(pred: ArrayLike<number>, labels: ArrayLike<number>, groups: ArrayLike<number>): number {
  const rowsOf = new Map<number, number[]>()
  for (let i = 0; i < pred.length; i++) {
    const g = groups[i]
    let rows = rowsOf.get(g)
    if (!rows) rowsOf.set(g, (rows = []))
    rows.push(i)
  }
  let sum = 0,
    weight = 0
  for (const rows of rowsOf.values()) {
    const a = auc(
      rows.map(i => pred[i]),
      rows.map(i => labels[i]),
    )
    if (Number.isNaN(a)) continue
    sum += a * rows.length
    weight += rows.length
  }
  return weight > 0 ? sum / weight : NaN
}

/** Mean prediction / positive rate (1 = calibrated on average; NaN without positives). */
export function calibration(pred: ArrayLike<number>, labels: ArrayLike<number>): number {
  let p = 0,
    y = 0
  for (let i = 0; i < pred.length; i++) {
    p += pred[i]
    y += labels[i] > 0.5 ? 1 : 0
  }
  return y > 0 ? p / y : NaN
}

/** The validation metrics of one evaluation; gauc only with the rows' groups. */
export interface ValidMetrics {
  auc: number
  logloss: number
  calibration: number
  gauc?: number
}

/** Every validation metric of predictions `pred` (N) against `labels`, grouped by `groups` when given. */
export function validMetrics(
  pred: ArrayLike<number>,
  labels: ArrayLike<number>,
  groups?: ArrayLike<number>,
): ValidMetrics {
  const m: ValidMetrics = {
    auc: auc(pred, labels),
    logloss: evaluate('logloss', pred, labels),
    calibration: calibration(pred, labels),
  }
  if (groups) m.gauc = groupedAuc(pred, labels, groups)
  return m
}
