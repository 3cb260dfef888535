/**
 * Objectives (XGBoost 1.7.4 `RegLossObj` and its siblings in src/objective/; reg:quantileerror as
 * XGBoost 2.0): one table entry per objective with its per-row gradient/hessian and loss (f64: the
 * formulas; the training kernels' f32 versions are src/kernels/gbdt/gradient.ref.ts and
 * shaders/gbdt/gradient.wgsl), the prediction transform, base_score ↔ margin, the default metric,
 * the model file's objective config and whether leaf values are refreshed to a residual quantile
 * after each tree (XGBoost `UpdateTreeLeaf`). A new objective is a new entry; one output per row
 * per row except multiclass (K margins per row: transformRows, gradient.ref.ts softmaxGradient). N = rows. Margins are raw scores; predictions are after the transform.
 */
import type { GbdtParams } from './types.ts'
import {
  OBJECTIVE_ABSOLUTE,
  OBJECTIVE_GAMMA,
  OBJECTIVE_HINGE,
  OBJECTIVE_LOGISTIC,
  OBJECTIVE_POISSON,
  OBJECTIVE_PSEUDO_HUBER,
  OBJECTIVE_QUANTILE,
  OBJECTIVE_SQUARED_ERROR,
  OBJECTIVE_SOFTMAX,
  OBJECTIVE_SQUARED_LOG,
  OBJECTIVE_TWEEDIE,
  LOGISTIC_MIN_HESS,
  softmaxAt,
} from '../../kernels/gbdt/layout.ts'
import { cFloat, xgboostSigmoid } from '../../util/float32.ts'
import { numPair, rankConfigFromJson, rankDefaultMetric } from './rank-objective.ts'

export type Objective = GbdtParams['objective']

/** The parameters an objective reads (XGBoost names). */
export type ObjectiveParams = Pick<
  GbdtParams,
  | 'objective'
  | 'scale_pos_weight'
  | 'huber_slope'
  | 'max_delta_step'
  | 'tweedie_variance_power'
  | 'quantile_alpha'
  | 'num_class'
  | 'lambdarank_pair_method'
  | 'lambdarank_num_pair_per_sample'
  | 'ndcg_exp_gain'
>

/**
 * How base_score maps to the margin (XGBoost `ProbToMargin`): identity, logit (base_score a
 * probability in (0, 1)) or log (base_score > 0).
 */
export type Link = 'identity' | 'logit' | 'log'

/**
 * The task an objective learns, which decides the results a run shows: 'binary' (0/1 labels, one
 * score per row to threshold), 'regression' (a number per row: reg:*, count:*, reg:logistic's
 * labels in [0, 1]), 'multiclass' (labels 0…K−1, K probabilities per row), 'ranking' (relevance
 * within query groups). XGBoost 1.7.4's ObjInfo but for binary:logitraw and binary:hinge, which
 * it calls kRegression (regression_obj.cu, hinge.cu) and which are binary here: 0/1 labels.
 */
export type Task = 'binary' | 'regression' | 'multiclass' | 'ranking'

/** One objective. `c` = the parameters (ObjectiveParams). */
interface ObjectiveSpec {
  /** What the label and predictions are (the page's result view, the quality tables): Task. */
  task: Task
  /** Gradient kernel id (layout.ts OBJECTIVE_*). */
  code: number
  link: Link
  /** Prediction from a margin (XGBoost PredTransform). */
  transform: (m: number) => number
  /** (g, h) at margin m for label y and weight w (w already scaled by scale_pos_weight where it applies). */
  grad: (m: number, y: number, w: number, c: ObjectiveParams) => [number, number]
  /** The loss whose derivative is grad's g (for checks); h is its second derivative except where `hessNote` says. */
  loss: (m: number, y: number, w: number, c: ObjectiveParams) => number
  /** XGBoost's RegLossObj: the weight of rows labelled exactly 1 is multiplied by scale_pos_weight. */
  posWeight?: boolean
  /** Leaf values become eta × this quantile of the leaf's residuals after each tree (UpdateTreeLeaf). */
  leafQuantile?: (c: ObjectiveParams) => number
  /** XGBoost's DefaultEvalMetric. */
  metric: (c: ObjectiveParams) => string
  /** The objective's parameter object in the model file, as XGBoost 1.7.4 saves it ([key, fields]). */
  config?: (c: ObjectiveParams) => [string, Record<string, string>]
  /** Further parameter objects of the model file (ranking: XGBoost 2.0's lambdarank_param beside 1.7.4's). */
  moreConfig?: (c: ObjectiveParams) => Record<string, Record<string, string>>
  /** The gradient kernel's objParam. */
  param?: (c: ObjectiveParams) => number
}

