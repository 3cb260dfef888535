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
import { checkRowValues, checkWeightSum, rowColumnNames } from './row-columns.ts'
import { utf8Strings } from '../data/decode.ts'
import { buildDictionary, encodeCategorical } from './features.ts'

/**
 * Which labels each objective can fit (XGBoost's objective names, every family), with the words
 * of the refusal: 0/1 classes, probabilities in [0, 1], counts ≥ 0, positive amounts, values
 * above −1, or any finite number. XGBoost's own check where it has one (CheckLabel /
 * label_correct); binary:hinge (unchecked there, "expects labels in [0, 1]") needs 0 or 1 here.
 */
const LABEL_RULES = {
  'binary:logistic': [(y: number) => y === 0 || y === 1, 'labels 0 or 1'],
  'binary:hinge': [(y: number) => y === 0 || y === 1, 'labels 0 or 1'],
  'reg:logistic': [(y: number) => y >= 0 && y <= 1, 'labels in [0, 1]'],
  'binary:logitraw': [(y: number) => y >= 0 && y <= 1, 'labels in [0, 1]'],
  'reg:squarederror': [Number.isFinite, 'finite labels'],
  'reg:pseudohubererror': [Number.isFinite, 'finite labels'],
  'reg:absoluteerror': [Number.isFinite, 'finite labels'],
  'reg:quantileerror': [Number.isFinite, 'finite labels'],
  'reg:squaredlogerror': [(y: number) => y > -1 && Number.isFinite(y), 'labels > −1'],
  'count:poisson': [(y: number) => y >= 0 && Number.isFinite(y), 'labels ≥ 0'],
  'reg:tweedie': [(y: number) => y >= 0 && Number.isFinite(y), 'labels ≥ 0'],
  'reg:gamma': [(y: number) => y > 0 && Number.isFinite(y), 'labels > 0'],
  // The class index: checkLabels adds the bound num_class − 1 when it knows num_class.
  'multi:softprob': [(y: number) => Number.isInteger(y) && y >= 0, 'integer class labels 0, 1, …'],
  'multi:softmax': [(y: number) => Number.isInteger(y) && y >= 0, 'integer class labels 0, 1, …'],
  // Relevance degrees; rank:ndcg's gain and rank:map's 0/1 add theirs (rank-objective.ts checkRankLabels).
  'rank:ndcg': [(y: number) => y >= 0 && Number.isFinite(y), 'relevance labels ≥ 0'],
  'rank:pairwise': [(y: number) => y >= 0 && Number.isFinite(y), 'relevance labels ≥ 0'],
  'rank:map': [(y: number) => y === 0 || y === 1, 'labels 0 or 1 (relevant or not)'],
} as const satisfies Record<string, readonly [(y: number) => boolean, string]>

/** What a model's labels mean: an objective's XGBoost name (LABEL_RULES). */
export type LabelObjective = keyof typeof LABEL_RULES

/**
 * Refuses labels the objective cannot fit, naming the label column, the objective, what it needs
 * and the first bad value (LABEL_RULES); multi:* labels also below `numClass` when given (XGBoost:
 * "label must be in [0, num_class)").
 */
export function checkLabels(
  objective: LabelObjective,
  labels: ArrayLike<number>,
  labelName = 'label',
  numClass?: number,
): void {
  const [rule, what] = LABEL_RULES[objective]
  const bounded = numClass !== undefined && isMulticlassLabel(objective)
  const ok = bounded ? (y: number) => rule(y) && y < numClass : rule
  const need = bounded ? `integer class labels 0 … ${numClass - 1} (num_class = ${numClass})` : what
  for (let i = 0; i < labels.length; i++) {
    const y = labels[i]
    if (!ok(y)) throw new RangeError(`label column ${labelName}: ${objective} needs ${need}, got ${y} at row ${i}`)
  }
}

function isMulticlassLabel(objective: LabelObjective): boolean {
  return objective === 'multi:softprob' || objective === 'multi:softmax'
}

/**
 * num_class inferred from class labels (XGBoost needs it given; snaptrain infers it when 0): the
 * largest label + 1 over every label array given (training and validation rows).
 */
export function inferNumClass(...labelSets: ArrayLike<number>[]): number {
  let max = -1
  for (const labels of labelSets) for (let i = 0; i < labels.length; i++) if (labels[i] > max) max = labels[i]
  return max + 1
}

/**
 * base_score when the parameters give none (XGBoost ≥ 2 `InitEstimation`), in prediction space, for
 * every XGBoost family (gbtree, gblinear): the weighted label mean, clamped into (0, 1) for logistic
 * objectives and to > 0 for the log-link ones (count:poisson, reg:gamma, reg:tweedie). This is XGBoost's `FitInterceptGlmLike` (the intercept with zero gradient for these GLM
 * losses); XGBoost 2.0's `FitIntercept` took one Newton step from margin 0 instead (the GBDT's
 * `newtonStepBaseScore`).
 */
export function estimateBaseScore(
  objective: LabelObjective,
  labels: ArrayLike<number>,
  weights?: ArrayLike<number>,
): number {
  const [sw, swy] = labelSums(labels, weights)
  return baseScoreOfSums(objective, sw, swy)
}

