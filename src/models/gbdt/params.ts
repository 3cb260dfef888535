/**
 * XGBoost training parameters: names, aliases, defaults and validation (XGBoost's `TrainParam`,
 * `LearnerTrainParam`, `GBTreeTrainParam`). Out-of-range values are refused with a RangeError
 * naming the parameter and the allowed range, so a user who knows XGBoost gets the same meaning.
 */
import type { GbdtParams } from './types.ts'
import { numericParam, oneOf, type NumericRange } from '../../eval/params.ts'
import { parseInteraction, parseMonotone } from './constraints.ts'
import { metricBase, MULTICLASS_METRICS, parseMetric } from '../../eval/metrics.ts'
import {
  defaultMetricName,
  isLogistic,
  isMulticlass,
  objectiveSpec,
  objectiveTask,
  OBJECTIVE_NAMES,
  type ObjectiveParams,
} from './objective.ts'

type Metric = GbdtParams['eval_metric'][number]

/** Scikit-learn style aliases → XGBoost's canonical names. */
export const PARAM_ALIASES: Readonly<Record<string, keyof GbdtParams>> = {
  n_estimators: 'num_round',
  num_boost_round: 'num_round',
  learning_rate: 'eta',
  reg_lambda: 'lambda',
  reg_alpha: 'alpha',
  min_split_loss: 'gamma',
  random_state: 'seed',
  max_leaf_nodes: 'max_leaves',
}

/** XGBoost's defaults (xgb.train: num_boost_round = 10; base_score estimated when absent). */
export const DEFAULT_PARAMS: Readonly<GbdtParams> = {
  objective: 'binary:logistic',
  eval_metric: ['logloss'],
  num_round: 10,
  eta: 0.3,
  max_depth: 6,
  min_child_weight: 1,
  lambda: 1,
  alpha: 0,
  gamma: 0,
  subsample: 1,
  colsample_bytree: 1,
  colsample_bylevel: 1,
  colsample_bynode: 1,
  max_bin: 256,
  scale_pos_weight: 1,
  seed: 0,
  grow_policy: 'depthwise',
  max_leaves: 0,
  max_delta_step: 0,
  enable_categorical: false,
  max_cat_to_onehot: 4,
  max_cat_threshold: 64,
  categorical: [],
  monotone_constraints: [],
  interaction_constraints: [],
  huber_slope: 1,
  tweedie_variance_power: 1.5,
  num_class: 0,
  lambdarank_pair_method: 'topk',
  ndcg_exp_gain: true,
}

/** Parameters without a default, accepted when given. */
const OPTIONAL = new Set([
  'base_score',
  'early_stopping_rounds',
  'quantile_alpha',
  'lambdarank_num_pair_per_sample',
  'lambdarank_unbiased',
])

/** count:poisson's max_delta_step when none is given (XGBoost's kMaxDeltaStepDefaultValue, an f32), for the tree and the objective. */
export const POISSON_MAX_DELTA_STEP = Math.fround(0.7)

/** Accepted but without effect here: they only select XGBoost's implementation or verbosity. */
const IGNORED = new Set(['tree_method', 'booster', 'verbosity', 'nthread', 'n_jobs', 'device', 'silent'])

/** Default eval metric per objective (XGBoost's `ObjFunction::DefaultEvalMetric`). */
export function defaultMetric(p: ObjectiveParams): Metric {
  return parseMetric(defaultMetricName(p), 'objective')
}

