/**
 * XGBoost's linear booster trained by coordinate descent (`updater: coord_descent`,
 * `feature_selector: cyclic`; src/linear/updater_coordinate.cc, coordinate_common.h), step for
 * step in its float32/float64 mix so the weights match XGBoost's. Each round:
 *   margins → gradient pairs (objective.ts) → bias step −ΣG/ΣH (× eta), residuals updated →
 *   for each feature f in order: Δw = CoordinateDelta(Σg·x, Σh·x², w, α·W, λ·W) × eta, residuals updated.
 * A missing value (NaN) is absent, as in XGBoost's sparse columns: it adds to no sum and no margin.
 * W = sum of instance weights (the penalties are per unit of weight). N = rows, F = features.
 */
import { baseMargin, gradients, transform } from './objective.ts'
import { estimateBaseScore } from '../../eval/labels.ts'
import type { GblinearParams } from './params.ts'

const f32 = Math.fround

/** Rows to train on: F columns of N float32 values (NaN = missing), labels and optional weights. */
export interface LinearData {
  columns: Float32Array[]
  labels: Float32Array
  weights?: Float32Array
  featureNames?: string[]
  valid?: { columns: Float32Array[]; labels: Float32Array; weights?: Float32Array }
}

/** A trained linear model: one weight per feature, the bias, and what predicting needs. */
export interface LinearModel {
  /** Float32Array, length F. */
  weights: Float32Array
  bias: number
  /** base_score in prediction space (as XGBoost stores it). */
  baseScore: number
  objective: GblinearParams['objective']
  scalePosWeight: number
  featureNames: string[]
  /** Rounds trained. */
  rounds: number
  /** Validation metrics per round (empty without validation rows). */
  history: Record<string, number>[]
  bestIteration?: number
}

/** Evaluates one metric on predictions (transformed) against labels: src/eval's evaluate. */
export type Evaluate = (metric: string, pred: Float32Array, labels: Float32Array, weights?: Float32Array) => number

export interface LinearTrainOptions {
  /** Hears each round's validation metrics; 'stop' ends training after that round. */
  onRound?: (round: number, metrics: Record<string, number>) => 'stop' | void
  /** Scores the validation rows (needed when data.valid is given). */
  evaluate?: Evaluate
}

/** Trains `params.num_round` rounds (fewer when stopped). */
export function trainLinear(data: LinearData, p: GblinearParams, opts: LinearTrainOptions = {}): LinearModel {
  const N = data.labels.length
  const F = data.columns.length
  const model: LinearModel = {
    weights: new Float32Array(F),
    bias: 0,
    baseScore: f32(p.base_score ?? estimateBaseScore(p.objective, data.labels, data.weights)),
    objective: p.objective,
    scalePosWeight: p.scale_pos_weight,
    featureNames: data.featureNames ?? data.columns.map((_, f) => `f${f}`),
    rounds: 0,
    history: [],
  }
  let sumWeight = 0
  for (let i = 0; i < N; i++) sumWeight += data.weights ? data.weights[i] : 1
  const eta = f32(p.eta)
  // LinearTrainParam::DenormalizePenalties: float penalties × the (double) weight sum, kept as float.
  const lambda = f32(f32(p.lambda) * sumWeight)
  const alpha = f32(f32(p.alpha) * sumWeight)
  const margins = new Float32Array(N)
  const g = new Float32Array(N)
  const h = new Float32Array(N)
  const early = earlyStopping(p)
  for (let round = 0; round < p.num_round; round++) {
    predictInto(model, data.columns, margins)
    gradients(p.objective, margins, data.labels, data.weights, p.scale_pos_weight, g, h)
    biasStep(model, g, h, eta)
    for (let f = 0; f < F; f++) featureStep(model, f, data.columns[f], g, h, eta, alpha, lambda)
    model.rounds = round + 1
    const metrics = data.valid ? validMetrics(model, data.valid, p, opts.evaluate) : {}
    model.history.push(metrics)
    const stopEarly = early(round, metrics)
    if (stopEarly !== undefined) model.bestIteration = stopEarly
    if (opts.onRound?.(round, metrics) === 'stop' || stopEarly !== undefined) break
  }
  return model
}