/** σ(x) = 1 / (1 + e^−x) in float64: the formulas' (gradients, losses); predictions use XGBoost's float32 one. */
export function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x))
}

/** log(1 + e^m) − y·m, finite for large |m|. */
function logisticLoss(m: number, y: number, w: number): number {
  const softplus = m > 0 ? m + Math.log1p(Math.exp(-m)) : Math.log1p(Math.exp(m))
  return (softplus - y * m) * w
}

function logisticGrad(m: number, y: number, w: number): [number, number] {
  const p = sigmoid(m)
  return [(p - y) * w, Math.max(p * (1 - p), LOGISTIC_MIN_HESS) * w]
}

const regLossParam = (c: ObjectiveParams): [string, Record<string, string>] => [
  'reg_loss_param',
  { scale_pos_weight: cFloat(c.scale_pos_weight) },
]

const identity = (m: number): number => m

/** FLT_MIN: binary:hinge's hessian past the margin (XGBoost hinge.cu), not weighted. */
const FLT_MIN = 2 ** -126

const logistic: ObjectiveSpec = {
  task: 'binary',
  code: OBJECTIVE_LOGISTIC,
  link: 'logit',
  // XGBoost's float32 sigmoid: predictions and metrics saturate at 1 exactly where XGBoost's do.
  transform: xgboostSigmoid,
  grad: logisticGrad,
  loss: logisticLoss,
  posWeight: true,
  metric: () => 'logloss',
  config: regLossParam,
}

/**
 * multi:softprob / multi:softmax (XGBoost 1.7.4 SoftmaxMultiClassObj): K margins per row, so the
 * per-row entries do not apply — gradients are gradient.ref.ts softmaxGradient (N × K), the
 * prediction transform is transformRows. base_score is added to every class margin as is.
 */
const multiclass: ObjectiveSpec = {
  task: 'multiclass',
  code: OBJECTIVE_SOFTMAX,
  link: 'identity',
  transform: () => {
    throw new RangeError('multiclass: predictions are per row of K margins (transformRows)')
  },
  grad: () => {
    throw new RangeError('multiclass: gradients are per row of K margins (softmaxGradient)')
  },
  loss: () => {
    throw new RangeError('multiclass: the loss is per row of K margins')
  },
  metric: () => 'mlogloss',
  config: c => ['softmax_multiclass_param', { num_class: String(c.num_class) }],
}

/**
 * rank:ndcg / rank:pairwise / rank:map (LambdaMART, XGBoost 2.0): gradients per query group on the
 * host (rank-objective.ts rankGradients), so the per-row entries do not apply; margins are scores
 * (identity). The model file carries 1.7.4's lambda_rank_param (1.7.4 requires it to load the
 * model; its fields are 1.7.4's defaults, unused when predicting) and 2.0's lambdarank_param.
 */
const ranking: ObjectiveSpec = {
  task: 'ranking',
  code: -1,
  link: 'identity',
  transform: identity,
  grad: () => {
    throw new RangeError('ranking: gradients are per query group (rank-objective.ts rankGradients)')
  },
  loss: () => {
    throw new RangeError('ranking: the loss is per query group')
  },
  metric: rankDefaultMetric,
  config: () => ['lambda_rank_param', { fix_list_weight: '0', num_pairsample: '1' }],
  moreConfig: c => ({
    lambdarank_param: {
      lambdarank_bias_norm: '1',
      lambdarank_num_pair_per_sample: String(numPair(c)),
      lambdarank_pair_method: c.lambdarank_pair_method,
      lambdarank_unbiased: '0',
      ndcg_exp_gain: c.ndcg_exp_gain ? '1' : '0',
    },
  }),
}

