/**
 * What the page's per-task result views draw, from a run's validation rows (RunResult.validation:
 * V labels and V predictions, V × K probabilities row-major for a multiclass run): a seeded
 * sample of rows for scatter plots, residuals and their histogram, R², the multiclass confusion
 * matrix (rows = true class) and per-class precision, recall, F1 and support — and the compact
 * copy of the rows a kept run stores. Pure and unweighted (row weights are not carried to the
 * page). V = validation rows, K = classes.
 */
import type { ValidationScores } from '../run/config.ts'
import type { Task } from '../models/registry.ts'
import { Rng, sampleInPlace } from '../util/rng.ts'

/** Rows a scatter plot draws at most (and a kept regression or multiclass run stores). */
export const SAMPLE_ROWS = 2000
/** Seed of that sample: the same run always shows the same points. */
export const SAMPLE_SEED = 29

/** At most `max` distinct row indices of `n`, a seeded uniform sample, ascending (all rows when n ≤ max). */
export function sampleRows(n: number, max = SAMPLE_ROWS, seed = SAMPLE_SEED): Uint32Array {
  const all = Uint32Array.from({ length: n }, (_, i) => i)
  if (n <= max) return all
  sampleInPlace(all, max, new Rng(seed))
  return all.slice(0, max).sort()
}

/** actual − predicted, row by row. */
export function residuals(actual: ArrayLike<number>, predicted: ArrayLike<number>): Float64Array {
  if (actual.length !== predicted.length)
    throw new RangeError(`labels (${actual.length}) and predictions (${predicted.length}): lengths differ`)
  return Float64Array.from({ length: actual.length }, (_, i) => actual[i] - predicted[i])
}

/** A histogram: `counts[b]` values in [edges[b], edges[b + 1]) (the last bin includes its upper edge). */
export interface Histogram {
  edges: number[]
  counts: number[]
}

/** Histogram of the finite `values` in `bins` equal bins over their range (one bin when they are all equal). */
export function histogram(values: ArrayLike<number>, bins = 30): Histogram {
  let lo = Number.POSITIVE_INFINITY,
    hi = Number.NEGATIVE_INFINITY
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    if (!Number.isFinite(v)) continue
    lo = Math.min(lo, v)
    hi = Math.max(hi, v)
  }
  if (lo > hi) return { edges: [], counts: [] }
  const n = hi > lo ? bins : 1
  const width = hi > lo ? (hi - lo) / n : 1
  const counts = new Array<number>(n).fill(0)
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    if (Number.isFinite(v)) counts[Math.min(n - 1, Math.floor((v - lo) / width))]++
  }
  return {
    edges: Array.from({ length: n + 1 }, (_, b) => (b === n ? (hi > lo ? hi : lo + 1) : lo + b * width)),
    counts,
  }
}

/** The outline of `h` as a line: (edge, 0), then each bin's top, back to 0 (a step curve for a line chart). */
export function histogramOutline(h: Histogram): { xs: number[]; ys: number[] } {
  const xs: number[] = [],
    ys: number[] = []
  h.counts.forEach((c, b) => {
    xs.push(h.edges[b], h.edges[b])
    ys.push(b === 0 ? 0 : h.counts[b - 1], c)
  })
  if (h.counts.length) {
    xs.push(h.edges[h.counts.length], h.edges[h.counts.length])
    ys.push(h.counts[h.counts.length - 1], 0)
  }
  return { xs, ys }
}

/** Coefficient of determination 1 − Σ(y − ŷ)² / Σ(y − ȳ)²; NaN when the labels do not vary. */
export function rSquared(actual: ArrayLike<number>, predicted: ArrayLike<number>): number {
  const r = residuals(actual, predicted)
  let mean = 0
  for (let i = 0; i < actual.length; i++) mean += actual[i]
  mean /= actual.length
  let ssRes = 0,
    ssTot = 0
  for (let i = 0; i < actual.length; i++) {
    ssRes += r[i] * r[i]
    ssTot += (actual[i] - mean) ** 2
  }
  return ssTot > 0 ? 1 - ssRes / ssTot : Number.NaN
}

/** K of a multiclass run's validation rows: predictions per row (V × K probabilities); RangeError unless a whole K ≥ 2. */
export function classCount(v: Pick<ValidationScores, 'labels' | 'scores'>): number {
  const k = v.labels.length > 0 ? v.scores.length / v.labels.length : 0
  if (!Number.isInteger(k) || k < 2)
    throw new RangeError(
      `multiclass results: ${v.scores.length} probabilities for ${v.labels.length} validation rows, not K ≥ 2 per row`,
    )
  return k
}

/** Each row's predicted class: the argmax of its K probabilities (ties to the lowest class, as XGBoost's multi:softmax). */
export function predictedClasses(probabilities: ArrayLike<number>, k: number): Uint32Array {
  const out = new Uint32Array(Math.floor(probabilities.length / k))
  for (let i = 0; i < out.length; i++) {
    let best = 0
    for (let c = 1; c < k; c++) if (probabilities[i * k + c] > probabilities[i * k + best]) best = c
    out[i] = best
  }
  return out
}

/** K × K counts: [true class][predicted class]; a label not in 0…K−1 is refused naming its row. */
export function confusionMatrix(labels: ArrayLike<number>, predicted: ArrayLike<number>, k: number): number[][] {
  if (labels.length !== predicted.length)
    throw new RangeError(`labels (${labels.length}) and predictions (${predicted.length}): lengths differ`)
  const m = Array.from({ length: k }, () => new Array<number>(k).fill(0))
  for (let i = 0; i < labels.length; i++) {
    const y = labels[i]
    if (!(Number.isInteger(y) && y >= 0 && y < k))
      throw new RangeError(`multiclass results: validation row ${i} has label ${y}, not a class in 0…${k - 1}`)
    m[y][predicted[i]]++
  }
  return m
}

/** One class's scores from the confusion matrix; NaN where undefined (no row predicted or labelled so). */
export interface ClassScores {
  precision: number
  recall: number
  f1: number
  /** Validation rows of this true class. */
  support: number
}

/** Per-class precision (of the rows predicted k), recall (of the rows labelled k), F1 and support. */
export function classScores(matrix: readonly (readonly number[])[]): ClassScores[] {
  return matrix.map((row, k) => {
    const tp = row[k]
    const support = row.reduce((a, b) => a + b, 0)
    const predicted = matrix.reduce((a, r) => a + r[k], 0)
    const precision = predicted > 0 ? tp / predicted : Number.NaN
    const recall = support > 0 ? tp / support : Number.NaN
    const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : Number.NaN
    return { precision, recall, f1, support }
  })
}

/**
 * The validation rows a kept run stores (the Runs list; run-compare draws a binary run's ROC from
 * them): a binary run's all of them (the curves need every score), a regression or multiclass
 * run's seeded sample of SAMPLE_ROWS (its K probabilities each), a ranking run's none (its rows
 * only mean something per query group).
 */
export function storedValidation(task: Task, v: ValidationScores): ValidationScores | undefined {
  if (task === 'binary') return v
  if (task === 'ranking') return undefined
  const k = v.labels.length > 0 ? v.scores.length / v.labels.length : 1
  const rows = sampleRows(v.labels.length)
  if (rows.length === v.labels.length) return v
  const scores = new Float32Array(rows.length * k)
  rows.forEach((r, i) => scores.set(v.scores.subarray(r * k, r * k + k), i * k))
  return { ...v, labels: Float32Array.from(rows, r => v.labels[r]), scores }
}
