/**
 * Evaluation metrics of every family, exactly as XGBoost 1.7.4 defines them (src/metric/
 * elementwise_metric.cu, auc.cc, multiclass_metric.cu, rank_metric.cc): auc, aucpr, logloss, error
 * (error@t), rmse, rmsle, mae, mape, mphe, poisson-nloglik, gamma-nloglik, gamma-deviance,
 * tweedie-nloglik@ρ, quantile (XGBoost ≥ 2.0 only; 1.7.4 has none); multiclass mlogloss, merror
 * and one-vs-rest auc / aucpr; ranking ndcg, map, pre (each with @k and the `-` suffix). Inputs are
 * predictions after the objective's transform (probabilities for logistic, exp(margin) for the
 * log-link objectives), labels and optional row weights, all length N (quantile: N × K
 * predictions, row-major, K = quantile_alpha's length; multiclass: N × K probabilities, row-major,
 * K = options.num_class; ranking: the N margins, rows of a query group contiguous, options.group_ptr
 * the groups' CSR offsets).
 *
 * Weighted as XGBoost: Σ wᵢ·rowᵢ / Σ wᵢ, and where the weight sum is 0 (empty or all-zero weights)
 * XGBoost's `wsum == 0 ? esum : esum / wsum` (so 0), gamma-deviance dividing by kRtEps instead;
 * mlogloss and merror give NaN there (XGBoost's plain esum / wsum); the ranking metrics ignore
 * weights (1.7.4's EvalRank does). Rows are computed in f64 (XGBoost: f32 rows summed in f64), so values agree to ~1e-7 relative.
 * NaN in a prediction or label makes the metric NaN. auc and aucpr are NaN without both classes.
 */
import { cFloat } from '../util/float32.ts'

/** XGBoost's metric names (eval_metric), without their `@` parameter; binary ones first (the menu's order). */
export const METRICS = [
  'auc',
  'logloss',
  'aucpr',
  'error',
  'rmse',
  'mae',
  'rmsle',
  'mape',
  'mphe',
  'poisson-nloglik',
  'gamma-nloglik',
  'gamma-deviance',
  'tweedie-nloglik',
  'quantile',
  'mlogloss',
  'merror',
  'ndcg',
  'map',
  'pre',
] as const

/** A metric's base name. */
export type MetricBase = (typeof METRICS)[number]

/** The ranking metrics: they take `@k` (the top k of each group) and the `-` suffix. */
const RANKING = ['ndcg', 'map', 'pre'] as const
type RankingBase = (typeof RANKING)[number]

/**
 * A metric as XGBoost prints it: a base name, or `error@t` (t ≠ 0.5) / `tweedie-nloglik@ρ`, or a
 * ranking metric with `@k` and/or `-` (`ndcg@10`, `ndcg-`, `map@5-`) (parseMetric).
 */
export type MetricName =
  | MetricBase
  | `error@${string}`
  | `tweedie-nloglik@${string}`
  | `${RankingBase}-`
  | `${RankingBase}@${number}`
  | `${RankingBase}@${number}-`

/**
 * Each metric as the page's and CLI's menus offer it (the GBDT's, src/models/registry.ts; the first
 * is a sweep's default): its base name, or with the parameter it cannot go without
 * (tweedie-nloglik@1.5), or pre@10 (1.7.4's bare pre divides the hits by 2³² − 1).
 */
export const METRIC_MENU: readonly MetricName[] = METRICS.map(m =>
  m === 'tweedie-nloglik' ? 'tweedie-nloglik@1.5' : m === 'pre' ? 'pre@10' : m,
)

/**
 * The training parameters, of which some metrics read these (XGBoost configures every metric with
 * all the learner's parameters), and the rows' query groups; any family's parameter object may be
 * passed as is.
 */
