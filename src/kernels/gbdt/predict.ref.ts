/**
 * Reference for predict.wgsl: ensemble margins on raw features, XGBoost semantics (value <
 * split_condition goes left, a categorical node's set goes right, NaN takes the default direction; margin = base + t0 + t1 + … in f32,
 * tree order, as XGBoost's CPU predictor). N = rows, F = features, T = trees, K = nodes in all trees.
 */
import { NODE_WORDS } from './layout.ts'

/**
 * Walks one tree from its root at `root`; `goLeft(feature, node word offset)` → true/false/null
 * (null = missing: take defaultLeft). Stops after `maxDepth` edges. Returns the leaf value.
 */
function walkTree(
  nodes: Uint32Array,
  root: number,
  maxDepth: number,
  goLeft: (feature: number, o: number) => boolean | null,
): number {
  let k = root
  for (let step = 0; step < maxDepth && (nodes[k * NODE_WORDS] | 0) >= 0; step++) {
    const o = k * NODE_WORDS
    const dir = goLeft(nodes[o + 2] & 0x7fffffff, o) ?? nodes[o + 2] >>> 31 === 1
    k = root + (dir ? nodes[o] : nodes[o + 1])
  }
  return new Float32Array(new Uint32Array([nodes[k * NODE_WORDS + 4]]).buffer)[0]
}

/**
 * True when packed categorical node at word offset `o` sends value `v` right: its truncated code
 * is ≥ 0, inside the bitset and set (XGBoost `Decision`; anything else goes left).
 */
export function catRight(nodes: Uint32Array, catBits: Uint32Array, o: number, v: number): boolean {
  const c = Math.trunc(v)
  if (!(c >= 0) || c >= nodes[o + 6] * 32) return false
  return ((catBits[nodes[o + 5] + (c >> 5)] >>> (c & 31)) & 1) === 1
}

/**
 * - features: f32 [N × F] row-major, NaN = missing
 * - nodes, catBits, treeOffsets: from `packTrees`
 * - out: f32 [N] margins = baseMargin + Σ_t leaf_t (f32, tree order)
 */
export function predict(
  features: Float32Array,
  nodes: Uint32Array,
  catBits: Uint32Array,
  treeOffsets: Uint32Array,
  out: Float32Array,
  shape: { rows: number; features: number; trees: number; maxDepth: number },
  baseMargin: number,
): void {
  const cond = new Float32Array(nodes.buffer, nodes.byteOffset, nodes.length)
  for (let i = 0; i < shape.rows; i++) {
    let m = Math.fround(baseMargin)
    for (let t = 0; t < shape.trees; t++) {
      m = Math.fround(
        m +
          walkTree(nodes, treeOffsets[t], shape.maxDepth, (f, o) => {
            const v = features[i * shape.features + f]
            if (Number.isNaN(v)) return null
            return nodes[o + 6] > 0 ? !catRight(nodes, catBits, o, v) : v < cond[o + 4]
          }),
      )
    }
    out[i] = m
  }
}
