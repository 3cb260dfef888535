/**
 * Reference for predict_binned.wgsl: adds the leaf values of T trees to the margins of rows
 * given as bins (e.g. the validation set binned with the training cuts): bin ≤ splitBin goes
 * left, missing takes the default direction — the same decisions row_partition made in training.
 * N = rows, F = features, T = trees.
 */
import { binAt } from './row_partition.ref.ts'
import { walkTree } from './predict.ref.ts'

/**
 * - bins: u32 [F × rowWords] (types.ts layout); missOff: u32 [F]
 * - nodes, treeOffsets: from `packTrees` (predict.ref.ts)
 * - margins: f32 [N], accumulated in place: margins[i] += leaf_0 + … in tree order (f32)
 */
export function predictBinned(
  bins: Uint32Array, missOff: Uint32Array, nodes: Uint32Array, treeOffsets: Uint32Array, margins: Float32Array,
  shape: { rows: number; rowWords: number; trees: number; maxDepth: number },
): void {
  for (let i = 0; i < shape.rows; i++) {
    let m = margins[i]
    for (let t = 0; t < shape.trees; t++) {
      m = Math.fround(m + walkTree(nodes, treeOffsets[t], shape.maxDepth, (f, o) => {
        const bin = binAt(bins, shape.rowWords, missOff, i, f)
        return bin < 0 ? null : bin <= (nodes[o + 3] | 0)
      }))
    }
    margins[i] = m
  }
}
