/**
 * Quantile cuts from sketches (XGBoost `HistogramCuts` + `AddCutPoint`): per feature, the
 * summary is pruned to max_bin + 1 entries; its values after the first become bin upper bounds,
 * and a last cut above the maximum closes the range. F = features, B = total bins.
 */
import type { Cuts } from './types.ts'
import { prune, sketchColumn, type Summary } from './sketch.ts'

/** Sketch entries kept per feature while merging chunks, per requested bin (XGBoost: 8). */
export const SKETCH_RATIO = 8

/** True when the column has a NaN (missing value). */
export function hasMissing(column: ArrayLike<number>): boolean {
  for (let i = 0; i < column.length; i++) if (Number.isNaN(column[i])) return true
  return false
}

/**
 * Cuts of `columns` (Float32Array per feature, NaN = missing) with at most `maxBin` bins per
 * feature (at most 255 for a feature with missing values: byte 0 marks missing). `weights`:
 * optional row weights. A constant feature gets one bin; an all-missing feature one bin too.
 */
export function buildCuts(columns: ArrayLike<number>[], maxBin: number, weights?: ArrayLike<number>): Cuts {
  const summaries = columns.map(c => sketchColumn(c, weights, SKETCH_RATIO * maxBin))
  const limits = columns.map(c => (hasMissing(c) ? Math.min(maxBin, 255) : maxBin))
  return cutsFromSummaries(summaries, limits)
}

/** Cuts from (merged) per-feature summaries; `maxBins[f]` = bin limit of feature f. */
export function cutsFromSummaries(summaries: Summary[], maxBins: number[]): Cuts {
  const perFeature = summaries.map((s, f) => featureCuts(prune(s, maxBins[f] + 1), maxBins[f]))
  const cutPtrs = new Uint32Array(summaries.length + 1)
  perFeature.forEach((c, f) => {
    cutPtrs[f + 1] = cutPtrs[f] + c.length
  })
  const cutValues = new Float32Array(cutPtrs[summaries.length])
  perFeature.forEach((c, f) => cutValues.set(c, cutPtrs[f]))
  const minValues = new Float32Array(summaries.map(minValue))
  return { cutPtrs, cutValues, minValues }
}

/** XGBoost AddCutPoint: values 1 … min(size, maxBin) − 1 (increasing, deduplicated in f32) + last. */
function featureCuts(s: Summary, maxBin: number): number[] {
  const size = s.values.length
  const cuts: number[] = []
  const required = Math.min(size, maxBin)
  for (let i = 1; i < required; i++) {
    const c = Math.fround(s.values[i])
    if (cuts.length === 0 || c > cuts[cuts.length - 1]) cuts.push(c)
  }
  const max = size > 0 ? s.values[size - 1] : 0
  // Strictly above the max, so the largest value still falls into the last bin.
  let last = Math.fround(max + (Math.abs(max) + 1e-5))
  if (cuts.length > 0 && last <= cuts[cuts.length - 1]) last = cuts[cuts.length - 1] * 2 + 1
  cuts.push(last)
  return cuts
}

/** XGBoost min_vals: below the smallest value, the split point "all non-missing go right". */
function minValue(s: Summary): number {
  const min = s.values.length > 0 ? s.values[0] : 0
  return Math.fround(min - (Math.abs(min) + 1e-5))
}

/** Number of bins of feature f. */
export function featureBins(cuts: Cuts, f: number): number {
  return cuts.cutPtrs[f + 1] - cuts.cutPtrs[f]
}

/** Bin of value `v` in feature f: the first b with v < cut[b]; above all cuts → the last bin. */
export function searchBin(cuts: Cuts, f: number, v: number): number {
  let lo = cuts.cutPtrs[f],
    hi = cuts.cutPtrs[f + 1] - 1
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (v < cuts.cutValues[mid]) hi = mid
    else lo = mid + 1
  }
  return lo - cuts.cutPtrs[f]
}
