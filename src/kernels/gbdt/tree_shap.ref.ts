/**
 * Reference for tree_shap.wgsl: exact path-dependent TreeSHAP (Lundberg, Erion & Lee 2018,
 * Algorithm 2), as XGBoost's `RegTree::TreeShap` behind `predict(pred_contribs=True)`, on the
 * packed trees of the predict kernel plus one cover (sum_hessian) per node. The recursion is
 * written as the kernel runs it: an explicit stack of pending children and one path segment per
 * tree depth, so the reference and the shader are the same program. N = rows, F = features,
 * T = trees, D = longest root-to-leaf path (packTrees maxDepth).
 *
 * Differences from XGBoost that change only f32 rounding: children are visited left first (not
 * the row's hot child first), so rows of one tree follow the same control flow on the GPU; the
 * bias is Σ_leaf value · Π cover(child) / cover(parent) along its path, which equals
 * XGBoost's bottom-up mean of the root (FillNodeMeanValues) up to rounding.
 */
import { NODE_WORDS } from './layout.ts'
import { catRight } from './predict.ref.ts'
import type { TreeShapShape } from './tree_shap.ts'

/** Path elements a tree of depth D needs: one segment of d + 1 per depth d ≤ D. */
export function pathCapacity(maxDepth: number): number {
  return ((maxDepth + 1) * (maxDepth + 2)) / 2
}

/** One unique path per depth (feature, zero fraction, one fraction, permutation weight), f32 as XGBoost. */
class Path {
  readonly feature: Int32Array
  readonly zero: Float32Array
  readonly one: Float32Array
  readonly weight: Float32Array
  constructor(size: number) {
    this.feature = new Int32Array(size)
    this.zero = new Float32Array(size)
    this.one = new Float32Array(size)
    this.weight = new Float32Array(size)
  }

  /** XGBoost ExtendPath on the segment at `s` holding `d` elements: adds element d. */
  extend(s: number, d: number, zero: number, one: number, feature: number): void {
    this.feature[s + d] = feature
    this.zero[s + d] = zero
    this.one[s + d] = one
    this.weight[s + d] = d === 0 ? 1 : 0
    for (let k = d - 1; k >= 0; k--) {
      this.weight[s + k + 1] += (one * this.weight[s + k] * (k + 1)) / (d + 1)
      this.weight[s + k] = (zero * this.weight[s + k] * (d - k)) / (d + 1)
    }
  }

  /** XGBoost UnwindPath: removes element `at` of the segment at `s` (elements 0..d). */
  unwind(s: number, d: number, at: number): void {
    const one = this.one[s + at],
      zero = this.zero[s + at]
    let next = this.weight[s + d]
    for (let k = d - 1; k >= 0; k--) {
      if (one !== 0) {
        const w = this.weight[s + k]
        this.weight[s + k] = (next * (d + 1)) / ((k + 1) * one)
        next = w - (this.weight[s + k] * zero * (d - k)) / (d + 1)
      } else {
        this.weight[s + k] = (this.weight[s + k] * (d + 1)) / (zero * (d - k))
      }
    }
    for (let k = at; k < d; k++) {
      this.feature[s + k] = this.feature[s + k + 1]
      this.zero[s + k] = this.zero[s + k + 1]
      this.one[s + k] = this.one[s + k + 1]
    }
  }

  /** XGBoost UnwoundPathSum: total weight of the segment at `s` with element `at` removed. */
  unwoundSum(s: number, d: number, at: number): number {
    const one = this.one[s + at],
      zero = this.zero[s + at]
    let next = this.weight[s + d],
      total = 0
    for (let k = d - 1; k >= 0; k--) {
      if (one !== 0) {
        const t = Math.fround((next * (d + 1)) / ((k + 1) * one))
        total = Math.fround(total + t)
        next = Math.fround(this.weight[s + k] - t * zero * ((d - k) / (d + 1)))
      } else if (zero !== 0) {
        total = Math.fround(total + this.weight[s + k] / zero / ((d - k) / (d + 1)))
      }
    }
    return total
  }
}

/**
 * True when row value `v` goes left at the packed node at word offset `o` (the packed form of
 * tree.ts `nextNode`): NaN takes defaultLeft, a categorical node sends its set right, a numeric
 * one sends v < condition left.
 */
function goesLeft(nodes: Uint32Array, cond: Float32Array, catBits: Uint32Array, o: number, v: number): boolean {
  if (Number.isNaN(v)) return nodes[o + 2] >>> 31 === 1
  return nodes[o + 6] > 0 ? !catRight(nodes, catBits, o, v) : v < cond[o + 4]
}

/**
 * - features: f32 [N × F] row-major, NaN = missing
 * - nodes, catBits, treeOffsets: from `packTrees`; covers: f32 [K] from `packCovers` (layout.ts)
 * - out: f32 [(F + 1) × N] FEATURE-MAJOR (φ of feature f for row i at f·N + i; row f = F is the
 *   bias: baseMargin + Σ_t the tree's cover-weighted mean leaf value). Overwritten; each row's
 *   F + 1 values sum to its margin. As XGBoost, each tree's φ is summed into a zeroed vector
 *   (the kernel's `treePhi`) and added to the total after the tree, feature by split node.
 */
