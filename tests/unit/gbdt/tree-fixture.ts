/** Hand-written trees for the predict tests (unit and kernel). */
import type { Booster, Tree } from '../../../src/models/gbdt/types.ts'
import type { Rng } from '../../../src/util/rng.ts'
import { packTrees } from '../../../src/kernels/gbdt/layout.ts'
import { predict as kernelPredict } from '../../../src/kernels/gbdt/predict.ref.ts'
import { baseMargin } from '../../../src/models/gbdt/objective.ts'

/** A Tree from per-node [left, right, feature, condition|leaf value, splitBin, defaultLeft]. */
export function makeTree(nodes: Array<[number, number, number, number, number, number]>): Tree {
  const n = nodes.length
  const t: Tree = {
    left: new Int32Array(n),
    right: new Int32Array(n),
    parent: new Int32Array(n).fill(-1),
    splitIndex: new Int32Array(n),
    splitCondition: new Float32Array(n),
    splitBin: new Int32Array(n),
    defaultLeft: new Uint8Array(n),
    baseWeight: new Float32Array(n),
    lossChange: new Float32Array(n),
    sumHessian: new Float32Array(n),
    splitType: new Uint8Array(n),
    catBegin: new Uint32Array(n),
    catSize: new Uint32Array(n),
    categories: new Int32Array(0),
  }
  nodes.forEach(([l, r, f, v, b, d], k) => {
    t.left[k] = l
    t.right[k] = r
    t.splitIndex[k] = f
    t.splitCondition[k] = v
    t.splitBin[k] = b
    t.defaultLeft[k] = d
    if (l >= 0) {
      t.parent[l] = k
      t.parent[r] = k
    }
  })
  return t
}

/**
 * A random tree (breadth-first node ids, as the driver numbers them): each node above
 * `maxDepth` splits with probability 0.8 on a random feature < `features`, condition in [−1, 1),
 * splitBin in [−1, bins − 1), random default direction; leaves get values in [−1, 1).
 */
export function randomTree(rng: Rng, features: number, maxDepth: number, bins: number): Tree {
  const rows: Array<[number, number, number, number, number, number]> = [[-1, -1, 0, 0, -1, 0]]
  const depth = [0]
  for (let k = 0; k < rows.length; k++) {
    if (depth[k] < maxDepth && rng.next() < 0.8) {
      const l = rows.length
      rows[k] = [l, l + 1, rng.int(features), rng.uniform(-1, 1), rng.int(bins) - 1, rng.int(2)]
      rows.push([-1, -1, 0, rng.uniform(-1, 1), -1, 0], [-1, -1, 0, rng.uniform(-1, 1), -1, 0])
      depth.push(depth[k] + 1, depth[k] + 1)
    } else {
      rows[k] = [-1, -1, 0, rng.uniform(-1, 1), -1, 0]
    }
  }
  return makeTree(rows)
}

/** A random binned matrix (types.ts layout): byte 0 = missing where missOff = 1. */
export function randomBins(
  rng: Rng,
  rows: number,
  features: number,
  binsPerFeature: number,
  missingRate = 0.1,
): { bins: Uint32Array<ArrayBuffer>; missOff: Uint32Array<ArrayBuffer>; rowWords: number } {
  const rowWords = Math.ceil(rows / 4)
  const bins = new Uint32Array(features * rowWords)
  const missOff = Uint32Array.from({ length: features }, () => rng.int(2))
  for (let f = 0; f < features; f++) {
    const top = missOff[f] ? Math.min(binsPerFeature, 255) : binsPerFeature
    for (let i = 0; i < rows; i++) {
      const byte = missOff[f] && rng.next() < missingRate ? 0 : rng.int(top) + missOff[f]
      bins[f * rowWords + (i >> 2)] = (bins[f * rowWords + (i >> 2)] | (byte << ((i & 3) * 8))) >>> 0
    }
  }
  return { bins, missOff, rowWords }
}

/**
 * Turns about half of `t`'s split nodes on features below `catFeatures` into categorical ones
 * (XGBoost split_type 1) with a random non-empty set of codes in [0, levels), in place.
 */
export function categorise(rng: Rng, t: Tree, catFeatures: number, levels: number): Tree {
  const sets: number[][] = Array.from({ length: t.left.length }, () => [])
  for (let k = 0; k < t.left.length; k++) {
    if (t.left[k] < 0 || t.splitIndex[k] >= catFeatures || rng.next() < 0.5) continue
    const set = new Set<number>([rng.int(levels)])
    for (let c = 0; c < levels; c++) if (rng.next() < 0.3) set.add(c)
    sets[k] = [...set].sort((a, b) => a - b)
    t.splitType[k] = 1
    t.splitCondition[k] = 0
  }
  let at = 0
  sets.forEach((s, k) => {
    t.catBegin[k] = s.length ? at : 0
    t.catSize[k] = s.length
    at += s.length
  })
  t.categories = Int32Array.from(sets.flat())
  return t
}

/** Category codes for `features` columns: mostly in [0, levels), some NaN, negative, fractional or past every set. */
export function randomCodes(rng: Rng, rows: number, features: number, levels: number): Float32Array<ArrayBuffer> {
  const x = new Float32Array(rows * features)
  for (let k = 0; k < x.length; k++) {
    const r = rng.int(20)
    x[k] =
      r === 0 ? NaN : r === 1 ? -1 - rng.int(3) : r === 2 ? rng.int(levels) + 0.5 : r === 3 ? 1000 : rng.int(levels)
  }
  return x
}

/** Margins of the packed-trees reference (the GPU predict kernel's spec) on `cols` (F columns). */
export function packedMargins(b: Booster, cols: Float32Array[]): Float32Array {
  const rows = cols[0].length,
    F = cols.length
  const x = new Float32Array(rows * F)
  cols.forEach((c, f) => c.forEach((v, i) => (x[i * F + f] = v)))
  const p = packTrees(b.trees),
    out = new Float32Array(rows)
  const shape = { rows, features: F, trees: b.trees.length, maxDepth: p.maxDepth }
  kernelPredict(x, p.nodes, p.catBits, p.treeOffsets, out, shape, baseMargin(b.params.objective, b.baseScore))
  return out
}
