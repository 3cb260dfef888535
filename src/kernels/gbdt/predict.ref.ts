/**
 * Reference for predict.wgsl: ensemble margins on raw features, XGBoost semantics (value <
 * split_condition goes left, NaN takes the default direction; margin = base + t0 + t1 + … in f32,
 * tree order, as XGBoost's CPU predictor). N = rows, F = features, T = trees, K = nodes in all trees.
 */
import type { Tree } from '../../models/gbdt/types.ts'

/** Words per packed node: left, right (i32, −1 = leaf, tree-local), feature | defaultLeft << 31, splitBin (i32), value (f32 bits). */
export const NODE_WORDS = 5

/** Trees packed for the predict kernels. */
export interface PackedTrees {
  /** u32 [K × 5]; value = split condition at internal nodes, leaf value (eta applied) at leaves. */
  nodes: Uint32Array<ArrayBuffer>
  /** u32 [T]: index of each tree's root in `nodes`. */
  treeOffsets: Uint32Array<ArrayBuffer>
  /** Longest root-to-leaf path in edges (bounds the kernel's walk). */
  maxDepth: number
}

/** Packs `trees` (types.ts Tree arrays) into one flat node buffer. */
export function packTrees(trees: readonly Tree[]): PackedTrees {
  const total = trees.reduce((s, t) => s + t.left.length, 0)
  const nodes = new Uint32Array(total * NODE_WORDS), f32 = new Float32Array(nodes.buffer)
  const treeOffsets = new Uint32Array(trees.length)
  let at = 0, maxDepth = 0
  trees.forEach((t, ti) => {
    treeOffsets[ti] = at
    for (let k = 0; k < t.left.length; k++, at++) {
      const o = at * NODE_WORDS
      nodes[o] = t.left[k] >>> 0; nodes[o + 1] = t.right[k] >>> 0
      nodes[o + 2] = ((t.splitIndex[k] & 0x7fffffff) | (t.defaultLeft[k] ? 0x80000000 : 0)) >>> 0
      nodes[o + 3] = t.splitBin[k] >>> 0
      f32[o + 4] = t.splitCondition[k]
    }
    maxDepth = Math.max(maxDepth, treeDepth(t))
  })
  return { nodes, treeOffsets, maxDepth }
}

/**
 * Longest root-to-leaf path of `t` in edges (0 for a single leaf or an empty tree). Walks the
 * children from node 0, not `parent`: XGBoost's JSON stores 2147483647 as the root's parent.
 */
function treeDepth(t: Tree): number {
  let max = 0
  const stack: Array<[number, number]> = t.left.length ? [[0, 0]] : []
  while (stack.length) {
    const [k, d] = stack.pop()!
    if (d > t.left.length) throw new RangeError(`packTrees: tree has a cycle at node ${k}`)
    max = Math.max(max, d)
    if (t.left[k] >= 0) stack.push([t.left[k], d + 1], [t.right[k], d + 1])
  }
  return max
}

/**
 * Walks one tree from its root at `root`; `goLeft(feature, node word offset)` → true/false/null
 * (null = missing: take defaultLeft). Stops after `maxDepth` edges. Returns the leaf value.
 */
export function walkTree(nodes: Uint32Array, root: number, maxDepth: number, goLeft: (feature: number, o: number) => boolean | null): number {
  let k = root
  for (let step = 0; step < maxDepth && (nodes[k * NODE_WORDS] | 0) >= 0; step++) {
    const o = k * NODE_WORDS
    const dir = goLeft(nodes[o + 2] & 0x7fffffff, o) ?? (nodes[o + 2] >>> 31 === 1)
    k = root + (dir ? nodes[o] : nodes[o + 1])
  }
  return new Float32Array(new Uint32Array([nodes[k * NODE_WORDS + 4]]).buffer)[0]
}

/**
 * - features: f32 [N × F] row-major, NaN = missing
 * - nodes, treeOffsets: from `packTrees`
 * - out: f32 [N] margins = baseMargin + Σ_t leaf_t (f32, tree order)
 */
export function predict(
  features: Float32Array, nodes: Uint32Array, treeOffsets: Uint32Array, out: Float32Array,
  shape: { rows: number; features: number; trees: number; maxDepth: number }, baseMargin: number,
): void {
  const cond = new Float32Array(nodes.buffer, nodes.byteOffset, nodes.length)
  for (let i = 0; i < shape.rows; i++) {
    let m = Math.fround(baseMargin)
    for (let t = 0; t < shape.trees; t++) {
      m = Math.fround(m + walkTree(nodes, treeOffsets[t], shape.maxDepth, (f, o) => {
        const v = features[i * shape.features + f]
        return Number.isNaN(v) ? null : v < cond[o + 4]
      }))
    }
    out[i] = m
  }
}