export function treeShap(
  features: Float32Array,
  nodes: Uint32Array,
  catBits: Uint32Array,
  treeOffsets: Uint32Array,
  covers: Float32Array,
  out: Float32Array,
  shape: TreeShapShape,
  baseMargin: number,
): void {
  const { rows, features: F, trees, maxDepth } = shape
  const cond = new Float32Array(nodes.buffer, nodes.byteOffset, nodes.length)
  const path = new Path(pathCapacity(maxDepth))
  // Pending children: node (tree-local), depth, unique depth, zero and one fraction of the edge
  // into it, the parent's feature, and the cover share of the path (its reach).
  const stackSize = maxDepth + 2
  const sNode = new Int32Array(stackSize),
    sDepth = new Int32Array(stackSize),
    sUnique = new Int32Array(stackSize),
    sFeature = new Int32Array(stackSize)
  const sZero = new Float32Array(stackSize),
    sOne = new Float32Array(stackSize),
    sReach = new Float32Array(stackSize)
  const treePhi = new Float32Array(F)
  for (let i = 0; i < rows; i++) {
    for (let f = 0; f <= F; f++) out[f * rows + i] = 0
    let bias = 0
    for (let t = 0; t < trees; t++) {
      const root = treeOffsets[t]
      let treeBias = 0
      let top = 0
      sNode[0] = 0
      sDepth[0] = 0
      sUnique[0] = 0
      sZero[0] = 1
      sOne[0] = 1
      sFeature[0] = -1
      sReach[0] = 1
      top = 1
      while (top > 0) {
        top--
        const node = sNode[top],
          depth = sDepth[top],
          reach = sReach[top]
        let unique = sUnique[top]
        const s = (depth * (depth + 1)) / 2
        // The parent's segment (depth − 1) holds `unique` elements: copy them, then extend.
        const p = ((depth - 1) * depth) / 2
        for (let k = 0; k < unique; k++) {
          path.feature[s + k] = path.feature[p + k]
          path.zero[s + k] = path.zero[p + k]
          path.one[s + k] = path.one[p + k]
          path.weight[s + k] = path.weight[p + k]
        }
        path.extend(s, unique, sZero[top], sOne[top], sFeature[top])
        const o = (root + node) * NODE_WORDS
        const left = nodes[o] | 0
        if (left < 0) {
          const value = cond[o + 4]
          for (let k = 1; k <= unique; k++) {
            const w = path.unwoundSum(s, unique, k)
            const f = path.feature[s + k]
            treePhi[f] = Math.fround(treePhi[f] + w * (path.one[s + k] - path.zero[s + k]) * value)
          }
          treeBias = Math.fround(treeBias + value * reach)
          continue
        }
        if (depth >= maxDepth) throw new RangeError(`treeShap: tree ${t} is deeper than maxDepth ${maxDepth}`)
        const right = nodes[o + 1] | 0
        const feature = nodes[o + 2] & 0x7fffffff
        const hot = goesLeft(nodes, cond, catBits, o, features[i * F + feature]) ? left : right
        const cover = covers[root + node]
        const leftZero = Math.fround(covers[root + left] / cover),
          rightZero = Math.fround(covers[root + right] / cover)
        // A feature already on the path: undo its earlier split so this node redoes it.
        let inZero = 1,
          inOne = 1
        for (let k = 0; k <= unique; k++) {
          if (path.feature[s + k] !== feature) continue
          inZero = path.zero[s + k]
          inOne = path.one[s + k]
          path.unwind(s, unique, k)
          unique--
          break
        }
        // Right first on the stack, so the left subtree is walked first.
        for (const [child, zero] of [
          [right, rightZero],
          [left, leftZero],
        ]) {
          sNode[top] = child
          sDepth[top] = depth + 1
          sUnique[top] = unique + 1
          sZero[top] = zero * inZero
          sOne[top] = child === hot ? inOne : 0
          sFeature[top] = feature
          sReach[top] = reach * zero
          top++
        }
      }
      bias = Math.fround(bias + treeBias)
      // Add the tree's φ of each feature it splits on, zeroing it once added (a feature split on
      // twice adds 0 the second time), so treePhi is zero again for the next tree.
      const end = t + 1 < trees ? treeOffsets[t + 1] : shape.nodes
      for (let k = root; k < end; k++) {
        if ((nodes[k * NODE_WORDS] | 0) < 0) continue
        const f = nodes[k * NODE_WORDS + 2] & 0x7fffffff
        out[f * rows + i] = Math.fround(out[f * rows + i] + treePhi[f])
        treePhi[f] = 0
      }
    }
    out[F * rows + i] = Math.fround(bias + baseMargin)
  }
}
