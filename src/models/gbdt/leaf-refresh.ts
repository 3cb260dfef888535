/**
 * Leaf values of the quantile objectives (reg:absoluteerror, reg:quantileerror): after a tree is
 * grown on sign gradients, each leaf's value becomes eta × the α-quantile of the residuals y − m of
 * the training rows in it (XGBoost `ObjFunction::UpdateTreeLeaf` → `detail::UpdateTreeLeafHost`,
 * src/objective/adaptive.cc, with `common::Quantile` / `WeightedQuantile` of src/common/stats.h),
 * in f32 as XGBoost. Rows with a zero hessian (not sampled this round, or weight 0) take no part, as
 * XGBoost's LeafPartition; a leaf no row reaches keeps its value. eta: XGBoost ≥ 2.0 (#8866)
 * multiplies the quantile by the learning rate; 1.7.4 did not (the same trees with eta = 1).
 * N = rows.
 */
import type { Tree } from './types.ts'
import { ROW_UNUSED } from '../../kernels/gbdt/layout.ts'

const f32 = Math.fround

/** Indices of `v` sorted by value, ties in index order (std::stable_sort). */
function sortedOrder(v: Float32Array): number[] {
  return Array.from({ length: v.length }, (_, i) => i).sort((a, b) => v[a] - v[b] || a - b)
}

/**
 * XGBoost's `common::Quantile`: linear interpolation (NIST method) of the α-quantile of `v`; the
 * smallest / largest value outside [1/(n+1), n/(n+1)]; NaN for no values.
 */
export function xgbQuantile(alpha: number, v: Float32Array): number {
  const n = v.length
  if (n === 0) return NaN
  const order = sortedOrder(v)
  if (alpha <= 1 / (n + 1)) return v[order[0]]
  if (alpha >= n / (n + 1)) return v[order[n - 1]]
  const x = alpha * (n + 1)
  const k = Math.floor(x) - 1
  const d = x - 1 - k
  const v0 = v[order[k]],
    v1 = v[order[k + 1]]
  // float − float, then double arithmetic, rounded to the float XGBoost returns.
  return f32(v0 + d * f32(v1 - v0))
}

/**
 * XGBoost's `common::WeightedQuantile`: the first sorted value whose f32 running weight sum reaches
 * α × the total (a step function, no interpolation); NaN for no values.
 */
export function weightedQuantile(alpha: number, v: Float32Array, w: Float32Array): number {
  const n = v.length
  if (n === 0) return NaN
  const order = sortedOrder(v)
  const cdf = new Float32Array(n)
  cdf[0] = w[order[0]]
  for (let i = 1; i < n; i++) cdf[i] = f32(cdf[i - 1] + w[order[i]])
  const thresh = f32(cdf[n - 1] * alpha)
  let idx = 0
  while (idx < n && cdf[idx] < thresh) idx++
  return v[order[Math.min(idx, n - 1)]]
}

/**
 * base_score of the quantile objectives when the parameters give none (XGBoost 2.0's
 * InitEstimation): the α-quantile of the labels, weighted when weights are given; 0 without rows.
 */
export function labelQuantile(alpha: number, labels: ArrayLike<number>, weights?: ArrayLike<number>): number {
  if (labels.length === 0) return 0
  const y = Float32Array.from(labels)
  return weights ? weightedQuantile(alpha, y, Float32Array.from(weights)) : xgbQuantile(alpha, y)
}

/** What the refresh reads about the training rows (length N each). */
export interface LeafRows {
  /** Node id of each row after the tree was grown (backend positions); ROW_UNUSED = no part. */
  positions: Uint32Array
  /** Margins before this tree. */
  margins: Float32Array
  labels: Float32Array
  /** Row weights, or undefined (XGBoost's unweighted Quantile then). */
  weights?: Float32Array
  /** Whether row i was sampled this round (its hessian is non-zero). */
  sampled: (i: number) => boolean
}

/**
 * Sets each leaf of `tree` reached by some row to f32(q · eta), q = the α-quantile of its rows'
 * f32 residuals y − m (weighted when weights are given). Split nodes and base weights are left as
 * they are (XGBoost's SetLeaf changes the leaf value only).
 */
export function refreshLeaves(tree: Tree, rows: LeafRows, alpha: number, eta: number): void {
  const byLeaf = new Map<number, number[]>()
  const { positions, margins, labels, weights } = rows
  for (let i = 0; i < positions.length; i++) {
    const nid = positions[i]
    if (nid === ROW_UNUSED || !rows.sampled(i) || (weights && weights[i] === 0)) continue
    let list = byLeaf.get(nid)
    if (!list) byLeaf.set(nid, (list = []))
    list.push(i)
  }
  const lr = f32(eta)
  for (const [nid, list] of byLeaf) {
    if (tree.left[nid] !== -1) throw new Error(`leaf refresh: node ${nid} holds rows but is not a leaf`)
    const r = Float32Array.from(list, i => labels[i] - margins[i])
    const q = weights
      ? weightedQuantile(
          alpha,
          r,
          Float32Array.from(list, i => weights[i]),
        )
      : xgbQuantile(alpha, r)
    tree.splitCondition[nid] = f32(q * lr)
  }
}