/** Every objective, by XGBoost name. */
export const OBJECTIVES: Readonly<Record<Objective, ObjectiveSpec>> = {
  'binary:logistic': logistic,
  'reg:logistic': { ...logistic, task: 'regression', metric: () => 'rmse' },
  'binary:logitraw': { ...logistic, link: 'identity', transform: identity },
  'binary:hinge': {
    task: 'binary',
    code: OBJECTIVE_HINGE,
    link: 'identity',
    transform: m => (m > 0 ? 1 : 0),
    grad: (m, y, w) => {
      const s = 2 * y - 1
      return m * s < 1 ? [-s * w, w] : [0, FLT_MIN]
    },
    // h is the hinge's curvature surrogate w (the loss is piecewise linear).
    loss: (m, y, w) => Math.max(0, 1 - (2 * y - 1) * m) * w,
    metric: () => 'error',
  },
  'reg:squarederror': {
    task: 'regression',
    code: OBJECTIVE_SQUARED_ERROR,
    link: 'identity',
    transform: identity,
    grad: (m, y, w) => [(m - y) * w, w],
    loss: (m, y, w) => 0.5 * (m - y) ** 2 * w,
    posWeight: true,
    metric: () => 'rmse',
    config: regLossParam,
  },
  'reg:squaredlogerror': {
    task: 'regression',
    code: OBJECTIVE_SQUARED_LOG,
    link: 'identity',
    transform: identity,
    grad: (m, y, w) => {
      const mp = Math.max(m, -1 + 1e-6)
      const d = Math.log1p(mp) - Math.log1p(y)
      return [(d / (mp + 1)) * w, Math.max((1 - d) / (mp + 1) ** 2, 1e-6) * w]
    },
    loss: (m, y, w) => 0.5 * (Math.log1p(m) - Math.log1p(y)) ** 2 * w,
    posWeight: true,
    metric: () => 'rmsle',
    config: regLossParam,
  },
  'reg:pseudohubererror': {
    task: 'regression',
    code: OBJECTIVE_PSEUDO_HUBER,
    link: 'identity',
    transform: identity,
    grad: (m, y, w, c) => {
      const z = m - y,
        d2 = c.huber_slope ** 2
      const s = Math.sqrt(1 + (z * z) / d2)
      return [(z / s) * w, (d2 / ((d2 + z * z) * s)) * w]
    },
    loss: (m, y, w, c) => c.huber_slope ** 2 * (Math.sqrt(1 + ((m - y) / c.huber_slope) ** 2) - 1) * w,
    metric: () => 'mphe',
    config: c => ['pseudo_huber_param', { huber_slope: cFloat(c.huber_slope) }],
    param: c => c.huber_slope,
  },
  'reg:absoluteerror': {
    task: 'regression',
    code: OBJECTIVE_ABSOLUTE,
    link: 'identity',
    transform: identity,
    grad: (m, y, w) => [Math.sign(m - y) * w, w],
    // h is w, not |·|'s zero curvature: the tree only picks the partition, leaves are refreshed.
    loss: (m, y, w) => Math.abs(m - y) * w,
    leafQuantile: () => 0.5,
    metric: () => 'mae',
  },
  'reg:quantileerror': {
    task: 'regression',
    code: OBJECTIVE_QUANTILE,
    link: 'identity',
    transform: identity,
    grad: (m, y, w, c) => [(m - y >= 0 ? 1 - alphaOf(c) : -alphaOf(c)) * w, w],
    loss: (m, y, w, c) => (m - y >= 0 ? (1 - alphaOf(c)) * (m - y) : alphaOf(c) * (y - m)) * w,
    leafQuantile: c => alphaOf(c),
    metric: () => 'quantile',
    // XGBoost 2.0 writes the list as a JSON array in a string (ParamFloatArray).
    config: c => ['quantile_loss_param', { quantile_alpha: `[${cFloat(alphaOf(c))}]` }],
    param: c => alphaOf(c),
  },
  'count:poisson': {
    task: 'regression',
    code: OBJECTIVE_POISSON,
    link: 'log',
    transform: Math.exp,
    // h = e^(m + max_delta_step): XGBoost's safeguard, not the loss's e^m.
    grad: (m, y, w, c) => [(Math.exp(m) - y) * w, Math.exp(m + c.max_delta_step) * w],
    loss: (m, y, w) => (Math.exp(m) - y * m) * w,
    metric: () => 'poisson-nloglik',
    config: c => ['poisson_regression_param', { max_delta_step: cFloat(c.max_delta_step) }],
    param: c => c.max_delta_step,
  },
  'reg:gamma': {
    task: 'regression',
    code: OBJECTIVE_GAMMA,
    link: 'log',
    transform: Math.exp,
    grad: (m, y, w) => [(1 - y * Math.exp(-m)) * w, y * Math.exp(-m) * w],
    loss: (m, y, w) => (y * Math.exp(-m) + m) * w,
    metric: () => 'gamma-nloglik',
  },
  'reg:tweedie': {
    task: 'regression',
    code: OBJECTIVE_TWEEDIE,
    link: 'log',
    transform: Math.exp,
    grad: (m, y, w, c) => {
      const r = c.tweedie_variance_power
      const a = Math.exp((1 - r) * m),
        b = Math.exp((2 - r) * m)
      return [(-y * a + b) * w, (-y * (1 - r) * a + (2 - r) * b) * w]
    },
    loss: (m, y, w, c) => {
      const r = c.tweedie_variance_power
      return ((-y * Math.exp((1 - r) * m)) / (1 - r) + Math.exp((2 - r) * m) / (2 - r)) * w
    },
    // XGBoost prints ρ with the stream's default 6 significant digits: tweedie-nloglik@1.5.
    metric: c => `tweedie-nloglik@${Number(Math.fround(c.tweedie_variance_power).toPrecision(6))}`,
    config: c => ['tweedie_regression_param', { tweedie_variance_power: cFloat(c.tweedie_variance_power) }],
    param: c => c.tweedie_variance_power,
  },
  'multi:softprob': multiclass,
  'multi:softmax': multiclass,
  'rank:ndcg': ranking,
  'rank:pairwise': ranking,
  'rank:map': ranking,
}

