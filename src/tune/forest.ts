/**
 * A small regression forest over the unit cube (the surrogate of the importance estimate):
 * CART trees on bootstrap samples, exhaustive axis-aligned splits by squared error, leaves as
 * boxes. N = points, d = dimensions.
 */
import type { Rng } from '../util/rng.ts'

/** A leaf as a box [lo, hi) per dimension with its mean value. */
export interface Leaf {
  lo: number[]
  hi: number[]
  value: number
}

/** Tree growth limits. */
export interface TreeOptions {
  maxDepth: number
  minLeaf: number
}

/** Fits one tree to rows `idx` of X (N × d, unit cube) and y (length N); returns its leaves. */
export function fitTree(X: readonly number[][], y: readonly number[], idx: number[], o: TreeOptions): Leaf[] {
  const d = X[0]?.length ?? 0
  const leaves: Leaf[] = []
  grow(idx, new Array<number>(d).fill(0), new Array<number>(d).fill(1), 0)
  return leaves

  function grow(rows: number[], lo: number[], hi: number[], depth: number): void {
    const split = depth < o.maxDepth ? bestSplit(X, y, rows, o.minLeaf) : undefined
    if (!split) {
      leaves.push({ lo, hi, value: mean(rows.map(i => y[i])) })
      return
    }
    const { dim, cut } = split
    grow(
      rows.filter(i => X[i][dim] < cut),
      lo,
      hi.map((h, k) => (k === dim ? cut : h)),
      depth + 1,
    )
    grow(
      rows.filter(i => X[i][dim] >= cut),
      lo.map((l, k) => (k === dim ? cut : l)),
      hi,
      depth + 1,
    )
  }
}

/** The split of `rows` that most reduces squared error (prefix sums over each sorted dimension). */
function bestSplit(
  X: readonly number[][],
  y: readonly number[],
  rows: number[],
  minLeaf: number,
): { dim: number; cut: number } | undefined {
  const n = rows.length,
    total = rows.reduce((s, i) => s + y[i], 0)
  let best: { dim: number; cut: number } | undefined,
    bestGain = 1e-12
  for (let dim = 0; dim < (X[0]?.length ?? 0); dim++) {
    const sorted = [...rows].sort((a, b) => X[a][dim] - X[b][dim])
    let left = 0
    for (let k = 1; k < n; k++) {
      left += y[sorted[k - 1]]
      const a = X[sorted[k - 1]][dim],
        b = X[sorted[k]][dim]
      if (k < minLeaf || n - k < minLeaf || a === b) continue
      // SSE reduction = Σ_L²/n_L + Σ_R²/n_R − Σ²/n.
      const gain = (left * left) / k + (total - left) ** 2 / (n - k) - (total * total) / n
      if (gain > bestGain) {
        bestGain = gain
        best = { dim, cut: (a + b) / 2 }
      }
    }
  }
  return best
}

/** Fits `trees` trees on bootstrap samples drawn from `rng`. */
export function fitForest(
  X: readonly number[][],
  y: readonly number[],
  trees: number,
  rng: Rng,
  o: TreeOptions,
): Leaf[][] {
  return Array.from({ length: trees }, () =>
    fitTree(
      X,
      y,
      Array.from({ length: y.length }, () => rng.int(y.length)),
      o,
    ),
  )
}

/**
 * fANOVA main effects of one tree (Hutter et al. 2014): the fraction of the tree's variance over
 * the uniform cube explained by each dimension's marginal f_j(x_j) = ∫ f dx_{−j}. Length d; zeros
 * when the tree is constant.
 */
export function mainEffects(leaves: readonly Leaf[], d: number): number[] {
  const vol = leaves.map(l => l.lo.reduce((v, lo, k) => v * (l.hi[k] - lo), 1))
  const mu = leaves.reduce((s, l, i) => s + vol[i] * l.value, 0)
  const total = leaves.reduce((s, l, i) => s + vol[i] * (l.value - mu) ** 2, 0)
  if (!(total > 1e-15)) return new Array<number>(d).fill(0)
  return Array.from({ length: d }, (_, j) => marginalVariance(leaves, vol, mu, j) / total)
}

function marginalVariance(leaves: readonly Leaf[], vol: readonly number[], mu: number, j: number): number {
  const cuts = [...new Set(leaves.flatMap(l => [l.lo[j], l.hi[j]]))].sort((a, b) => a - b)
  let v = 0
  for (let k = 0; k + 1 < cuts.length; k++) {
    const m = (cuts[k] + cuts[k + 1]) / 2
    // f_j(m): the leaves covering m along j, each weighted by its volume in the other dimensions.
    const f = leaves.reduce(
      (s, l, i) => (l.lo[j] <= m && m < l.hi[j] ? s + (l.value * vol[i]) / (l.hi[j] - l.lo[j]) : s),
      0,
    )
    v += (cuts[k + 1] - cuts[k]) * (f - mu) ** 2
  }
  return v
}

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((s, x) => s + x, 0) / xs.length
}
