/**
 * Prediction on raw features (XGBoost's CPU predictor): walk each tree with `nextNode` (v <
 * split_condition goes left, a categorical node's set goes right, NaN takes the default
 * direction); margin = base margin + Σ leaf values. The reference for the GPU predict kernel.
 * A multiclass booster (K = numClass ≥ 2) has K margins per row: tree t adds to class t % K
 * (round-major trees), and its outputs are N × K row-major (row i, class k at i·K + k), as
 * XGBoost's predict(output_margin=True) of shape (N, K). N = rows, F = features, T = trees.
 */
import type { Booster, Tree } from './types.ts'
import { baseMargin, transformRows } from './objective.ts'
import { nextNode } from './tree.ts'

/** Leaf id reached by row `i` of `columns` (F arrays of N values, NaN = missing). */
export function leafOf(tree: Tree, columns: ArrayLike<number>[], i: number): number {
  let n = 0
  while (tree.left[n] !== -1) n = nextNode(tree, n, columns[tree.splitIndex[n]][i])
  return n
}

/**
 * Adds tree's leaf value to `margins` for every row: one output per row (length N, the default),
 * or output `k` of `K` per row (margins N × K row-major).
 */
export function addTree(tree: Tree, columns: ArrayLike<number>[], margins: Float32Array, K = 1, k = 0): void {
  const rows = margins.length / K
  for (let i = 0; i < rows; i++) margins[i * K + k] += tree.splitCondition[leafOf(tree, columns, i)]
}

/**
 * Raw margins (Float32Array, N × K row-major; K = 1 but for multiclass) of the first `nTrees`
 * trees (default all), starting at the booster's base margin, or at each row's own `start`
 * margins (XGBoost's DMatrix base_margin, N × K) — what XGBoost's predict(output_margin=True)
 * returns. Each output sums base + its trees in tree order in f32, as XGBoost's CPU predictor.
 */
export function predictMargins(
  booster: Booster,
  columns: ArrayLike<number>[],
  nTrees = booster.trees.length,
  start?: Float32Array,
): Float32Array {
  const rows = columns.length > 0 ? columns[0].length : 0
  const K = booster.numClass ?? 1
  if (start && start.length !== rows * K)
    throw new RangeError(`base margin: ${start.length} values for ${rows} rows × ${K} outputs`)
  const margins = start
    ? start.slice()
    : new Float32Array(rows * K).fill(baseMargin(booster.params.objective, booster.baseScore))
  for (let t = 0; t < nTrees; t++) addTree(booster.trees[t], columns, margins, K, t % K)
  return margins
}

/**
 * The class of each row (length N) from its K scores (N × K row-major): the first largest, as
 * XGBoost 1.7.4's multi:softmax prediction (ties to the lowest class; a NaN score never wins).
 */
export function argmaxRows(scores: ArrayLike<number>, K: number): Float32Array {
  const out = new Float32Array(scores.length / K)
  for (let i = 0; i < out.length; i++) {
    let best = 0
    for (let k = 1; k < K; k++) if (scores[i * K + k] > scores[i * K + best]) best = k
    out[i] = best
  }
  return out
}

/**
 * Predictions after the objective's transform: one per row (probabilities for logistic
 * objectives); for multiclass the softmax probabilities N × K (multi:softprob) or the class
 * index per row (multi:softmax), as XGBoost's predict.
 */
export function predict(booster: Booster, columns: ArrayLike<number>[], nTrees?: number): Float32Array {
  const m = predictMargins(booster, columns, nTrees)
  const K = booster.numClass ?? 1
  return booster.params.objective === 'multi:softmax' ? argmaxRows(m, K) : transformRows(booster.params.objective, m, K)
}