export type MetricOptions = object & {
  /** mphe's slope δ (XGBoost's huber_slope, default 1). */
  readonly huber_slope?: number
  /** quantile's α per output (XGBoost ≥ 2.0 quantile_alpha; required by quantile). */
  readonly quantile_alpha?: number | readonly number[]
  /**
   * K, the number of classes (XGBoost's num_class): required by mlogloss and merror; auc and aucpr
   * are one-vs-rest over K classes when it is 2 or more. Predictions are then N × K, row-major.
   */
  readonly num_class?: number
  /**
   * The query groups of the rows (XGBoost's group_ptr: G + 1 offsets, 0 first and N last, group g
   * being rows group_ptr[g] … group_ptr[g+1] − 1): required by ndcg, map and pre; with it, auc and
   * aucpr are XGBoost's ranking AUC (the mean over groups).
   */
  readonly group_ptr?: ArrayLike<number>
}

/**
 * The metric `value` names, as XGBoost prints it: `error@0.50` → 'error', `tweedie-nloglik@1.50`
 * → 'tweedie-nloglik@1.5' (the parameter as an f32 in C++'s default `%g` form). Throws a
 * RangeError naming `given` for an unknown name, a bad or missing parameter (error@t: t a number;
 * tweedie-nloglik@ρ: 1 ≤ ρ < 2, required), or a parameter on a metric that takes none.
 */
export function parseMetric(value: unknown, given = 'eval_metric'): MetricName {
  const text = typeof value === 'string' ? value.trim() : value
  if (typeof text !== 'string') throw badName(given, value)
  const base = metricBase(text) as MetricBase
  if (!METRICS.includes(base)) throw badName(given, value)
  const at = text.indexOf('@')
  if (isRanking(base)) return rankingName(given, text, base, at)
  if (at < 0 && text !== base) throw new RangeError(`${given}: only ndcg, map and pre take a - suffix, got '${text}'`)
  const arg = at < 0 ? undefined : text.slice(at + 1)
  if (base === 'error') {
    if (arg === undefined) return 'error'
    const t = numberArg(given, text, arg, 'the threshold t of error@t')
    return t === 0.5 ? 'error' : `error@${cFloat(t, 6)}`
  }
  if (base === 'tweedie-nloglik') {
    if (arg === undefined)
      throw new RangeError(`${given}: tweedie-nloglik needs its variance power as tweedie-nloglik@ρ (1 ≤ ρ < 2)`)
    const rho = numberArg(given, text, arg, 'the variance power ρ of tweedie-nloglik@ρ')
    if (!(rho >= 1 && rho < 2))
      throw new RangeError(`${given}: the variance power ρ of tweedie-nloglik@ρ must be in [1, 2), got '${text}'`)
    return `tweedie-nloglik@${cFloat(rho, 6)}`
  }
  if (arg !== undefined) throw new RangeError(`${given}: ${base} takes no @ parameter, got '${text}'`)
  return base
}

/**
 * A ranking metric's name as XGBoost 1.7.4 prints it (EvalRank: `name@param`, `name-`): k a
 * positive integer (at most 2³² − 1, XGBoost's unsigned topn), written plainly (XGBoost prints the
 * k as given, so `ndcg@010` there is `ndcg@10` here); `-` makes a group without relevant documents
 * count 0 instead of 1.
 */
function rankingName(given: string, text: string, base: RankingBase, at: number): MetricName {
  if (at < 0) return text as MetricName
  const arg = text.slice(at + 1)
  const k = /^[0-9]+-?$/.test(arg) ? Number.parseInt(arg, 10) : NaN
  if (!(k >= 1 && k <= 0xffffffff))
    throw new RangeError(
      `${given}: the k of ${base}@k must be a positive integer (${base}@k or ${base}@k-), got '${text}'`,
    )
  return `${base}@${k}${arg.endsWith('-') ? '-' : ''}` as MetricName
}

function isRanking(base: string): base is RankingBase {
  return (RANKING as readonly string[]).includes(base)
}

/** True for ndcg, map and pre (with @k and -): they score rows within query groups (options.group_ptr). */
export function isRankingMetric(metric: string): boolean {
  return isRanking(metricBase(metric))
}

/** The metrics that score N × K class probabilities (options.num_class): mlogloss, merror, and auc / aucpr one-vs-rest. */
export const MULTICLASS_METRICS: readonly MetricBase[] = ['mlogloss', 'merror', 'auc', 'aucpr']

