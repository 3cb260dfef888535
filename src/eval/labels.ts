/**
 * Labels, for every family: which labels an objective can fit (checkLabels), the label-mean base
 * score (estimateBaseScore) and a table's label
 * column read in Node before a browser starts (readLabels: the precheck's one read of the data).
 * N = rows.
 */
import { createLoader } from '../data/loader.ts'
import { noRowsError, planScan } from '../data/plan.ts'
import type { Snapshot } from '../table/types.ts'
import { httpFor, type TrainConfig } from '../run/config.ts'

/** What a model's labels mean: 0/1 classes, probabilities in [0, 1], or any finite number (XGBoost's objective names). */
export type LabelObjective = 'binary:logistic' | 'reg:logistic' | 'reg:squarederror'

/**
 * Refuses labels the objective cannot fit, naming the label column and the first bad value:
 * binary:logistic needs 0/1, reg:logistic [0, 1], squared error finite numbers.
 */
export function checkLabels(objective: LabelObjective, labels: ArrayLike<number>, labelName = 'label'): void {
  for (let i = 0; i < labels.length; i++) {
    const y = labels[i]
    const bad =
      objective === 'binary:logistic'
        ? !(y === 0 || y === 1)
        : objective === 'reg:logistic'
          ? !(y >= 0 && y <= 1)
          : !Number.isFinite(y)
    if (bad) {
      const need =
        objective === 'binary:logistic'
          ? 'labels 0 or 1'
          : objective === 'reg:logistic'
            ? 'labels in [0, 1]'
            : 'finite labels'
      throw new RangeError(`label column ${labelName}: ${objective} needs ${need}, got ${y} at row ${i}`)
    }
  }
}

/**
 * base_score when the parameters give none (XGBoost ≥ 2 `InitEstimation`), in prediction space, for
 * every XGBoost family (gbtree, gblinear): the weighted label mean, clamped into (0, 1) for logistic
 * objectives. This is XGBoost's `FitInterceptGlmLike` (the intercept with zero gradient for these GLM
 * losses); XGBoost 2.0's `FitIntercept` took one Newton step from margin 0 instead (the GBDT's
 * `newtonStepBaseScore`).
 */
export function estimateBaseScore(
  objective: LabelObjective,
  labels: ArrayLike<number>,
  weights?: ArrayLike<number>,
): number {
  let sw = 0,
    swy = 0
  for (let i = 0; i < labels.length; i++) {
    const w = weights ? weights[i] : 1
    sw += w
    swy += w * labels[i]
  }
  const logistic = objective !== 'reg:squarederror'
  const mean = sw > 0 ? swy / sw : logistic ? 0.5 : 0
  if (!logistic) return mean
  const eps = 1e-6 // logit(0) / logit(1) would be infinite margins
  return Math.min(1 - eps, Math.max(eps, mean))
}

/**
 * The label column of the filtered table in table order (read in Node, label only): throws when
 * the filter leaves no rows or a label is null, naming the filter, or the column, file and row.
 */
export async function readLabels(
  snapshot: Snapshot,
  config: Pick<TrainConfig, 'table' | 'label' | 'filter'> & Parameters<typeof httpFor>[0],
): Promise<Float32Array> {
  const http = httpFor(config, config.table)
  const plan = await planScan(snapshot, { columns: [config.label], filter: config.filter, ...http })
  const n = plan.stats.rows
  if (n === 0) throw noRowsError(config.filter, config.table, snapshot.version)
  const labels = new Float32Array(n)
  const loader = createLoader(plan, {
    assign: { epoch: 0, worldSize: 1, rank: 0 },
    batchSize: 65_536,
    spec: { [config.label]: 'float32' },
    workers: 0,
    ids: true,
    http,
  })
  let at = 0
  try {
    for await (const batch of loader.batches()) {
      const y = batch.columns[config.label].values as Float32Array
      const nullAt = y.findIndex(v => Number.isNaN(v))
      if (nullAt >= 0) {
        const file = plan.files[plan.units[batch.ids!.unit[nullAt]].fileIndex].path
        throw new RangeError(`label column ${config.label}: null at ${file} row ${batch.ids!.row[nullAt]}`)
      }
      labels.set(y, at)
      at += batch.size
    }
  } finally {
    await loader.close()
  }
  return labels
}
