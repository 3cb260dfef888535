import { describe, expect, test } from 'vitest'
import { binAt, rowPartition } from '../../../src/kernels/gbdt/row_partition.ref.ts'
import { NO_NODE, SPLIT_TABLE_WORDS } from '../../../src/kernels/gbdt/layout.ts'

/** Feature-major u8-in-u32 matrix from per-feature byte columns. */
function pack(columns: number[][]): { bins: Uint32Array; rowWords: number } {
  const rows = columns[0]?.length ?? 0,
    rowWords = Math.ceil(rows / 4)
  const bins = new Uint32Array(columns.length * rowWords)
  columns.forEach((col, f) =>
    col.forEach((b, i) => {
      bins[f * rowWords + (i >> 2)] |= b << ((i & 3) * 8)
    }),
  )
  return { bins, rowWords }
}

/**
 * Split table with one row per node: [feature, splitBin, defaultLeft, leftChild, rightChild],
 * plus, for a categorical split, the bins going right.
 */
function table(rows: Array<{ row: number[]; right?: number[] }>): Uint32Array {
  const t = new Uint32Array(rows.length * SPLIT_TABLE_WORDS)
  rows.forEach(({ row, right }, k) => {
    t.set(
      row.map(x => x >>> 0),
      k * SPLIT_TABLE_WORDS,
    )
    if (!right) return
    t[k * SPLIT_TABLE_WORDS + 5] = 1
    for (const b of right) t[k * SPLIT_TABLE_WORDS + 6 + (b >> 5)] |= 1 << (b & 31)
  })
  return t
}

describe('rowPartition (reference)', () => {
  // Feature 0 without missing (missOff 0); feature 1 with missing (byte 0 = missing, bin = byte − 1).
  const { bins, rowWords } = pack([
    [0, 1, 2, 3, 255, 0],
    [0, 1, 2, 0, 3, 4],
  ])
  const missOff = Uint32Array.from([0, 1])

  test('binAt decodes bytes and missing', () => {
    expect([0, 1, 2, 3, 4, 5].map(i => binAt(bins, rowWords, missOff, i, 0))).toEqual([0, 1, 2, 3, 255, 0])
    expect([0, 1, 2, 3, 4, 5].map(i => binAt(bins, rowWords, missOff, i, 1))).toEqual([-1, 0, 1, -1, 2, 3])
  })

  test('bin ≤ splitBin goes left, missing follows defaultLeft, unsplit and excluded rows stay', () => {
    // node 0 splits on f1 at bin 1, missing left → 1 / 2; node 3 splits on f0 at bin 2, missing right → 4 / 5;
    // node 6 is a leaf (leftChild = NO_NODE).
    const leafRow = { row: [0, 0, 0, NO_NODE, NO_NODE] }
    const splits = table([
      { row: [1, 1, 1, 1, 2] },
      leafRow,
      leafRow,
      { row: [0, 2, 0, 4, 5] },
      leafRow,
      leafRow,
      leafRow,
    ])
    const positions = Uint32Array.from([0, 0, 3, 0, 3, NO_NODE])
    rowPartition(bins, missOff, splits, positions, { rows: 6, rowWords, nodes: 7 })
    expect(Array.from(positions)).toEqual([1, 1, 4, 1, 5, NO_NODE])
    const leaf = Uint32Array.from([6, 6, 6, 6, 6, 6])
    rowPartition(bins, missOff, splits, leaf, { rows: 6, rowWords, nodes: 7 })
    expect(Array.from(leaf)).toEqual([6, 6, 6, 6, 6, 6])
  })

  test('splitBin −1 sends only missing rows left', () => {
    const splits = table([{ row: [1, -1, 1, 1, 2] }])
    const positions = new Uint32Array(6)
    rowPartition(bins, missOff, splits, positions, { rows: 6, rowWords, nodes: 1 })
    expect(Array.from(positions)).toEqual([1, 2, 2, 1, 2, 2])
  })

  test('categorical split: bins in the set go right, other bins left, missing by defaultLeft', () => {
    // f0 (no missing) bins [0, 1, 2, 3, 255, 0]: set {1, 3, 255}; f1 bins [−1, 0, 1, −1, 2, 3]: set {0}, missing right.
    const f0 = table([{ row: [0, -1, 1, 1, 2], right: [1, 3, 255] }])
    const p0 = new Uint32Array(6)
    rowPartition(bins, missOff, f0, p0, { rows: 6, rowWords, nodes: 1 })
    expect(Array.from(p0)).toEqual([1, 2, 1, 2, 2, 1])
    const f1 = table([{ row: [1, -1, 0, 1, 2], right: [0] }])
    const p1 = new Uint32Array(6)
    rowPartition(bins, missOff, f1, p1, { rows: 6, rowWords, nodes: 1 })
    expect(Array.from(p1)).toEqual([2, 2, 1, 2, 1, 1])
  })
})