/** The base name of a metric (`error@0.3` → error, `ndcg@5-` → ndcg, `map-` → map). */
export function metricBase(metric: string): string {
  const at = metric.indexOf('@')
  if (at >= 0) return metric.slice(0, at)
  return metric.endsWith('-') ? metric.slice(0, -1) : metric
}

/**
 * True when larger is better, as XGBoost 2.0's EarlyStopping decides (auc, aucpr and the ranking
 * metrics map, ndcg and pre, with or without @ and -; 1.7.4's list lacks pre, so its early stopping
 * minimises precision), and for the recommender's grouped AUC (gauc); every loss and error
 * (mlogloss, merror included) is minimised.
 */
export function maximize(metric: string): boolean {
  const m = validationName(metric)
  if (m === 'gauc') return true
  return m !== 'mape' && ['auc', 'map', 'ndcg', 'pre'].some(b => m.startsWith(b))
}

/**
 * Prefix of a metric on the training rows, as XGBoost prints an eval set named `train`
 * (`train-auc`); the validation metrics keep their bare names (`auc`), which early stopping,
 * sweeps and the summary read.
 */
export const TRAIN_PREFIX = 'train-'

/** True for a training-rows metric (`train-auc`). */
export function isTrainMetric(name: string): boolean {
  return name.startsWith(TRAIN_PREFIX)
}

/** The metric a name measures, on whichever rows: `train-auc` → auc, `auc` → auc. */
export function validationName(name: string): string {
  return isTrainMetric(name) ? name.slice(TRAIN_PREFIX.length) : name
}

/** One round's validation metrics: the record without its training-rows (`train-…`) entries. */
export function validationMetrics(m: Readonly<Record<string, number>>): Record<string, number> {
  return Object.fromEntries(Object.entries(m).filter(([k]) => !isTrainMetric(k)))
}

/** Evaluates `metric` (a parseMetric name) on predictions `pred` against `labels`. */
export function evaluate(
  metric: MetricName,
  pred: ArrayLike<number>,
  labels: ArrayLike<number>,
  weights?: ArrayLike<number>,
  options: MetricOptions = {},
): number {
  const base = metricBase(metric) as MetricBase
  const arg = Math.fround(Number(metric.slice(base.length + 1)))
  const K = options.num_class ?? 0
  switch (base) {
    case 'auc':
    case 'aucpr': {
      const binary = base === 'auc' ? auc : aucpr
      if (options.group_ptr) return rankingAuc(metric, pred, labels, options.group_ptr, binary)
      if (K >= 2) return oneVsRest(metric, pred, labels, weights, multiclassK(metric, pred, labels, K), binary)
      return binary(pred, labels, weights)
    }
    case 'mlogloss':
    case 'merror':
      return multiclassMean(metric, pred, labels, weights, multiclassK(metric, pred, labels, options.num_class))
    case 'ndcg':
    case 'map':
    case 'pre':
      return rankingMean(metric, base, pred, labels, options.group_ptr)
    case 'logloss':
      return meanOf(pred, labels, weights, loglossRow)
    case 'error': {
      const t = metric === 'error' ? 0.5 : arg
      return meanOf(pred, labels, weights, (p, y) => (p > t ? 1 - y : y))
    }
    case 'rmse':
      return Math.sqrt(meanOf(pred, labels, weights, (p, y) => (y - p) ** 2))
    case 'rmsle':
      return Math.sqrt(meanOf(pred, labels, weights, (p, y) => (Math.log1p(y) - Math.log1p(p)) ** 2))
    case 'mae':
      return meanOf(pred, labels, weights, (p, y) => Math.abs(y - p))
    case 'mape':
      return meanOf(pred, labels, weights, (p, y) => Math.abs((y - p) / y))
    case 'mphe': {
      const s = Math.fround(options.huber_slope ?? 1)
      if (s === 0) throw new RangeError('huber_slope: the slope of mphe cannot be 0')
      return meanOf(pred, labels, weights, (p, y) => s * s * (Math.sqrt(1 + ((y - p) / s) ** 2) - 1))
    }
    case 'poisson-nloglik':
      return meanOf(pred, labels, weights, poissonNloglikRow)
    case 'gamma-nloglik':
      return meanOf(pred, labels, weights, gammaNloglikRow)
    case 'gamma-deviance': {
      const [sum, sw] = sums(pred, labels, weights, gammaDevianceRow)
      return (2 * sum) / (sw <= 0 ? RT_EPS : sw)
    }
    case 'tweedie-nloglik':
      return meanOf(pred, labels, weights, (p, y) => tweedieNloglikRow(p, y, arg))
    case 'quantile':
      return quantileLoss(pred, labels, weights, options.quantile_alpha)
  }
}

