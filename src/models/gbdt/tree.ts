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
  return id
}

/**
 * Turns leaf `nid` into a split on `s` (threshold = the bin's upper cut, or the feature's
 * min value for splitBin −1) and adds two leaves with values `leftValue`, `rightValue` (eta
 * applied). As XGBoost, the split node keeps its unscaled weight `weight` as base_weight.
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
  t.splitBin[nid] = s.splitBin
  t.splitCondition[nid] =
    s.splitBin < 0 ? cuts.minValues[s.feature] : cuts.cutValues[cuts.cutPtrs[s.feature] + s.splitBin]
  t.defaultLeft[nid] = s.defaultLeft ? 1 : 0
  t.baseWeight[nid] = weight
  t.lossChange[nid] = s.gain
  return [l, r]
}

/** Number of leaves. */
export function leafCount(t: TreeBuilder): number {
  return t.left.filter(c => c === -1).length
}

/** Freezes the builder into the Tree contract (f32 values as XGBoost stores them). */
export function finishTree(t: TreeBuilder): Tree {
  return {
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

/** Leaf reached by a row given its bin per feature (`binOf(f)`: −1 = missing). */
export function leafByBins(tree: Tree, binOf: (f: number) => number): number {
  let n = 0
  while (tree.left[n] !== -1) {
    const b = binOf(tree.splitIndex[n])
    n =
      b < 0
        ? tree.defaultLeft[n]
          ? tree.left[n]
          : tree.right[n]
        : b <= tree.splitBin[n]
          ? tree.left[n]
          : tree.right[n]
  }
  return n
}