/** Numeric checks: [name, kind, lo, hi, loOpen, hiOpen]. */
const NUMERIC: ReadonlyArray<NumericRange<keyof GbdtParams>> = [
  ['num_round', 'int', 1, 1e6, false, false],
  ['eta', 'num', 0, 1, true, false],
  ['max_depth', 'int', 0, 16, false, false],
  ['min_child_weight', 'num', 0, Infinity, false, true],
  ['lambda', 'num', 0, Infinity, false, true],
  ['alpha', 'num', 0, Infinity, false, true],
  ['gamma', 'num', 0, Infinity, false, true],
  ['subsample', 'num', 0, 1, true, false],
  ['colsample_bytree', 'num', 0, 1, true, false],
  ['colsample_bylevel', 'num', 0, 1, true, false],
  ['colsample_bynode', 'num', 0, 1, true, false],
  ['max_bin', 'int', 2, 256, false, false],
  ['scale_pos_weight', 'num', 0, Infinity, true, true],
  ['seed', 'int', -(2 ** 31), 2 ** 32 - 1, false, false],
  ['early_stopping_rounds', 'int', 1, 1e6, false, false],
  ['max_leaves', 'int', 0, 2 ** 16, false, false],
  ['max_delta_step', 'num', 0, Infinity, false, true],
  ['base_score', 'num', -Infinity, Infinity, true, true],
  ['max_cat_to_onehot', 'int', 1, 2 ** 31 - 1, false, false],
  ['max_cat_threshold', 'int', 1, 2 ** 31 - 1, false, false],
  ['huber_slope', 'num', 0, Infinity, true, true],
  ['tweedie_variance_power', 'num', 1, 2, true, true],
  ['quantile_alpha', 'num', 0, 1, true, true],
  ['num_class', 'int', 0, 2 ** 16, false, false],
  ['lambdarank_num_pair_per_sample', 'int', 1, 2 ** 32 - 2, false, false],
]

/**
 * Validates raw parameters (XGBoost names or aliases; numbers may be given as numeric strings, as
 * XGBoost's own config does) and fills in defaults. Throws RangeError naming the parameter.
 */
export function parseParams(raw: Record<string, unknown>): GbdtParams {
  const out: GbdtParams = {
    ...DEFAULT_PARAMS,
    eval_metric: [],
    categorical: [],
    monotone_constraints: [],
    interaction_constraints: [],
  }
  const seen = new Map<string, string>()
  for (const [given, value] of Object.entries(raw)) {
    if (value === undefined || IGNORED.has(given)) continue
    const name = PARAM_ALIASES[given] ?? given
    if (!(name in DEFAULT_PARAMS) && !OPTIONAL.has(name)) throw unknownParam(given)
    if (seen.has(name)) throw new RangeError(`${given}: given twice (also as ${seen.get(name)})`)
    seen.set(name, given)
    assign(out, name as keyof GbdtParams, given, value)
  }
  if (out.objective === 'count:poisson' && !seen.has('max_delta_step')) out.max_delta_step = POISSON_MAX_DELTA_STEP
  if (out.eval_metric.length === 0) out.eval_metric = [defaultMetric(out)]
  checkCombination(out)
  return out
}

function assign(out: GbdtParams, name: keyof GbdtParams, given: string, value: unknown): void {
  const o = out as unknown as Record<string, unknown>
  if (name === 'objective') o[name] = oneOf(given, value, OBJECTIVE_NAMES)
  else if (name === 'quantile_alpha') o[name] = quantileAlpha(given, value)
  else if (name === 'grow_policy') o[name] = oneOf(given, value, ['depthwise', 'lossguide'] as const)
  else if (name === 'eval_metric') o[name] = metricList(given, value)
  else if (name === 'enable_categorical' || name === 'ndcg_exp_gain') o[name] = flag(given, value)
  else if (name === 'lambdarank_pair_method') o[name] = oneOf(given, value, ['topk', 'mean'] as const)
  else if ((name as string) === 'lambdarank_unbiased') unbiased(given, value)
  else if (name === 'categorical') o[name] = columnList(given, value)
  else if (name === 'monotone_constraints') o[name] = parseMonotone(given, value)
  else if (name === 'interaction_constraints') o[name] = parseInteraction(given, value)
  else o[name] = numeric(name, given, value)
}

