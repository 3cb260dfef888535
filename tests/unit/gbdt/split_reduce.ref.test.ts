import { describe, expect, test } from 'vitest'
import { decodeSplit, NO_FEATURE, SPLIT_WORDS } from '../../../src/kernels/gbdt/split_evaluate.ref.ts'
import { splitReduce } from '../../../src/kernels/gbdt/split_reduce.ref.ts'

/** Records of one node from (gain, feature) pairs; feature −1 = "no split". */
function records(list: Array<[number, number]>): Uint32Array {
  const r = new Uint32Array(list.length * SPLIT_WORDS), f32 = new Float32Array(r.buffer)
  list.forEach(([g, f], k) => { f32[k * SPLIT_WORDS] = g; r[k * SPLIT_WORDS + 1] = f < 0 ? NO_FEATURE : f; r[k * SPLIT_WORDS + 2] = 10 + k })
  return r
}

describe('splitReduce (reference)', () => {
  test('the largest gain wins and its whole record is copied', () => {
    const out = new Uint32Array(SPLIT_WORDS)
    splitReduce(records([[1, 0], [5, 1], [2, 2]]), out, 1, 3)
    expect([decodeSplit(out, 0).feature, decodeSplit(out, 0).gain, decodeSplit(out, 0).splitBin]).toEqual([1, 5, 11])
  })

  test('equal gains keep the smaller feature; "no split" records are skipped', () => {
    const out = new Uint32Array(SPLIT_WORDS)
    splitReduce(records([[-Infinity, -1], [3, 1], [3, 2]]), out, 1, 3)
    expect(decodeSplit(out, 0).feature).toBe(1)
  })

  test('no valid record: gain −∞, feature −1', () => {
    const out = new Uint32Array(SPLIT_WORDS).fill(7)
    splitReduce(records([[-Infinity, -1], [-Infinity, -1]]), out, 1, 2)
    expect([decodeSplit(out, 0).feature, decodeSplit(out, 0).gain, out[2]]).toEqual([-1, -Infinity, 0])
  })
})
