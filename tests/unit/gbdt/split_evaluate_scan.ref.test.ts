import { describe, expect, test } from 'vitest'
import { decodeSplit, putInt64, SPLIT_WORDS, splitEvaluate } from '../../../src/kernels/gbdt/split_evaluate.ref.ts'
import { splitEvaluateScan } from '../../../src/kernels/gbdt/split_evaluate_scan.ref.ts'
import { splitReduce } from '../../../src/kernels/gbdt/split_reduce.ref.ts'

const P = { lambda: 1, alpha: 0, minChildWeight: 0 }

/** One node with 2 features: f0 bins (−4,2),(6,2); f1 bins (−4,1),(4,1) (missing rows only in f1). */
function inputs(): { hist: Uint32Array; cutPtrs: Uint32Array; sums: Uint32Array; scales: Float32Array } {
  const hist = new Uint32Array(4 * 4)
  const bins: Array<[number, number]> = [[-4, 2], [6, 2], [-4, 1], [4, 1]]
  bins.forEach(([g, h], b) => { putInt64(hist, b * 4, g); putInt64(hist, b * 4 + 2, h) })
  const sums = new Uint32Array(4)
  putInt64(sums, 0, 2); putInt64(sums, 2, 4)
  return { hist, cutPtrs: Uint32Array.from([0, 2, 4]), sums, scales: Float32Array.from([0, 0, 1, 1]) }
}

describe('splitEvaluateScan + splitReduce (references)', () => {
  test('one record per (node, feature); reduced they equal splitEvaluate', () => {
    const { hist, cutPtrs, sums, scales } = inputs()
    const shape = { nodes: 1, features: 2, maskPerNode: 0 }
    const records = new Uint32Array(2 * SPLIT_WORDS), out = new Uint32Array(SPLIT_WORDS), want = new Uint32Array(SPLIT_WORDS)
    splitEvaluateScan(hist, cutPtrs, Uint32Array.from([1, 1]), new Uint32Array(1), sums, scales, records, shape, P)
    expect([decodeSplit(records, 0).feature, decodeSplit(records, 1).feature]).toEqual([0, 1])
    // f1: bins sum to (0, 2), missing (2, 2); best is bin 0 left, missing right: 16/2 + 36/4 − 4/5.
    const f1 = decodeSplit(records, 1)
    expect([f1.splitBin, f1.defaultLeft]).toEqual([0, false])
    expect(f1.gain).toBeCloseTo(8 + 9 - 0.8, 4)
    splitReduce(records, out, 1, 2)
    splitEvaluate(hist, cutPtrs, Uint32Array.from([1, 1]), new Uint32Array(1), sums, scales, want, shape, P)
    expect(Array.from(out)).toEqual(Array.from(want))
  })

  test('a masked-off feature gets the "no split" record', () => {
    const { hist, cutPtrs, sums, scales } = inputs()
    const records = new Uint32Array(2 * SPLIT_WORDS)
    splitEvaluateScan(hist, cutPtrs, Uint32Array.from([0, 1]), new Uint32Array(1), sums, scales, records, { nodes: 1, features: 2, maskPerNode: 0 }, P)
    expect([decodeSplit(records, 0).feature, decodeSplit(records, 0).gain]).toEqual([-1, -Infinity])
  })
})
