/**
 * Feature importance as XGBoost's `Booster.get_score(importance_type=…)` reports it (gbtree
 * `FeatureScore`), from the trees' split nodes: `weight` = number of splits on the feature,
 * `total_gain` / `total_cover` = sum of their loss_chg / sum_hessian, `gain` / `cover` = those
 * sums over the split count. Only features with at least one split appear, keyed by name.
 * T = trees, K = nodes of a tree, F = features.
 */
import type { Booster } from './types.ts'

/** The importance types, in XGBoost's documentation order. */
export const IMPORTANCE_TYPES = ['weight', 'gain', 'cover', 'total_gain', 'total_cover'] as const

/** One of IMPORTANCE_TYPES. */
export type ImportanceType = (typeof IMPORTANCE_TYPES)[number]

/**
 * Importance of each feature used in a split, over all trees (as get_score, which ignores
 * best_iteration). Sums are taken in f64 over the stored f32 statistics: XGBoost accumulates in
 * f32, so its numbers differ from these by at most its rounding (relative ≤ splits × 2⁻²⁴).
 *
 * @param type one of IMPORTANCE_TYPES
 * @returns feature name → score, in feature order; features never split on are absent
 * @throws RangeError naming the type when it is not one of IMPORTANCE_TYPES
 */
export function featureImportance(booster: Booster, type: ImportanceType): Record<string, number> {
  if (!(IMPORTANCE_TYPES as readonly string[]).includes(type))
    throw new RangeError(`importance type: ${String(type)} is not one of ${IMPORTANCE_TYPES.join(', ')}`)
  const F = booster.featureNames.length
  const splits = new Float64Array(F),
    gain = new Float64Array(F),
    cover = new Float64Array(F)
  for (const t of booster.trees) {
    for (let n = 0; n < t.left.length; n++) {
      if (t.left[n] === -1) continue // a leaf
      const f = t.splitIndex[n]
      splits[f]++
      gain[f] += t.lossChange[n]
      cover[f] += t.sumHessian[n]
    }
  }
  const score = (f: number): number => {
    switch (type) {
      case 'weight':
        return splits[f]
      case 'gain':
        return gain[f] / splits[f]
      case 'cover':
        return cover[f] / splits[f]
      case 'total_gain':
        return gain[f]
      case 'total_cover':
        return cover[f]
    }
  }
  const out: Record<string, number> = {}
  for (let f = 0; f < F; f++) if (splits[f] > 0) out[booster.featureNames[f]] = score(f)
  return out
}

/** Every importance type at once (what the page's chart switches between). */
export function allImportances(booster: Booster): Record<ImportanceType, Record<string, number>> {
  return Object.fromEntries(IMPORTANCE_TYPES.map(t => [t, featureImportance(booster, t)])) as Record<
    ImportanceType,
    Record<string, number>
  >
}