/** The bias step (CoordinateDeltaBias) over every row, then G += H·Δb (UpdateBiasResidualParallel). */
function biasStep(model: LinearModel, g: Float32Array, h: Float32Array, eta: number): void {
  let sg = 0,
    sh = 0
  for (let i = 0; i < g.length; i++) {
    if (h[i] < 0) continue
    sg += g[i]
    sh += h[i]
  }
  const db = f32(eta * (-sg / sh))
  model.bias = f32(model.bias + db)
  if (db === 0) return
  for (let i = 0; i < g.length; i++) if (h[i] >= 0) g[i] = g[i] + f32(h[i] * db)
}

/** One feature's step over its present rows (GetGradientParallel, CoordinateDelta, UpdateResidualParallel). */
function featureStep(
  model: LinearModel,
  f: number,
  x: Float32Array,
  g: Float32Array,
  h: Float32Array,
  eta: number,
  alpha: number,
  lambda: number,
): void {
  let sg = 0,
    sh = 0
  for (let i = 0; i < x.length; i++) {
    const v = x[i]
    if (Number.isNaN(v) || h[i] < 0) continue // NaN: absent from the sparse column
    sg += f32(g[i] * v)
    sh += f32(f32(h[i] * v) * v)
  }
  const w = model.weights[f]
  const dw = f32(eta * coordinateDelta(sg, sh, w, alpha, lambda))
  model.weights[f] = w + dw
  if (dw === 0) return
  for (let i = 0; i < x.length; i++) {
    const v = x[i]
    if (Number.isNaN(v) || h[i] < 0) continue
    g[i] = g[i] + f32(f32(h[i] * v) * dw)
  }
}

/** XGBoost's CoordinateDelta: the elastic-net Newton step for weight `w`, never crossing zero. */
export function coordinateDelta(sumGrad: number, sumHess: number, w: number, alpha: number, lambda: number): number {
  if (sumHess < f32(1e-5)) return 0
  const g = sumGrad + lambda * w
  const hl = sumHess + lambda
  if (w - g / hl >= 0) return Math.max(-(g + alpha) / hl, -w)
  return Math.min(-(g - alpha) / hl, -w)
}

/**
 * Margins of every row into `out` (GBLinear::Pred, float32): bias + base margin, then w_f·x_f
 * added feature by feature over the present values.
 */
export function predictInto(model: LinearModel, columns: Float32Array[], out: Float32Array): Float32Array {
  out.fill(f32(model.bias + baseMargin(model.objective, model.baseScore)))
  for (let f = 0; f < columns.length; f++) {
    const x = columns[f]
    const w = model.weights[f]
    for (let i = 0; i < out.length; i++) {
      const v = x[i]
      if (!Number.isNaN(v)) out[i] = out[i] + f32(v * w)
    }
  }
  return out
}

/** Margins of `columns` (N rows each). */
export function predictMargins(
  model: LinearModel,
  columns: Float32Array[],
  rows = columns[0]?.length ?? 0,
): Float32Array {
  return predictInto(model, columns, new Float32Array(rows))
}

/** Predictions (after the objective's transform) from margins. */
export function transformAll(model: Pick<LinearModel, 'objective'>, margins: Float32Array): Float32Array {
  return margins.map(m => transform(model.objective, m))
}

function validMetrics(
  model: LinearModel,
  valid: NonNullable<LinearData['valid']>,
  p: GblinearParams,
  evaluate: Evaluate | undefined,
): Record<string, number> {
  if (!evaluate) throw new Error('gblinear: validation rows need an evaluate function (src/eval)')
  const pred = transformAll(model, predictMargins(model, valid.columns, valid.labels.length))
  return Object.fromEntries(p.eval_metric.map(m => [m, evaluate(m, pred, valid.labels, valid.weights)]))
}

/**
 * XGBoost's early stopping on the last eval metric: stop after `early_stopping_rounds` rounds
 * without improvement; returns the best round when it stops, else undefined.
 */
function earlyStopping(p: GblinearParams): (round: number, metrics: Record<string, number>) => number | undefined {
  const k = p.early_stopping_rounds
  const metric = p.eval_metric[p.eval_metric.length - 1]
  let best = NaN,
    bestRound = 0
  return (round, metrics) => {
    const v = metrics[metric]
    if (k === undefined || v === undefined) return undefined
    const better = Number.isNaN(best) || (metric === 'auc' ? v > best : v < best)
    if (better) {
      best = v
      bestRound = round
    }
    return round - bestRound >= k ? bestRound : undefined
  }
}