/** [Σw, Σw·y] of `labels` (weights 1 when absent): what estimateBaseScore reads, summable over ranks. */
export function labelSums(labels: ArrayLike<number>, weights?: ArrayLike<number>): [number, number] {
  let sw = 0,
    swy = 0
  for (let i = 0; i < labels.length; i++) {
    const w = weights ? weights[i] : 1
    sw += w
    swy += w * labels[i]
  }
  return [sw, swy]
}

/** estimateBaseScore from the label sums [Σw, Σw·y] (a ranked run adds every rank's labelSums). */
export function baseScoreOfSums(objective: LabelObjective, sw: number, swy: number): number {
  // Multiclass: XGBoost's DefaultBaseScore 0.5 on every class margin (1.7.4; 2.0's multiclass
  // objective keeps ObjFunction::InitEstimation, which estimates nothing and returns 0.5 too).
  if (isMulticlassLabel(objective)) return 0.5
  // Ranking: XGBoost 2.0's FitIntercept takes one Newton step from 0, and a group's pair
  // gradients sum to 0: base_score 0 (a constant shifts no ranking).
  if (objective.startsWith('rank:')) return 0
  const logistic = objective === 'binary:logistic' || objective === 'reg:logistic'
  const log = objective === 'count:poisson' || objective === 'reg:gamma' || objective === 'reg:tweedie'
  const mean = sw > 0 ? swy / sw : logistic ? 0.5 : 0
  const eps = 1e-6 // logit(0) / logit(1) / log(0) would be infinite margins
  if (log) return Math.max(eps, mean)
  if (!logistic) return mean
  return Math.min(1 - eps, Math.max(eps, mean))
}

/**
 * The label column of the filtered table in table order (read in Node, label and the row columns
 * only): throws when the filter leaves no rows, a label is null, or a weight or base margin is
 * one row-columns.ts refuses, naming the filter, or the column, file and row.
 * With `classLabels` (a multi:* objective) a string label column is read as its classes: each
 * row's code in the sorted distinct values (dataset.ts labelClasses, as training codes them).
 */
export async function readLabels(
  snapshot: Snapshot,
  config: Pick<TrainConfig, 'table' | 'label' | 'filter' | 'weight' | 'baseMargin' | 'qid'> &
    Parameters<typeof httpFor>[0],
  classLabels = false,
): Promise<Float32Array> {
  const http = httpFor(config, config.table)
  const extra = rowColumnNames(config)
  const plan = await planScan(snapshot, { columns: [config.label, ...extra], filter: config.filter, ...http })
  const n = plan.stats.rows
  if (n === 0) throw noRowsError(config.filter, config.table, snapshot.version)
  const stringLabel = snapshot.schema.fields.find(f => f.name === config.label)?.type === 'string'
  if (stringLabel && !classLabels)
    throw new RangeError(
      `label column ${config.label}: a string label needs a multi:* objective (its values become the classes)`,
    )
  const labels = new Float32Array(n)
  const text = stringLabel ? new Array<string | null>(n) : undefined
  // A string query id (row-columns.ts qidCodes): read as text, only its nulls are checked here.
  const stringQid =
    config.qid !== undefined && snapshot.schema.fields.find(f => f.name === config.qid)?.type === 'string'
  const loader = createLoader(plan, {
    assign: { epoch: 0, worldSize: 1, rank: 0 },
    batchSize: 65_536,
    spec: Object.fromEntries([
      [config.label, stringLabel ? ('utf8' as const) : ('float32' as const)],
      ...extra.map(c => [c, stringQid && c === config.qid ? ('utf8' as const) : ('float32' as const)]),
    ]),
    workers: 0,
    ids: true,
    http,
  })
  let at = 0,
    anyWeight = false
  try {
    for await (const batch of loader.batches()) {
      const strings = text && utf8Strings(batch.columns[config.label])
      if (strings) strings.forEach((v, i) => (text![at + i] = v))
      const y = strings
        ? Float32Array.from(strings, v => (v === null ? NaN : 0))
        : (batch.columns[config.label].values as Float32Array)
      const nullAt = y.findIndex(v => Number.isNaN(v))
      if (nullAt >= 0) {
        const file = plan.files[plan.units[batch.ids!.unit[nullAt]].fileIndex].path
        throw new RangeError(`label column ${config.label}: null at ${file} row ${batch.ids!.row[nullAt]}`)
      }
      if (extra.length > 0) {
        const file = (i: number) => plan.files[plan.units[batch.ids!.unit[i]].fileIndex].path
        const rowValues = {
          weights: config.weight === undefined ? undefined : (batch.columns[config.weight].values as Float32Array),
          baseMargin:
            config.baseMargin === undefined ? undefined : (batch.columns[config.baseMargin].values as Float32Array),
          qid:
            config.qid === undefined
              ? undefined
              : stringQid
                ? Float32Array.from(utf8Strings(batch.columns[config.qid]), v => (v === null ? NaN : 0))
                : (batch.columns[config.qid].values as Float32Array),
        }
        checkRowValues(config, {
          rowValues,
          paths: Array.from({ length: batch.size }, (_, i) => file(i)),
          rows: batch.ids!.row,
        })
        if (rowValues.weights) anyWeight ||= rowValues.weights.some(w => w > 0)
      }
      labels.set(y, at)
      at += batch.size
    }
  } finally {
    await loader.close()
  }
  if (config.weight !== undefined && !anyWeight) checkWeightSum(config, new Float32Array(1))
  return text ? encodeCategorical(text, buildDictionary(text)) : labels
}
