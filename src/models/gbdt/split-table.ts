/**
 * The row_partition kernel's split table (src/kernels/gbdt/row_partition.ref.ts): K = nodes rows
 * of SPLIT_TABLE_WORDS u32 — feature, splitBin, defaultLeft, leftChild, rightChild, categorical,
 * the bitset of bins going right — indexed by node id; nodes not split this level hold
 * leftChild = NO_NODE.
 */
import { NO_NODE, SPLIT_TABLE_WORDS } from '../../kernels/gbdt/layout.ts'
import type { AppliedSplit } from './backend.ts'

/**
 * Table for `splits` over node ids [0, K); `featureOffset` is subtracted from each split's
 * feature (a feature chunk of the binned matrix numbers its features from 0).
 */
export function splitTable(splits: readonly AppliedSplit[], K: number, featureOffset = 0): Uint32Array<ArrayBuffer> {
  const table = new Uint32Array(K * SPLIT_TABLE_WORDS)
  for (let k = 0; k < K; k++) table[k * SPLIT_TABLE_WORDS + 3] = NO_NODE
  for (const a of splits) {
    const s = a.split,
      at = a.nid * SPLIT_TABLE_WORDS
    table.set([s.feature - featureOffset, s.splitBin >>> 0, s.defaultLeft ? 1 : 0, a.left, a.right], at)
    if (s.catBins) {
      table[at + 5] = 1
      table.set(s.catBins, at + 6)
    }
  }
  return table
}