function numeric(name: keyof GbdtParams, given: string, value: unknown): number {
  return numericParam(NUMERIC.find(s => s[0] === name)!, given, value)
}

/** XGBoost 2.0's unbiased LambdaMART (position-bias estimation) is not implemented: only false is accepted. */
function unbiased(given: string, value: unknown): void {
  if (flag(given, value))
    throw new RangeError(`${given}: unbiased LambdaMART (position-bias estimation) is not supported; leave it false`)
}

/** A boolean: true / false, also as the strings and 1 / 0 (XGBoost's config spells it either way). */
function flag(given: string, value: unknown): boolean {
  if (value === true || value === 'true' || value === 1 || value === '1') return true
  if (value === false || value === 'false' || value === 0 || value === '0') return false
  throw new RangeError(`${given}: must be true or false, got ${JSON.stringify(value)}`)
}

/** Column names: an array of strings or one comma-separated string. */
function columnList(given: string, value: unknown): string[] {
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value]
  const names = list.map(c => (typeof c === 'string' ? c.trim() : c))
  const bad = names.find(c => typeof c !== 'string' || c === '')
  if (bad !== undefined) throw new RangeError(`${given}: must list column names, got ${JSON.stringify(value)}`)
  return [...new Set(names as string[])]
}

/** eval_metric: names as XGBoost prints them (parseMetric: error@t, tweedie-nloglik@ρ), each once (XGBoost keeps the first). */
function metricList(given: string, value: unknown): Metric[] {
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value]
  return [...new Set(list.map(m => parseMetric(m, given)))]
}

function checkCombination(p: GbdtParams): void {
  if (p.max_depth === 0 && !(p.grow_policy === 'lossguide' && p.max_leaves > 0)) {
    throw new RangeError(
      `max_depth: must be an integer in [1, 16], got 0 (0 = unlimited needs grow_policy lossguide with max_leaves > 0)`,
    )
  }
  if (p.categorical.length > 0 && !p.enable_categorical) {
    throw new RangeError(
      `categorical: splitting ${p.categorical.join(', ')} as categories needs enable_categorical=true`,
    )
  }
  if (isMulticlass(p.objective) && p.num_class === 1)
    throw new RangeError(`num_class: ${p.objective} needs at least 2 classes, got 1 (0 = inferred from the labels)`)
  if (!isMulticlass(p.objective) && p.num_class > 1)
    throw new RangeError(
      `num_class: only multi:softprob and multi:softmax have classes, got num_class ${p.num_class} with ${p.objective}`,
    )
  if (!p.ndcg_exp_gain && (p.objective === 'rank:map' || p.objective === 'rank:pairwise'))
    throw new RangeError(`ndcg_exp_gain: the NDCG gain cannot be set for ${p.objective} (XGBoost 2.0 refuses it too)`)
  if (p.max_leaves === 1) throw new RangeError('max_leaves: must be 0 (unlimited) or ≥ 2, got 1')
  if (p.objective === 'reg:quantileerror' && p.quantile_alpha === undefined)
    throw new RangeError('quantile_alpha: reg:quantileerror needs quantile_alpha, one number in (0, 1)')
  checkMetrics(p)
  if (p.eval_metric.includes('quantile') && p.quantile_alpha === undefined)
    throw new RangeError('eval_metric: quantile needs quantile_alpha (the quantile it scores), one number in (0, 1)')
  if (isLogistic(p.objective) && p.base_score !== undefined && !(p.base_score > 0 && p.base_score < 1)) {
    throw new RangeError(`base_score: must be in (0, 1) for ${p.objective}, got ${p.base_score}`)
  }
  if (objectiveSpec(p.objective).link === 'log' && p.base_score !== undefined && !(p.base_score > 0))
    throw new RangeError(
      `base_score: must be > 0 for ${p.objective} (its margin is log(base_score)), got ${p.base_score}`,
    )
}

