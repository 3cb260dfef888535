/**
 * Reference for row_partition.wgsl: moves each row of a node split this level to its child.
 * N = rows, F = features, K = nodes in the split table (node ids of the current tree).
 */
import type { PartitionShape } from './layout.ts'
import { CAT_WORDS, NO_NODE, SPLIT_TABLE_WORDS } from './layout.ts'

/**
 * Bin of (row i, feature f) in the feature-major u8-in-u32 matrix (types.ts "bins"), or −1 when
 * the stored byte is below missOff[f] (missing).
 */
export function binAt(bins: Uint32Array, rowWords: number, missOff: Uint32Array, i: number, f: number): number {
  const byte = (bins[f * rowWords + (i >>> 2)] >>> ((i & 3) * 8)) & 0xff
  const bin = byte - missOff[f]
  return bin < 0 ? -1 : bin
}

/** True when bit `bin` of the CAT_WORDS-word bitset at `words[at]` is set (bin < 32 · CAT_WORDS). */
export function inBinSet(words: Uint32Array, at: number, bin: number): boolean {
  return bin < 32 * CAT_WORDS && ((words[at + (bin >> 5)] >>> (bin & 31)) & 1) === 1
}

/**
 * Buffers (kernel bindings, same names and order):
 * - bins: u32 [F × rowWords]; missOff: u32 [F]
 * - splits: u32 [K × SPLIT_TABLE_WORDS] per node id: feature, splitBin (i32 bits: bin ≤ splitBin
 *   goes left, −1 = only missing can go left), defaultLeft (missing goes left), leftChild,
 *   rightChild (leftChild = 0xFFFFFFFF: node not split this level, its rows stay), categorical,
 *   then CAT_WORDS words: a categorical split sends a bin right when its bit is set, else left
 * - positions: u32 [N] node id per row, updated in place; 0xFFFFFFFF rows stay. With
 *   shape.classes = C > 1 (multiclass), N × C entries: (row i, class c) at i·C + c, each with
 *   its own node (its class tree's), moved by row i's bins.
 */
export function rowPartition(
  bins: Uint32Array,
  missOff: Uint32Array,
  splits: Uint32Array,
  positions: Uint32Array,
  shape: PartitionShape,
): void {
  const C = shape.classes ?? 1
  for (let e = 0; e < shape.rows * C; e++) {
    const i = C === 1 ? e : Math.floor(e / C)
    const node = positions[e]
    if (node === NO_NODE || node >= shape.nodes) continue
    const s = node * SPLIT_TABLE_WORDS
    if (splits[s + 3] === NO_NODE) continue
    const bin = binAt(bins, shape.rowWords, missOff, i, splits[s])
    const goLeft =
      bin < 0 ? splits[s + 2] !== 0 : splits[s + 5] !== 0 ? !inBinSet(splits, s + 6, bin) : bin <= (splits[s + 1] | 0)
    positions[e] = goLeft ? splits[s + 3] : splits[s + 4]
  }
}
