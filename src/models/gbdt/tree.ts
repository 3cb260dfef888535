/**
 * Growing one regression tree in XGBoost's array form (`RegTree::ExpandNode`): nodes are
 * numbered in the order they are created, children of a split get the next two ids.
 */
import type { Cuts, SplitCandidate, Tree } from './types.ts'

/** A tree under construction: plain arrays, frozen into typed arrays by `finishTree`. */
export interface TreeBuilder {
  left: number[]
  right: number[]
  parent: number[]
  splitIndex: number[]
  splitCondition: number[]
  splitBin: number[]
  defaultLeft: number[]
  baseWeight: number[]
  lossChange: number[]
  sumHessian: number[]
  depth: number[]
  /** Per node: 0 numeric, 1 categorical (types.ts Tree.splitType). */
  splitType: number[]
  /** Per node: the category codes that go right (ascending; empty for numeric nodes). */
  cats: number[][]
}

/** A tree with only the root, a leaf of value `leafValue` (eta applied) and hessian sum `sumH`. */
export function newTree(leafValue: number, sumH: number): TreeBuilder {
  const t: TreeBuilder = {
    left: [],
    right: [],
    parent: [],
    splitIndex: [],
    splitCondition: [],
    splitBin: [],
    defaultLeft: [],
    baseWeight: [],
    lossChange: [],
    sumHessian: [],
    depth: [],
    splitType: [],
    cats: [],
  }
  addLeaf(t, -1, leafValue, sumH, 0)
  return t
}

function addLeaf(t: TreeBuilder, parent: number, value: number, sumH: number, depth: number): number {
  const id = t.left.length
  t.left.push(-1)
  t.right.push(-1)
  t.parent.push(parent)
  t.splitIndex.push(0)
  t.splitCondition.push(value)
  t.splitBin.push(-1)
  t.defaultLeft.push(0)
  t.baseWeight.push(value)
  t.lossChange.push(0)
  t.sumHessian.push(sumH)
  t.depth.push(depth)
  t.splitType.push(0)
  t.cats.push([])
  return id
}

/**
 * Turns leaf `nid` into a split on `s` (threshold = the bin's upper cut, or the feature's
 * min value for splitBin −1) and adds two leaves with values `leftValue`, `rightValue` (eta
 * applied). As XGBoost, the split node keeps its unscaled weight `weight` as base_weight.
 * A categorical split (s.catBins) becomes split type 1 with the codes of its right-going bins
 * (a categorical feature's bin is its code, types.ts Cuts.categorical), condition 0, splitBin −1.
 * Returns [left id, right id].
 */
export function expandNode(
  t: TreeBuilder,
  nid: number,
  s: SplitCandidate,
  cuts: Cuts,
  weight: number,
  leftValue: number,
  rightValue: number,
): [number, number] {
  const d = t.depth[nid] + 1
  const l = addLeaf(t, nid, leftValue, s.leftH, d)
  const r = addLeaf(t, nid, rightValue, s.rightH, d)
  t.left[nid] = l
  t.right[nid] = r
  t.splitIndex[nid] = s.feature
  if (s.catBins) {
    t.splitType[nid] = 1
    t.cats[nid] = binsOfSet(s.catBins, cuts.cutPtrs[s.feature + 1] - cuts.cutPtrs[s.feature])
    t.splitBin[nid] = -1
    t.splitCondition[nid] = 0
  } else {
    t.splitBin[nid] = s.splitBin
    t.splitCondition[nid] =
      s.splitBin < 0 ? cuts.minValues[s.feature] : cuts.cutValues[cuts.cutPtrs[s.feature] + s.splitBin]
  }
  t.defaultLeft[nid] = s.defaultLeft ? 1 : 0
  t.baseWeight[nid] = weight
  t.lossChange[nid] = s.gain
  return [l, r]
}

/** The bins < n whose bit is set in bitset `bits`, ascending. */
function binsOfSet(bits: Uint32Array, n: number): number[] {
  const out: number[] = []
  for (let b = 0; b < n; b++) if ((bits[b >> 5] >>> (b & 31)) & 1) out.push(b)
  return out
}

/** Number of leaves. */
export function leafCount(t: TreeBuilder): number {
  return t.left.filter(c => c === -1).length
}

/** Freezes the builder into the Tree contract (f32 values as XGBoost stores them). */
export function finishTree(t: TreeBuilder): Tree {
  const catBegin = new Uint32Array(t.left.length),
    catSize = new Uint32Array(t.left.length)
  let at = 0
  t.cats.forEach((c, k) => {
    catBegin[k] = c.length > 0 ? at : 0
    catSize[k] = c.length
    at += c.length
  })
  return {
    splitType: Uint8Array.from(t.splitType),
    catBegin,
    catSize,
    categories: Int32Array.from(t.cats.flat()),
    left: Int32Array.from(t.left),
    right: Int32Array.from(t.right),
    parent: Int32Array.from(t.parent),
    splitIndex: Int32Array.from(t.splitIndex),
    splitCondition: Float32Array.from(t.splitCondition),
    splitBin: Int32Array.from(t.splitBin),
    defaultLeft: Uint8Array.from(t.defaultLeft),
    baseWeight: Float32Array.from(t.baseWeight),
    lossChange: Float32Array.from(t.lossChange),
    sumHessian: Float32Array.from(t.sumHessian),
  }
}

/**
 * True when category `v` (a code held as a number; not NaN) is in categorical node `n`'s set,
 * i.e. goes right. As XGBoost's `Decision`, the code is the value truncated to an integer;
 * negative and unknown codes are in no set.
 */
export function inCategorySet(t: Tree, n: number, v: number): boolean {
  const c = Math.trunc(v)
  if (!(c >= 0)) return false
  const begin = t.catBegin[n],
    end = begin + t.catSize[n]
  let lo = begin,
    hi = end
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (t.categories[mid] < c) lo = mid + 1
    else hi = mid
  }
  return lo < end && t.categories[lo] === c
}

/**
 * The child of split node `n` a raw value `v` goes to (XGBoost `GetNextNode`): NaN takes the
 * default direction; a categorical node sends its set right and everything else left; a numeric
 * node sends v < split_condition left. The one decision every CPU walk (predict, SHAP) uses.
 */
export function nextNode(t: Tree, n: number, v: number): number {
  if (Number.isNaN(v)) return t.defaultLeft[n] ? t.left[n] : t.right[n]
  if (t.splitType[n] === 1) return inCategorySet(t, n, v) ? t.right[n] : t.left[n]
  return v < t.splitCondition[n] ? t.left[n] : t.right[n]
}

/**
 * Leaf reached by a row given its bin per feature (`binOf(f)`: −1 = missing). A categorical
 * node's bins are its codes, so its set decides as on raw values.
 */
export function leafByBins(tree: Tree, binOf: (f: number) => number): number {
  let n = 0
  while (tree.left[n] !== -1) {
    const b = binOf(tree.splitIndex[n])
    if (b < 0) n = tree.defaultLeft[n] ? tree.left[n] : tree.right[n]
    else if (tree.splitType[n] === 1) n = inCategorySet(tree, n, b) ? tree.right[n] : tree.left[n]
    else n = b <= tree.splitBin[n] ? tree.left[n] : tree.right[n]
  }
  return n
}
