/**
 * SHAP values of a booster (XGBoost's `predict(pred_contribs=True)`): the CPU path of
 * `predict --contribs` and what the tree_shap kernel is checked against. The algorithm is the
 * kernel's reference (src/kernels/gbdt/tree_shap.ref.ts) run on the packed trees, so the CPU and
 * GPU paths are one program. N = rows, F = features.
 */
import { NODE_WORDS, packCovers, packTrees } from '../../kernels/gbdt/layout.ts'
import { treeShap as treeShapPacked } from '../../kernels/gbdt/tree_shap.ref.ts'
import { baseMargin } from './objective.ts'
import type { Booster } from './types.ts'

/**
 * SHAP values of the first `nTrees` trees (default all) for every row of `columns` (F arrays of
 * N values, NaN = missing): Float32Array [N × (F + 1)] row-major, column F the bias (base margin
 * + each tree's cover-weighted mean leaf value). Each row sums to its predictMargins margin.
 */
export function treeShap(
  booster: Booster,
  columns: ArrayLike<number>[],
  nTrees = booster.trees.length,
): Float32Array<ArrayBuffer> {
  const rows = columns.length > 0 ? columns[0].length : 0,
    F = columns.length
  const trees = booster.trees.slice(0, nTrees)
  const packed = packTrees(trees)
  const features = new Float32Array(rows * F)
  columns.forEach((c, f) => {
    for (let i = 0; i < rows; i++) features[i * F + f] = c[i]
  })
  const byFeature = new Float32Array(rows * (F + 1))
  treeShapPacked(
    features,
    packed.nodes,
    packed.catBits,
    packed.treeOffsets,
    packCovers(trees),
    byFeature,
    { rows, features: F, trees: trees.length, nodes: packed.nodes.length / NODE_WORDS, maxDepth: packed.maxDepth },
    baseMargin(booster.params.objective, booster.baseScore),
  )
  const out = new Float32Array(rows * (F + 1))
  contribsRowMajor(byFeature, rows, F + 1, out, 0)
  return out
}

/**
 * Copies `n` rows of feature-major contributions (tree_shap's layout: value j of row i at j·n + i)
 * into row-major `dst` ([rows × width]) starting at row `start`.
 */
export function contribsRowMajor(
  src: ArrayLike<number>,
  n: number,
  width: number,
  dst: Float32Array,
  start: number,
): void {
  for (let j = 0; j < width; j++) {
    for (let i = 0; i < n; i++) dst[(start + i) * width + j] = src[j * n + i]
  }
}

/** One feature's mean |SHAP| over the rows. */
export interface FeatureImpact {
  feature: string
  mean_abs_shap: number
}

/**
 * The `k` features (default 10) with the largest mean |SHAP| over the rows of `contribs`
 * ([N × (F + 1)] row-major, bias last and left out), largest first; ties keep column order.
 */
export function topFeatures(contribs: ArrayLike<number>, names: readonly string[], k = 10): FeatureImpact[] {
  const F = names.length,
    rows = contribs.length / (F + 1)
  const sums = new Float64Array(F)
  for (let i = 0; i < rows; i++) for (let f = 0; f < F; f++) sums[f] += Math.abs(contribs[i * (F + 1) + f])
  return names
    .map((feature, f) => ({ feature, mean_abs_shap: rows > 0 ? sums[f] / rows : 0 }))
    .sort((a, b) => b.mean_abs_shap - a.mean_abs_shap)
    .slice(0, k)
}