/** XGBoost's kRtEps (1e-6f). */
const RT_EPS = Math.fround(1e-6)

/** XGBoost 1.7.4's logloss row: −y·log(max(p, 1e-16)) − (1−y)·log(max(1−p, 1e-16)), a zero factor giving 0. */
export function loglossRow(p: number, y: number): number {
  const xlogy = (x: number, v: number) => (x === 0 ? 0 : x * Math.log(Math.max(v, 1e-16)))
  return xlogy(-y, p) + xlogy(-(1 - y), 1 - p)
}

/** EvalPoissonNegLogLik: lgamma(y + 1) + p − y·log(p), p at least 1e-16. */
function poissonNloglikRow(p: number, y: number): number {
  const q = Math.max(p, 1e-16)
  return logGamma(y + 1) + q - Math.log(q) * y
}

/** EvalGammaNLogLik with XGBoost's fixed dispersion ψ = 1: θ = −1/p, −(y·θ + log(−θ)), p at least 1e-6. */
function gammaNloglikRow(p: number, y: number): number {
  const theta = -1 / Math.max(p, Math.fround(1e-6))
  return -(y * theta + Math.log(-theta))
}

/** EvalGammaDeviance's row: log(p/y) + y/p − 1 with kRtEps added to both (doubled in the final value). */
function gammaDevianceRow(p: number, y: number): number {
  const q = p + RT_EPS,
    z = y + RT_EPS
  return Math.log(q / z) + z / q - 1
}

/** EvalTweedieNLogLik: −y·p^(1−ρ)/(1−ρ) + p^(2−ρ)/(2−ρ). */
function tweedieNloglikRow(p: number, y: number, rho: number): number {
  const a = (y * Math.exp((1 - rho) * Math.log(p))) / (1 - rho)
  const b = Math.exp((2 - rho) * Math.log(p)) / (2 - rho)
  return -a + b
}

/**
 * XGBoost ≥ 2.0's quantile metric (the pinball loss; 1.7.4 has no such metric, so this follows
 * 2.0's source): for α of output k, d = y − p: α·d when d ≥ 0, else (α − 1)·d; averaged over the
 * N × K values, each weighted by its row's weight. NaN without α or with zero weight sum (XGBoost
 * aborts).
 */
function quantileLoss(
  pred: ArrayLike<number>,
  labels: ArrayLike<number>,
  weights: ArrayLike<number> | undefined,
  alpha: MetricOptions['quantile_alpha'],
): number {
  const alphas = alpha === undefined ? [] : typeof alpha === 'number' ? [alpha] : alpha
  if (alphas.length === 0) throw new RangeError('quantile_alpha: the quantile metric needs quantile_alpha')
  const K = alphas.length,
    n = labels.length
  if (pred.length !== n * K)
    throw new RangeError(`quantile: ${pred.length} predictions for ${n} rows and ${K} quantiles`)
  let sum = 0,
    sw = 0
  for (let i = 0; i < n; i++) {
    const w = weights ? weights[i] : 1
    for (let k = 0; k < K; k++) {
      const a = Math.fround(alphas[k]),
        d = labels[i] - pred[i * K + k]
      sum += w * (d >= 0 ? a * d : (a - 1) * d)
      sw += w
    }
  }
  return sw > 0 ? sum / sw : NaN
}

/** XGBoost's GetFinal of a mean metric: Σ w·row / Σ w, or Σ w·row itself where the weight sum is 0. */
function meanOf(
  pred: ArrayLike<number>,
  labels: ArrayLike<number>,
  weights: ArrayLike<number> | undefined,
  row: (p: number, y: number) => number,
): number {
  const [sum, sw] = sums(pred, labels, weights, row)
  return sw === 0 ? sum : sum / sw
}

