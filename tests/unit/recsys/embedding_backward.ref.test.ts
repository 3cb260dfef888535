import { describe, expect, test } from 'vitest'
import { embeddingBackward } from '../../../src/kernels/recsys/embedding_backward.ref.ts'
import { embeddingSegments } from '../../../src/models/recsys/segments.ts'

describe('embeddingBackward (reference)', () => {
  test('sums each row’s dout over its positions', () => {
    // positions 0..4 use rows 7, 2, 7, 7, 2 (D = 2).
    const rows = Uint32Array.from([7, 2, 7, 7, 2])
    const dout = Float32Array.from([1, 10, 2, 20, 3, 30, 4, 40, 5, 50])
    const { uniq, segStart, order } = embeddingSegments(rows)
    const dRows = new Float32Array(4).fill(99)
    embeddingBackward(dout, order, segStart, dRows, { uniq: uniq.length, dim: 2, positions: 5 })
    expect(Array.from(uniq)).toEqual([2, 7])
    expect(Array.from(dRows)).toEqual([7, 70, 8, 80])
  })

  test('adds in segment order, rounding every partial sum to f32', () => {
    // 1 + 2^-24 rounds back to 1 in f32; the order [1, 2^-24, 2^-24] therefore sums to 1, while
    // float64 (or the order [2^-24, 2^-24, 1]) would not: the order is part of the contract.
    const dout = Float32Array.from([1, 2 ** -24, 2 ** -24])
    const dRows = new Float32Array(1)
    embeddingBackward(dout, Uint32Array.from([0, 1, 2]), Uint32Array.from([0, 3]), dRows, {
      uniq: 1,
      dim: 1,
      positions: 3,
    })
    expect(dRows[0]).toBe(1)
    embeddingBackward(dout, Uint32Array.from([1, 2, 0]), Uint32Array.from([0, 3]), dRows, {
      uniq: 1,
      dim: 1,
      positions: 3,
    })
    expect(dRows[0]).toBe(Math.fround(1 + 2 ** -23))
  })

  test('U = 0 writes nothing', () => {
    const dRows = Float32Array.from([5])
    embeddingBackward(new Float32Array(0), new Uint32Array(0), Uint32Array.from([0]), dRows, {
      uniq: 0,
      dim: 1,
      positions: 0,
    })
    expect(dRows[0]).toBe(5)
  })
})