/** All objective names (the `objective` parameter's choices). */
export const OBJECTIVE_NAMES = Object.keys(OBJECTIVES) as Objective[]

function alphaOf(c: ObjectiveParams): number {
  if (c.quantile_alpha === undefined) throw new RangeError('quantile_alpha: reg:quantileerror needs quantile_alpha')
  return c.quantile_alpha
}

/** The table entry of `objective`; throws naming it when unknown. */
export function objectiveSpec(objective: string): ObjectiveSpec {
  const spec = (OBJECTIVES as Record<string, ObjectiveSpec | undefined>)[objective]
  if (!spec) throw new RangeError(`objective: ${objective} is not supported (one of ${OBJECTIVE_NAMES.join(', ')})`)
  return spec
}

/** The task of `objective` (the one table's Task); throws naming it when unknown. */
export function objectiveTask(objective: string): Task {
  return objectiveSpec(objective).task
}

/** True for objectives whose predictions are probabilities (base_score stored as one: logit link). */
export function isLogistic(objective: Objective): boolean {
  return objectiveSpec(objective).link === 'logit'
}

/** True for multi:softprob / multi:softmax (K outputs per row). */
export function isMulticlass(objective: Objective): boolean {
  return objective === 'multi:softprob' || objective === 'multi:softmax'
}

/** Outputs per row: num_class for multiclass objectives, else 1. */
export function outputsOf(p: Pick<ObjectiveParams, 'objective' | 'num_class'>): number {
  return isMulticlass(p.objective) ? p.num_class : 1
}

/**
 * Predictions of `margins` (N × K row-major, K = outputs) after the objective's transform: per
 * row softmax for multiclass (the probabilities — what XGBoost's metrics see for multi:softmax
 * too, its EvalTransform), the per-margin transform otherwise.
 */
export function transformRows(objective: Objective, margins: Float32Array, k: number): Float32Array {
  if (!isMulticlass(objective)) return margins.map(m => transform(objective, m))
  const out = new Float32Array(margins.length)
  for (let at = 0; at < margins.length; at += k) softmaxAt(margins, out, at, k)
  return out
}

/** The gradient kernel's objective id and objParam for `p`. */
export function kernelObjective(p: ObjectiveParams): { id: number; param: number } {
  const spec = objectiveSpec(p.objective)
  return { id: spec.code, param: Math.fround(spec.param?.(p) ?? 0) }
}

/** The quantile leaves are refreshed to (XGBoost UpdateTreeLeaf), or undefined when they keep their Newton values. */
export function leafQuantile(p: ObjectiveParams): number | undefined {
  return objectiveSpec(p.objective).leafQuantile?.(p)
}

/**
 * (g, h) of one row: d loss / d margin and d² loss / d margin², times the row weight `w` (and
 * scale_pos_weight on rows labelled 1 for XGBoost's RegLossObj objectives). Formulas per objective
 * in OBJECTIVES; gradient.ref.ts has them in f32.
 */