/** [Σ wᵢ·row(pᵢ, yᵢ), Σ wᵢ]; a zero weight contributes 0 · row, as XGBoost's residue · wt. */
function sums(
  pred: ArrayLike<number>,
  labels: ArrayLike<number>,
  weights: ArrayLike<number> | undefined,
  row: (p: number, y: number) => number,
): [number, number] {
  if (pred.length !== labels.length)
    throw new RangeError(`metric: ${pred.length} predictions for ${labels.length} labels`)
  let sum = 0,
    sw = 0
  for (let i = 0; i < pred.length; i++) {
    const w = weights ? weights[i] : 1
    sum += w * row(pred[i], labels[i])
    sw += w
  }
  return [sum, sw]
}

/**
 * ln Γ(x) for x > 0 (C's lgamma, which XGBoost's poisson-nloglik calls): Lanczos (g = 7, 9 terms),
 * about 1e-15 relative; the reflection formula below ½.
 */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x)
  const z = x - 1
  let a = LANCZOS[0]
  const t = z + 7.5
  for (let i = 1; i < 9; i++) a += LANCZOS[i] / (z + i)
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a)
}

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
]

/**
 * Exact ROC AUC with ties at the average rank (Mann–Whitney), weighted: the probability that a
 * random positive scores above a random negative, ties counting ½ (XGBoost's trapezoids over tied
 * groups give the same). A row counts y·w positive and (1 − y)·w negative, as XGBoost's (labels
 * in [0, 1]; 0/1 labels are plain counts). NaN when one class is absent (XGBoost warns and
 * returns NaN too).
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
      pos += labels[i] * w
      neg += (1 - labels[i]) * w
    }
    area += pos * (negBelow + neg / 2)
    negBelow += neg
    totPos += pos
    totNeg += neg
    s = e
  }
  return totPos > 0 && totNeg > 0 ? area / (totPos * totNeg) : NaN
}

/**
 * Area under the precision–recall curve, XGBoost's BinaryPRAUC (Davis & Goadrich's interpolation
 * between the points of tied-score groups, doi:10.1371/journal.pone.0092209): scores descending,
 * a label counting y·w positive and (1 − y)·w negative; NaN when either class has no weight.
 */
export function aucpr(pred: ArrayLike<number>, labels: ArrayLike<number>, weights?: ArrayLike<number>): number {
  let totalPos = 0,
    totalNeg = 0
  for (let i = 0; i < labels.length; i++) {
    const w = weights ? weights[i] : 1
    totalPos += w * labels[i]
    totalNeg += w * (1 - labels[i])
  }
  if (!(totalPos > 0 && totalNeg > 0)) return NaN
  const order = Array.from({ length: pred.length }, (_, i) => i).sort((a, b) => pred[b] - pred[a])
  let area = 0,
    tp = 0,
    fp = 0,
    tpPrev = 0,
    fpPrev = 0
  for (let k = 0; k < order.length; k++) {
    const i = order[k]
    if (k > 0 && pred[i] !== pred[order[k - 1]]) {
      area += deltaPrAuc(fpPrev, fp, tpPrev, tp, totalPos)
      tpPrev = tp
      fpPrev = fp
    }
    const w = weights ? weights[i] : 1
    fp += (1 - labels[i]) * w
    tp += labels[i] * w
  }
  return area + deltaPrAuc(fpPrev, fp, tpPrev, tp, totalPos)
}

/** XGBoost's CalcDeltaPRAUC: the interpolated PR area between two points, in recall. */
function deltaPrAuc(fpPrev: number, fp: number, tpPrev: number, tp: number, totalPos: number): number {
  const prPrev = tpPrev / totalPos,
    pr = tp / totalPos
  let a = 1,
    b = 0
  if (tp !== tpPrev) {
    const h = (fp - fpPrev) / (tp - tpPrev)
    a = h + 1
    b = (fpPrev - h * tpPrev) / totalPos
  }
  return b !== 0 ? (pr - prPrev - (b / a) * (Math.log(a * pr + b) - Math.log(a * prPrev + b))) / a : (pr - prPrev) / a
}

