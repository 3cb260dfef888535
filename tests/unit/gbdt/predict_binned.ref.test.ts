import { describe, expect, test } from 'vitest'
import { packTrees } from '../../../src/kernels/gbdt/predict.ref.ts'
import { predictBinned } from '../../../src/kernels/gbdt/predict_binned.ref.ts'
import { makeTree } from './tree-fixture.ts'

describe('predictBinned (reference)', () => {
  test('bin ≤ splitBin goes left, missing bytes take the default, margins accumulate', () => {
    // Root: f0 bin ≤ 3 (missing left) → leaf 1 | node 2: f1 bin ≤ 7 (missing right) → leaf 2 | leaf 3.
    const tree = makeTree([[1, 2, 0, 0.5, 3, 1], [-1, -1, 0, 1, -1, 0], [3, 4, 1, 2, 7, 0], [-1, -1, 0, 2, -1, 0], [-1, -1, 0, 3, -1, 0]])
    const p = packTrees([tree, tree])
    // 5 rows, f0 with missing (byte 0; bin = byte − 1), f1 without: rowWords = 2.
    const f0 = [4, 5, 5, 0, 200], f1 = [9, 7, 8, 0, 0]
    const bins = new Uint32Array(4)
    f0.forEach((b, i) => { bins[i >> 2] |= b << ((i & 3) * 8) })
    f1.forEach((b, i) => { bins[2 + (i >> 2)] |= b << ((i & 3) * 8) })
    const margins = Float32Array.from([0, 0, 0, 0, 10])
    predictBinned(bins, Uint32Array.from([1, 0]), p.nodes, p.treeOffsets, margins, { rows: 5, rowWords: 2, trees: 2, maxDepth: p.maxDepth })
    expect(Array.from(margins)).toEqual([2, 4, 6, 2, 14])
  })
})
