/**
 * Prediction on raw features (XGBoost's CPU predictor): walk each tree with `nextNode` (v <
 * split_condition goes left, a categorical node's set goes right, NaN takes the default
 * direction); margin = base margin + Σ leaf values. The reference for the GPU predict kernel.
 * N = rows, F = features, T = trees.
 */
import type { Booster, Tree } from './types.ts'
import { baseMargin, transform } from './objective.ts'
import { nextNode } from './tree.ts'

/** Leaf id reached by row `i` of `columns` (F arrays of N values, NaN = missing). */
export function leafOf(tree: Tree, columns: ArrayLike<number>[], i: number): number {
  let n = 0
  while (tree.left[n] !== -1) n = nextNode(tree, n, columns[tree.splitIndex[n]][i])
  return n
}

/** Adds tree's leaf value to `margins` (Float32Array, length N) for every row. */
export function addTree(tree: Tree, columns: ArrayLike<number>[], margins: Float32Array): void {
  for (let i = 0; i < margins.length; i++) margins[i] += tree.splitCondition[leafOf(tree, columns, i)]
}

/**
 * Raw margins (Float32Array, length N) of the first `nTrees` trees (default all), starting at
 * the booster's base margin, or at each row's own `start` margin (XGBoost's DMatrix base_margin,
 * length N) — what XGBoost's predict(output_margin=True) returns.
 */
export function predictMargins(
  booster: Booster,
  columns: ArrayLike<number>[],
  nTrees = booster.trees.length,
  start?: Float32Array,
): Float32Array {
  const rows = columns.length > 0 ? columns[0].length : 0
  if (start && start.length !== rows) throw new RangeError(`base margin: ${start.length} values for ${rows} rows`)
  const margins = start
    ? start.slice()
    : new Float32Array(rows).fill(baseMargin(booster.params.objective, booster.baseScore))
  for (let t = 0; t < nTrees; t++) addTree(booster.trees[t], columns, margins)
  return margins
}

/** Predictions after the objective's transform (probabilities for logistic objectives). */
export function predict(booster: Booster, columns: ArrayLike<number>[], nTrees?: number): Float32Array {
  const m = predictMargins(booster, columns, nTrees)
  return m.map(x => transform(booster.params.objective, x))
}
