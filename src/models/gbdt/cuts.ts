/**
 * Quantile cuts from sketches (XGBoost `HistogramCuts` + `AddCutPoint`): per feature, the
 * merged summary is pruned to SKETCH_RATIO · max_bin entries (XGBoost's `AllReduce` step), then
 * to max_bin + 1; its values after the first become bin upper bounds, and a last cut above the
 * maximum closes the range. F = features, B = total bins.
 */
import type { Cuts } from './types.ts'
import { SKETCH_RATIO, prune, sketchColumn, type Summary } from './sketch.ts'

export { SKETCH_RATIO }

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
export function buildCuts(
  columns: ArrayLike<number>[],
  maxBin: number,
  weights?: ArrayLike<number>,
  categorical?: CategoricalFeatures,
): Cuts {
  if (categorical) columns.forEach((c, f) => categorical.flags[f] && checkCategoryCodes(c, categorical.names[f]))
  const summaries = columns.map(c => sketchColumn(c, weights, maxBin))
  return cutsFromSketches(summaries, columns.map(hasMissing), maxBin, categorical)
}

/**
 * buildCuts from the features' merged sketches (sketchColumn, or mergeParts of parts sketched
 * elsewhere: ranks, loader workers) and whether each feature has a missing value.
 */
export function cutsFromSketches(
  summaries: Summary[],
  missing: boolean[],
  maxBin: number,
  categorical?: CategoricalFeatures,
): Cuts {
  const limits = summaries.map((_, f) => binLimit(maxBin, missing[f], categorical?.flags[f] === 1))
  // A feature with missing values has one byte value fewer: it is cut as XGBoost cuts it for
  // max_bin, then loses the one cut that separates the lightest pair of neighbouring bins
  // (dropToLimit), so its other cuts are XGBoost's own rather than those of max_bin − 1.
  return cutsFromSummaries(
    summaries,
    limits,
    categorical,
    limits.map(l => Math.max(l, Math.min(maxBin, 256))),
  )
}

/**
 * Cuts from (merged) per-feature summaries; `maxBins[f]` = bin limit of feature f (binLimit).
 * Features flagged in `categorical` get categoricalCuts instead of quantiles.
 */
export function cutsFromSummaries(
  summaries: Summary[],
  maxBins: number[],
  categorical?: CategoricalFeatures,
  sketchBins: number[] = maxBins,
): Cuts {
  const perFeature = summaries.map((s, f) => {
    if (categorical?.flags[f]) return categoricalCuts(s, maxBins[f], categorical.names[f])
    // Two prunes, as XGBoost makes them: pruning straight to max_bin + 1 picks other entries.
    const target = sketchBins[f]
    const pruned = prune(prune(s, SKETCH_RATIO * target), target + 1)
    return dropToLimit(featureCuts(pruned, target), pruned, maxBins[f])
  })
  const cutPtrs = new Uint32Array(summaries.length + 1)
  perFeature.forEach((c, f) => {
    cutPtrs[f + 1] = cutPtrs[f] + c.length
  })
  const cutValues = new Float32Array(cutPtrs[summaries.length])
  perFeature.forEach((c, f) => cutValues.set(c, cutPtrs[f]))
  const minValues = new Float32Array(summaries.map(minValue))
  const cuts: Cuts = { cutPtrs, cutValues, minValues }
  if (categorical?.flags.some(x => x === 1)) cuts.categorical = Uint8Array.from(categorical.flags)
  return cuts
}

/** Which features are split as categories (features.ts categoricalFlags), with names for messages. */
export interface CategoricalFeatures {
  /** Length F: 1 = categorical. */
  flags: Uint8Array
  names: readonly string[]
}

/**
 * Bins a feature may have: max_bin for a numeric one, at most 255 beside the missing byte. A
 * categorical feature needs a bin per code whatever max_bin says (XGBoost does not sketch
 * categories), so only the byte limits it: 256, or 255 with missing values.
 */
export function binLimit(maxBin: number, missing: boolean, categorical = false): number {
  const limit = categorical ? 256 : maxBin
  return missing ? Math.min(limit, 255) : limit
}

/**
 * Refuses a categorical column whose values are not category codes (non-negative integers; NaN =
 * missing), naming the column, the row and the value.
 */
export function checkCategoryCodes(column: ArrayLike<number>, name: string): void {
  for (let i = 0; i < column.length; i++) {
    const v = column[i]
    if (!Number.isNaN(v) && !(Number.isInteger(v) && v >= 0)) {
      throw new RangeError(
        `feature ${name}: a categorical column must hold non-negative integer codes, got ${v} at row ${i}`,
      )
    }
  }
}

/**
 * Cuts of a categorical feature from its summary (whose last entry is always the exact maximum):
 * one bin per code 0 … max, cut b = b + 1 (types.ts Cuts.categorical). Throws RangeError when the
 * codes need more bins than `limit`, saying what to change.
 */
export function categoricalCuts(s: Summary, limit: number, name: string): number[] {
  const max = s.values.length > 0 ? s.values[s.values.length - 1] : 0
  if (max + 1 > limit) {
    throw new RangeError(
      `feature ${name}: categorical codes up to ${max} need ${max + 1} bins, more than the ${limit} a feature holds` +
        `${limit < 256 ? ' beside its missing values' : ''}: merge rare categories into fewer codes, ` +
        'or split it as a number (leave it out of categorical, or enable_categorical=false for string columns)',
    )
  }
  return Array.from({ length: max + 1 }, (_, b) => b + 1)
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

/**
 * `cuts` with at most `limit` entries: while there are too many, the interior cut whose two
 * neighbouring bins weigh least together (ranks from the summary `s`) is dropped, merging them;
 * the last cut (above the max) always stays. Ties drop the lower cut.
 */
function dropToLimit(cuts: number[], s: Summary, limit: number): number[] {
  if (cuts.length <= limit) return cuts
  const out = cuts.slice()
  const rank = (v: number): number => {
    // Rank below v: rmin of the first summary entry ≥ v (the whole weight past the last one).
    let lo = 0,
      hi = s.values.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (s.values[mid] < v) lo = mid + 1
      else hi = mid
    }
    return lo < s.values.length ? s.rmin[lo] : s.rmax[s.values.length - 1]
  }
  while (out.length > limit) {
    let best = 0,
      bestWeight = Infinity
    for (let k = 0; k + 1 < out.length; k++) {
      const w = rank(out[k + 1]) - (k > 0 ? rank(out[k - 1]) : 0)
      if (w < bestWeight) {
        bestWeight = w
        best = k
      }
    }
    out.splice(best, 1)
  }
  return out
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
