/** Random trees with covers and categorical nodes, and rows for them: the SHAP tests' inputs (unit and kernel). */
import type { Tree } from '../../../src/models/gbdt/types.ts'
import type { Rng } from '../../../src/util/rng.ts'
import { makeTree, randomTree } from './tree-fixture.ts'

/** Category codes of the categorical features span [0, CODES): more than one 32-bit word of a bitset. */
export const CODES = 40

/**
 * Gives `t` covers (sum_hessian) as a trained tree has them: leaves in [0.5, 5), every split the
 * f32 sum of its children's. Nodes are numbered breadth-first (children after parents).
 */
export function withCovers(t: Tree, rng: Rng): Tree {
  for (let k = t.left.length - 1; k >= 0; k--) {
    t.sumHessian[k] =
      t.left[k] < 0 ? rng.uniform(0.5, 5) : Math.fround(t.sumHessian[t.left[k]] + t.sumHessian[t.right[k]])
  }
  return t
}

/**
 * Makes every split of `t` on a feature below `catFeatures` categorical (XGBoost split_type 1):
 * a random ascending set of codes in [0, CODES) goes right.
 */
export function withCategories(t: Tree, rng: Rng, catFeatures: number): Tree {
  const cats: number[][] = Array.from({ length: t.left.length }, () => [])
  for (let k = 0; k < t.left.length; k++) {
    if (t.left[k] < 0 || t.splitIndex[k] >= catFeatures) continue
    t.splitType[k] = 1
    t.splitCondition[k] = 0
    for (let c = 0; c < CODES; c++) if (rng.next() < 0.3) cats[k].push(c)
  }
  let at = 0
  cats.forEach((c, k) => {
    t.catBegin[k] = c.length > 0 ? at : 0
    t.catSize[k] = c.length
    at += c.length
  })
  t.categories = Int32Array.from(cats.flat())
  return t
}

/** randomTree (tree-fixture.ts) with covers and categorical splits on the first `catFeatures` features. */
export function shapTree(rng: Rng, features: number, maxDepth: number, catFeatures = 0): Tree {
  return withCovers(withCategories(randomTree(rng, features, maxDepth, 256), rng, catFeatures), rng)
}

/**
 * A path of `depth` splits (each with one leaf child, the other continuing; sides random) on
 * features drawn from `features`, so features repeat along it: the longest path a kernel holds.
 */
export function chainTree(rng: Rng, features: number, depth: number): Tree {
  const rows: Array<[number, number, number, number, number, number]> = []
  for (let d = 0; d < depth; d++) {
    const next = rows.length + 2,
      leaf = rows.length + 1
    const leafLeft = rng.int(2) === 0
    rows.push([leafLeft ? leaf : next, leafLeft ? next : leaf, rng.int(features), rng.uniform(-1, 1), -1, rng.int(2)])
    rows.push([-1, -1, 0, rng.uniform(-1, 1), -1, 0])
  }
  rows.push([-1, -1, 0, rng.uniform(-1, 1), -1, 0])
  // Node ids: split d at 2d, its leaf at 2d + 1, the next split (or the last leaf) at 2d + 2.
  return withCovers(makeTree(rows), rng)
}

/**
 * Rows × features values, row-major: numeric features uniform in [−1, 1), categorical ones (the
 * first `catFeatures`) integer codes in [−1, CODES + 2) (negative and unseen codes included);
 * about 10 % NaN everywhere.
 */
export function shapRows(rng: Rng, rows: number, features: number, catFeatures = 0): Float32Array<ArrayBuffer> {
  const x = new Float32Array(rows * features)
  for (let i = 0; i < rows; i++) {
    for (let f = 0; f < features; f++) {
      x[i * features + f] = rng.int(10) === 0 ? NaN : f < catFeatures ? rng.int(CODES + 3) - 1 : rng.uniform(-1, 1)
    }
  }
  return x
}

/** Row-major rows → F columns (the layout predictMargins and treeShap take). */
export function toColumns(x: Float32Array, rows: number, features: number): Float32Array[] {
  return Array.from({ length: features }, (_, f) => Float32Array.from({ length: rows }, (_, i) => x[i * features + f]))
}
