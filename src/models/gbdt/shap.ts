/**
 * SHAP values of a booster (XGBoost's `predict(pred_contribs=True)`): the CPU path of
 * `predict --contribs` and what the tree_shap kernel is checked against. The algorithm is the
 * kernel's reference (src/kernels/gbdt/tree_shap.ref.ts) run on the packed trees, so the CPU and
 * GPU paths are one program. A multiclass booster (K classes) is explained class by class over
 * that class's trees (tree t is class t % K), in XGBoost 1.7.4's layout (N, K, F + 1).
 * N = rows, F = features, K = outputs per row (1 but for multiclass).
 */
import { NODE_WORDS, packCovers, packTrees } from '../../kernels/gbdt/layout.ts'
import { treeShap as treeShapPacked } from '../../kernels/gbdt/tree_shap.ref.ts'
import { baseMargin } from './objective.ts'
import type { Booster, Tree } from './types.ts'

/** The trees of class `k` of `K` among `trees` (round-major: tree t is class t % K), in tree order. */
export function classTrees(trees: readonly Tree[], K: number, k: number): Tree[] {
  return trees.filter((_, t) => t % K === k)
}

/**
 * SHAP values of the first `nTrees` trees (default all) for every row of `columns` (F arrays of
 * N values, NaN = missing): Float32Array [N × K × (F + 1)] row-major (K = 1 but for multiclass:
 * XGBoost's (N, K, F + 1)), column F of each class the bias (base margin + each of the class's
 * trees' cover-weighted mean leaf value). Each row's class sums to its predictMargins margin.
 */
export function treeShap(
  booster: Booster,
  columns: ArrayLike<number>[],
  nTrees = booster.trees.length,
): Float32Array<ArrayBuffer> {
  const rows = columns.length > 0 ? columns[0].length : 0,
    F = columns.length,
    K = booster.numClass ?? 1
  const features = new Float32Array(rows * F)
  columns.forEach((c, f) => {
    for (let i = 0; i < rows; i++) features[i * F + f] = c[i]
  })
  const out = new Float32Array(rows * K * (F + 1))
  const byFeature = new Float32Array(rows * (F + 1))
  for (let k = 0; k < K; k++) {
    const trees = classTrees(booster.trees.slice(0, nTrees), K, k)
    const packed = packTrees(trees)
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
    contribsRowMajor(byFeature, rows, F + 1, out, 0, K, k)
  }
  return out
}

/**
 * Copies `n` rows of feature-major contributions (tree_shap's layout: value j of row i at j·n + i)
 * into row-major `dst` ([rows × K × width]) as class `k`, starting at row `start`.
 */
export function contribsRowMajor(
  src: ArrayLike<number>,
  n: number,
  width: number,
  dst: Float32Array,
  start: number,
  K = 1,
  k = 0,
): void {
  for (let j = 0; j < width; j++) {
    for (let i = 0; i < n; i++) dst[((start + i) * K + k) * width + j] = src[j * n + i]
  }
}

/** One feature's mean |SHAP| over the rows. */
export interface FeatureImpact {
  feature: string
  mean_abs_shap: number
}

/**
 * The `k` features (default 10) with the largest mean |SHAP| over the rows of `contribs`
 * ([N × K × (F + 1)] row-major, bias last and left out), largest first; ties keep column order.
 * With K classes a feature's score is Σ_k mean_i |φ_ik| (the shap package's multiclass bar: each
 * class's mean stacked), or with `only` = c class c's mean_i |φ_ic| alone.
 */
export function topFeatures(
  contribs: ArrayLike<number>,
  names: readonly string[],
  k = 10,
  classes = 1,
  only?: number,
): FeatureImpact[] {
  const F = names.length,
    rows = contribs.length / (classes * (F + 1))
  const sums = new Float64Array(F)
  for (let r = 0; r < rows * classes; r++) {
    if (only !== undefined && r % classes !== only) continue
    for (let f = 0; f < F; f++) sums[f] += Math.abs(contribs[r * (F + 1) + f])
  }
  return names
    .map((feature, f) => ({ feature, mean_abs_shap: rows > 0 ? sums[f] / rows : 0 }))
    .sort((a, b) => b.mean_abs_shap - a.mean_abs_shap)
    .slice(0, k)
}
