/**
 * Evaluation metrics of every family, exactly as XGBoost 1.7.4 defines them (src/metric/
 * elementwise_metric.cu, auc.cc): auc, aucpr, logloss, error (error@t), rmse, rmsle, mae, mape,
 * mphe, poisson-nloglik, gamma-nloglik, gamma-deviance, tweedie-nloglik@ρ, and quantile (XGBoost ≥
 * 2.0 only; 1.7.4 has none). Inputs are predictions after the objective's transform
 * (probabilities for logistic, exp(margin) for the log-link objectives), labels and optional row
 * weights, all length N (quantile: N × K predictions, row-major, K = quantile_alpha's length).
 *
 * Weighted as XGBoost: Σ wᵢ·rowᵢ / Σ wᵢ, and where the weight sum is 0 (empty or all-zero weights)
 * XGBoost's `wsum == 0 ? esum : esum / wsum` (so 0), gamma-deviance dividing by kRtEps instead.
 * Rows are computed in f64 (XGBoost: f32 rows summed in f64), so values agree to ~1e-7 relative.
 * NaN in a prediction or label makes the metric NaN. auc and aucpr are NaN without both classes.
 */
import { cFloat } from '../util/float32.ts'

/** XGBoost's metric names (eval_metric), without their `@` parameter. */
export const METRICS = [
  'auc',
  'aucpr',
  'logloss',
  'error',
  'rmse',
  'rmsle',
  'mae',
  'mape',
  'mphe',
  'poisson-nloglik',
  'gamma-nloglik',
  'gamma-deviance',
  'tweedie-nloglik',
  'quantile',
] as const

/** A metric's base name. */
export type MetricBase = (typeof METRICS)[number]

/** A metric as XGBoost prints it: a base name, or `error@t` (t ≠ 0.5) / `tweedie-nloglik@ρ` (parseMetric). */
export type MetricName = MetricBase | `error@${string}` | `tweedie-nloglik@${string}`

/**
 * The training parameters, of which some metrics read these two (XGBoost configures every metric
 * with all the learner's parameters); any family's parameter object may be passed as is.
 */
export type MetricOptions = object & {
  /** mphe's slope δ (XGBoost's huber_slope, default 1). */
  readonly huber_slope?: number
  /** quantile's α per output (XGBoost ≥ 2.0 quantile_alpha; required by quantile). */
  readonly quantile_alpha?: number | readonly number[]
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
  const at = text.indexOf('@')
  const base = (at < 0 ? text : text.slice(0, at)) as MetricBase
  if (!METRICS.includes(base)) throw badName(given, value)
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

/** The base name of a metric (`error@0.3` → error). */
export function metricBase(metric: string): string {
  const at = metric.indexOf('@')
  return at < 0 ? metric : metric.slice(0, at)
}

/**
 * True when larger is better, as XGBoost's EarlyStopping decides (auc, aucpr and the ranking
 * metrics map / ndcg, with or without @), and for the recommender's grouped AUC (gauc); every
 * loss and error is minimised.
 */
export function maximize(metric: string): boolean {
  if (metric === 'gauc') return true
  return metric !== 'mape' && ['auc', 'map', 'ndcg'].some(m => metric.startsWith(m))
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
  switch (base) {
    case 'auc':
      return auc(pred, labels, weights)
    case 'aucpr':
      return aucpr(pred, labels, weights)
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

function numberArg(given: string, text: string, arg: string, what: string): number {
  const v = arg.trim() === '' ? NaN : Number(arg)
  if (!Number.isFinite(v)) throw new RangeError(`${given}: ${what} must be a number, got '${text}'`)
  return Math.fround(v)
}

function badName(given: string, value: unknown): RangeError {
  return new RangeError(
    `${given}: must be one of ${METRICS.join(', ')} (error@t, tweedie-nloglik@ρ), got ${JSON.stringify(value)}`,
  )
}