export function rowGradient(p: ObjectiveParams, margin: number, y: number, w: number): [number, number] {
  const spec = objectiveSpec(p.objective)
  return spec.grad(margin, y, spec.posWeight && y === 1 ? w * p.scale_pos_weight : w, p)
}

/** Loss of one row (for finite-difference checks), weighted as rowGradient. */
export function rowLoss(p: ObjectiveParams, margin: number, y: number, w: number): number {
  const spec = objectiveSpec(p.objective)
  return spec.loss(margin, y, spec.posWeight && y === 1 ? w * p.scale_pos_weight : w, p)
}

/** Prediction from a margin (XGBoost PredTransform): σ, exp, 0/1 (hinge) or identity. */
export function transform(objective: Objective, margin: number): number {
  return objectiveSpec(objective).transform(margin)
}

/** Margin offset of a base_score (XGBoost `ProbToMargin`): logit, log or identity. */
export function baseMargin(objective: Objective, baseScore: number): number {
  const link = objectiveSpec(objective).link
  if (link === 'logit') return Math.log(baseScore / (1 - baseScore))
  return link === 'log' ? Math.log(baseScore) : baseScore
}

/** XGBoost's DefaultEvalMetric of the objective (e.g. tweedie-nloglik@1.5). */
export function defaultMetricName(p: ObjectiveParams): string {
  return objectiveSpec(p.objective).metric(p)
}

/** The model file's `objective` object, as XGBoost 1.7.4 saves it. */
export function objectiveJson(p: ObjectiveParams): Record<string, unknown> {
  const spec = objectiveSpec(p.objective)
  const config = spec.config?.(p)
  return { name: p.objective, ...(config ? { [config[0]]: config[1] } : {}), ...spec.moreConfig?.(p) }
}

/** Objective parameters a model file's objective config may hold (XGBoost's names, as fields of its *_param object). */
const CONFIG_FIELDS = [
  'scale_pos_weight',
  'huber_slope',
  'max_delta_step',
  'tweedie_variance_power',
  'quantile_alpha',
  'num_class',
] as const

/**
 * The objective and its parameters from a model file's `objective` object (objectiveJson's, or
 * XGBoost's: {"name": …, "<its>_param": {field: "number"}}; ranking: rank-objective.ts
 * rankConfigFromJson); parameters absent there keep their defaults. Throws RangeError for an objective not in OBJECTIVES or a bad parameter value.
 */
export function objectiveParamsFromJson(o: unknown): Partial<ObjectiveParams> & Pick<ObjectiveParams, 'objective'> {
  const json = (typeof o === 'object' && o !== null ? o : {}) as Record<string, unknown>
  const name = String(json.name)
  if (!(name in OBJECTIVES)) throw new RangeError(`XGBoost model: objective ${name} is not supported`)
  const out: Partial<ObjectiveParams> & Pick<ObjectiveParams, 'objective'> = { objective: name as Objective }
  for (const v of Object.values(json)) {
    if (typeof v !== 'object' || v === null) continue
    for (const [k, raw] of Object.entries(v)) {
      if (!(CONFIG_FIELDS as readonly string[]).includes(k)) continue
      // quantile_alpha is a list in a string ("[5E-1]"): one value only (one output per row).
      const parts = String(raw)
        .replace(/^\s*\[|\]\s*$/g, '')
        .split(',')
      const x = Number(parts[0])
      if (parts.length !== 1 || !Number.isFinite(x))
        throw new RangeError(`XGBoost model: objective ${name}: ${k} = ${String(raw)} is not one number`)
      out[k as (typeof CONFIG_FIELDS)[number]] = Math.fround(x)
    }
  }
  // Ranking: the pair method, pairs per sample and NDCG gain (2.0's lambdarank_param, else 1.7.4's lambda_rank_param).
  return { ...out, ...rankConfigFromJson(name, json) }
}

/** XGBoost 2.0's estimate: one Newton step from margin 0, transformed (σ(4(ȳ−½)) for logistic). */
export function newtonStepBaseScore(p: GbdtParams, labels: ArrayLike<number>, weights?: ArrayLike<number>): number {
  if (isMulticlass(p.objective)) return 0.5
  let sg = 0,
    sh = 0
  for (let i = 0; i < labels.length; i++) {
    const [g, h] = rowGradient(p, 0, labels[i], weights ? weights[i] : 1)
    sg += g
    sh += h
  }
  return transform(p.objective, sh > 0 ? -sg / sh : 0)
}