/**
 * K, checked: num_class an integer ≥ 2 (required by mlogloss and merror) and N × K predictions.
 */
function multiclassK(metric: string, pred: ArrayLike<number>, labels: ArrayLike<number>, K: unknown): number {
  if (!(typeof K === 'number' && Number.isInteger(K) && K >= 2))
    throw new RangeError(`num_class: ${metric} needs num_class, the number of classes (an integer ≥ 2), got ${K}`)
  if (pred.length !== labels.length * K)
    throw new RangeError(`${metric}: ${pred.length} predictions for ${labels.length} rows × ${K} classes (num_class)`)
  return K
}

/** A multiclass label's class: XGBoost's static_cast<int>(label), refused outside 0…K−1 (so NaN too). */
function classOf(metric: string, labels: ArrayLike<number>, i: number, K: number): number {
  const c = Math.trunc(labels[i])
  if (!(c >= 0 && c < K))
    throw new RangeError(`${metric}: label ${labels[i]} of row ${i} is not a class 0…${K - 1} (num_class ${K})`)
  return c
}

/**
 * XGBoost 1.7.4's mlogloss and merror (multiclass_metric.cu, the same in 2.0): Σ wᵢ·rowᵢ / Σ wᵢ
 * (NaN when the weights sum to 0: XGBoost's plain esum / wsum). mlogloss's row is −log(p_y) with
 * p_y at least 1e-16 (an f32); merror's is 1 when the first largest probability (XGBoost's
 * FindMaxIndex: ties go to the lowest class) is not the label's class.
 */
function multiclassMean(
  metric: string,
  pred: ArrayLike<number>,
  labels: ArrayLike<number>,
  weights: ArrayLike<number> | undefined,
  K: number,
): number {
  const eps = Math.fround(1e-16)
  let sum = 0,
    sw = 0
  for (let i = 0; i < labels.length; i++) {
    const c = classOf(metric, labels, i, K),
      w = weights ? weights[i] : 1,
      o = i * K
    let row: number
    if (metric === 'mlogloss') {
      const p = Math.fround(pred[o + c])
      // Not Math.max: a NaN probability gives −log(1e-16), as XGBoost's comparison.
      row = p > eps ? -Math.log(p) : -Math.log(eps)
    } else {
      let top = 0
      for (let k = 1; k < K; k++) if (Math.fround(pred[o + k]) > Math.fround(pred[o + top])) top = k
      row = top === c ? 0 : 1
    }
    sum += w * row
    sw += w
  }
  return sum / sw
}

/**
 * XGBoost 1.7.4's multiclass auc and aucpr (auc.cc MultiClassOVR, the same in 2.0): per class k
 * the binary metric of column k against "label = k" (row weights kept); auc averages the classes
 * weighted by their weight sums Σ_{y=k} w, aucpr plainly (its BinaryPRAUC reports weight 1). NaN
 * when any class 0…K−1 lacks positives or negatives — a class absent from the labels included.
 * Labels are compared exactly (a fractional label is in no class), as XGBoost's labels(i) == c.
 */
function oneVsRest(
  metric: string,
  pred: ArrayLike<number>,
  labels: ArrayLike<number>,
  weights: ArrayLike<number> | undefined,
  K: number,
  binary: typeof auc,
): number {
  const n = labels.length
  for (let i = 0; i < n; i++) classOf(metric, labels, i, K)
  const scores = new Float64Array(n),
    y = new Float64Array(n)
  let sum = 0,
    sw = 0
  for (let k = 0; k < K; k++) {
    let wk = 0
    for (let i = 0; i < n; i++) {
      scores[i] = pred[i * K + k]
      y[i] = labels[i] === k ? 1 : 0
      wk += y[i] * (weights ? weights[i] : 1)
    }
    const v = binary(scores, y, weights)
    const share = binary === auc ? wk : 1
    sum += v * share
    sw += share
  }
  return sw === 0 ? NaN : sum / sw
}

/**
 * The query groups, checked: group_ptr given (ranking metrics need it), 0 first, N last, never
 * decreasing. XGBoost 1.7.4 takes all rows as one group without it; here that is refused, so a
 * ranking metric never runs on rows that have no groups by mistake.
 */