/**
 * eval_metric against the objective's predictions (XGBoost 1.7.4 fails these at its first
 * evaluation, all but mphe, whose multiclass value means nothing): multi:* gives K class probabilities a row, which only mlogloss, merror and the
 * one-vs-rest auc / aucpr score, and mlogloss / merror score nothing else. The ranking metrics'
 * query groups are the run's (--qid): the family's precheck. Throws naming eval_metric.
 */
export function checkMetrics(p: Pick<GbdtParams, 'objective' | 'eval_metric'>): void {
  const multi = isMulticlass(p.objective)
  for (const m of p.eval_metric) {
    const base = metricBase(m) as (typeof MULTICLASS_METRICS)[number]
    if (multi && !MULTICLASS_METRICS.includes(base))
      throw new RangeError(
        `eval_metric: ${m} scores one prediction a row, but ${p.objective} gives num_class probabilities a row; its metrics are ${MULTICLASS_METRICS.join(', ')}`,
      )
    if (!multi && (base === 'mlogloss' || base === 'merror'))
      throw new RangeError(
        `eval_metric: ${m} scores the class probabilities of multi:softprob or multi:softmax (num_class), not ${p.objective}${isLogistic(p.objective) ? `; for two classes use ${base === 'mlogloss' ? 'logloss' : 'error'}` : ''}`,
      )
  }
}

/**
 * quantile_alpha: one number in (0, 1), also as a one-element list ("[0.5]", XGBoost's form).
 * Several quantiles are several outputs per row, which needs the multi-output trees multiclass
 * brings: refused for now.
 */
function quantileAlpha(given: string, value: unknown): number {
  let v = value
  if (typeof v === 'string' && /^\s*[[(]/.test(v))
    v = v
      .trim()
      .slice(1, -1)
      .split(',')
      .filter(x => x.trim() !== '')
  if (Array.isArray(v)) {
    if (v.length !== 1)
      throw new RangeError(
        `${given}: one quantile only (several quantiles = several outputs per row, not supported yet), got ${JSON.stringify(value)}`,
      )
    v = v[0]
  }
  return numeric('quantile_alpha', given, v)
}

function unknownParam(given: string): RangeError {
  const names = [...Object.keys(DEFAULT_PARAMS), ...OPTIONAL, ...Object.keys(PARAM_ALIASES)]
  const best = names.map(n => [n, editDistance(given, n)] as const).sort((a, b) => a[1] - b[1])[0]
  const hint = best && best[1] <= Math.max(2, given.length / 3) ? ` (did you mean ${best[0]}?)` : ''
  return new RangeError(`unknown parameter ${given}${hint}`)
}

/** Levenshtein distance, for the did-you-mean hint. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const cur = [i]
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    prev = cur
  }
  return prev[b.length]
}

/** The GBDT parameters a default metric's name depends on besides the objective (ndcg@32, tweedie-nloglik@1.5). */
const OBJECTIVE_METRIC_PARAMS = new Set([
  'lambdarank_pair_method',
  'lambdarank_num_pair_per_sample',
  'tweedie_variance_power',
])

/**
 * The metric a GBDT sweep optimises when it names none, from its fixed parameters: the objective's
 * own default eval metric (XGBoost's DefaultEvalMetric: mlogloss for multi:*, ndcg@32 for rank:ndcg,
 * rmse …), but auc for a binary objective (a sweep's long-standing default) or when the objective
 * is not fixed or not valid (the sweep's own checks name that).
 */
export function sweepDefaultMetric(fixed: Readonly<Record<string, unknown>>): string {
  const objective = fixed.objective
  if (typeof objective !== 'string') return 'auc'
  try {
    if (objectiveTask(objective) === 'binary') return 'auc'
    const named = Object.entries(fixed).filter(([k]) => k === 'objective' || OBJECTIVE_METRIC_PARAMS.has(k))
    return defaultMetricName(parseParams(Object.fromEntries(named)))
  } catch {
    return 'auc'
  }
}