function groupsOf(metric: string, n: number, groupPtr: ArrayLike<number> | undefined): ArrayLike<number> {
  if (!groupPtr)
    throw new RangeError(`${metric}: a ranking metric needs the rows' query groups (group_ptr; the run's --qid column)`)
  const G = groupPtr.length - 1
  let ok = G >= 0 && groupPtr[0] === 0 && groupPtr[G] === n
  for (let g = 0; ok && g < G; g++) ok = groupPtr[g] <= groupPtr[g + 1]
  if (!ok)
    throw new RangeError(
      `group_ptr: must run from 0 to the ${n} rows without decreasing, got ${groupPtr.length} offsets`,
    )
  return groupPtr
}

/**
 * A ranking label's relevance degree: XGBoost 1.7.4's static_cast<int>(label) (fractions dropped),
 * refused below 0 or NaN, and for ndcg above 31 (its gain 2^rel − 1 is a 32-bit integer; 2.0
 * refuses those too).
 */
function relevanceOf(metric: string, base: RankingBase, labels: ArrayLike<number>, i: number): number {
  const rel = Math.trunc(labels[i])
  if (!(rel >= 0 && (base !== 'ndcg' || rel <= 31)))
    throw new RangeError(
      `${metric}: label ${labels[i]} of row ${i} is not a relevance degree (an integer ${base === 'ndcg' ? '0…31' : '≥ 0'})`,
    )
  return rel
}

/**
 * XGBoost 1.7.4's ranking metrics (rank_metric.cc EvalRank): the plain mean over query groups of
 * each group's value, its rows ordered by prediction descending, ties in row order (std::
 * stable_sort; predictions compared as f32), k = the @k or all rows:
 * - ndcg@k: DCG@k / IDCG@k with gain 2^rel − 1 and discount 1/log2(i + 2) (i from 0), IDCG from
 *   the labels sorted descending; a group with IDCG 0 (no relevant row) counts 1, or 0 with `-`.
 * - map@k: Σ over relevant rows ranked i < k of hits_so_far/(i + 1), divided by ALL the group's
 *   relevant rows; no relevant row: 1, or 0 with `-`.
 * - pre@k: the relevant rows among the top k, divided by k (not by min(k, group size)); bare `pre`
 *   divides by 2³² − 1, 1.7.4's unset topn.
 * Relevant: relevance degree ≠ 0. Row weights are ignored, as 1.7.4's EvalRank ignores them.
 * XGBoost 2.0 differs (src/metric/rank_metric.cc there): every group weighted by its group weight
 * (Σ w_g·m_g / Σ w_g) and the result capped at 1; ndcg_exp_gain=false uses the label as the gain;
 * map@k divides by min(relevant rows, k) and weighs hits by the label; pre@k divides by
 * min(k, group size) and counts the label value; bare pre counts the whole group.
 * 0 groups: NaN (XGBoost's 0 / 0).
 */
function rankingMean(
  metric: string,
  base: RankingBase,
  pred: ArrayLike<number>,
  labels: ArrayLike<number>,
  groupPtr: ArrayLike<number> | undefined,
): number {
  if (pred.length !== labels.length)
    throw new RangeError(`${metric}: ${pred.length} predictions for ${labels.length} labels`)
  const gp = groupsOf(metric, labels.length, groupPtr)
  const at = metric.indexOf('@')
  const k = at < 0 ? 0xffffffff : Number.parseInt(metric.slice(at + 1), 10)
  const minus = metric.endsWith('-')
  let sum = 0
  for (let g = 0; g + 1 < gp.length; g++) {
    const rels: number[] = [],
      scores: number[] = []
    for (let i = gp[g]; i < gp[g + 1]; i++) {
      rels.push(relevanceOf(metric, base, labels, i))
      scores.push(Math.fround(pred[i]))
    }
    const ranked = byScore(scores).map(j => rels[j])
    sum += base === 'ndcg' ? ndcgOf(ranked, k, minus) : base === 'map' ? mapOf(ranked, k, minus) : preOf(ranked, k)
  }
  return sum / (gp.length - 1)
}

/** Positions 0…n−1 ordered by score descending, ties in position order (a stable sort). */
function byScore(scores: readonly number[]): number[] {
  return scores.map((_, j) => j).sort((a, b) => (scores[a] > scores[b] ? -1 : scores[a] < scores[b] ? 1 : 0))
}

/** XGBoost 1.7.4's EvalNDCG of one group: `ranked` = relevance degrees in ranked order. */
function ndcgOf(ranked: readonly number[], k: number, minus: boolean): number {
  const dcg = (rels: readonly number[]) => {
    let s = 0
    for (let i = 0; i < rels.length && i < k; i++) if (rels[i] !== 0) s += (2 ** rels[i] - 1) / Math.log2(i + 2)
    return s
  }
  const idcg = dcg([...ranked].sort((a, b) => b - a))
  if (idcg === 0) return minus ? 0 : 1
  return dcg(ranked) / idcg
}

/** XGBoost 1.7.4's EvalMAP of one group. */
function mapOf(ranked: readonly number[], k: number, minus: boolean): number {
  let hits = 0,
    ap = 0
  for (let i = 0; i < ranked.length; i++)
    if (ranked[i] !== 0) {
      hits++
      if (i < k) ap += hits / (i + 1)
    }
  return hits === 0 ? (minus ? 0 : 1) : ap / hits
}

/** XGBoost 1.7.4's EvalPrecision of one group. */
function preOf(ranked: readonly number[], k: number): number {
  let hits = 0
  for (let i = 0; i < ranked.length && i < k; i++) if (ranked[i] !== 0) hits++
  return hits / k
}

/**
 * XGBoost 1.7.4's auc / aucpr when the rows have query groups (auc.cc RankingAUC): the mean over
 * the valid groups of each group's value, NaN without any. auc's group value (GroupRankingROC):
 * the rows sorted by label descending (stable), every pair i < j in that order scoring 1 when
 * row i's prediction is above row j's, ½ when equal, 0 below — pairs of equal labels included —,
 * averaged; groups of fewer than 3 rows are not valid. aucpr's: the binary PR AUC of the group,
 * not valid when NaN (no positive or no negative). Row weights are ignored (XGBoost's group
 * weights cancel in both, but a zero group weight — its ROC group counting 0, its PR group
 * skipped — is not modelled).
 */
function rankingAuc(
  metric: string,
  pred: ArrayLike<number>,
  labels: ArrayLike<number>,
  groupPtr: ArrayLike<number>,
  binary: typeof auc,
): number {
  if (pred.length !== labels.length)
    throw new RangeError(`${metric}: ${pred.length} predictions for ${labels.length} labels`)
  const gp = groupsOf(metric, labels.length, groupPtr)
  let sum = 0,
    valid = 0
  for (let g = 0; g + 1 < gp.length; g++) {
    const s = gp[g],
      n = gp[g + 1] - s
    const p = Array.from({ length: n }, (_, j) => Math.fround(pred[s + j])),
      y = Array.from({ length: n }, (_, j) => Math.fround(labels[s + j]))
    let v: number
    if (binary === auc) {
      if (n < 3) continue
      const order = byScore(y)
      let pairs = 0
      v = 0
      for (let a = 0; a < n; a++)
        for (let b = a + 1; b < n; b++) {
          const d = p[order[a]] - p[order[b]]
          v += d > 0 ? 1 : d === 0 ? 0.5 : 0
          pairs++
        }
      v /= pairs
    } else {
      v = binary(p, y)
      if (Number.isNaN(v)) continue
    }
    sum += v
    valid++
  }
  return valid === 0 ? NaN : sum / valid
}

function numberArg(given: string, text: string, arg: string, what: string): number {
  const v = arg.trim() === '' ? NaN : Number(arg)
  if (!Number.isFinite(v)) throw new RangeError(`${given}: ${what} must be a number, got '${text}'`)
  return Math.fround(v)
}

function badName(given: string, value: unknown): RangeError {
  return new RangeError(
    `${given}: must be one of ${METRICS.join(', ')} (error@t, tweedie-nloglik@ρ, ndcg@k, map@k, pre@k, ndcg-, map-), got ${JSON.stringify(value)}`,
  )
}
