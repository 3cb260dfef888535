import { describe, expect, test } from 'vitest'
import { embeddingBagBackward } from '../../../src/kernels/recsys/embedding_bag_backward.ref.ts'
import { embeddingBagForward } from '../../../src/kernels/recsys/embedding_bag_forward.ref.ts'

// Table of R = 4 rows, D = 2: row r = [r, 10·r].
const W = Float32Array.from([0, 0, 1, 10, 2, 20, 3, 30])

describe('embeddingBagForward (reference)', () => {
  test('sums or averages each bag; empty bags give zeros', () => {
    // B = 2, K = 2: (0,0) = [1, 3], (0,1) = [], (1,0) = [2], (1,1) = [1, 1, 2]; bag 0 sums, bag 1 averages.
    const bagRows = Uint32Array.from([1, 3, 2, 1, 1, 2])
    const bagOffsets = Uint32Array.from([0, 2, 2, 3, 6])
    const out = new Float32Array(8).fill(99)
    embeddingBagForward(W, bagRows, bagOffsets, Uint32Array.from([0, 1]), out, { b: 2, k: 2, dim: 2, totalRows: 4 })
    expect(Array.from(out)).toEqual([4, 40, 0, 0, 2, 20, Math.fround(4 / 3), Math.fround(40 / 3)])
  })

  test('a row ≥ R adds zeros but still counts in the mean', () => {
    const out = new Float32Array(2)
    embeddingBagForward(W, Uint32Array.from([3, 9]), Uint32Array.from([0, 2]), Uint32Array.from([1]), out, {
      b: 1,
      k: 1,
      dim: 2,
      totalRows: 4,
    })
    expect(Array.from(out)).toEqual([1.5, 15])
  })
})

describe('embeddingBagBackward (reference)', () => {
  test('each item gets its bag’s gradient (÷ count for mean), from position base, strided dout', () => {
    // dout rows of stride 6: [2 sparse floats][bag 0: 2 floats][bag 1: 2 floats]; offset 2.
    const dout = Float32Array.from([9, 9, 1, 2, 3, 6, 9, 9, 4, 5, 9, 12])
    const bagOffsets = Uint32Array.from([0, 2, 2, 3, 6])
    const dItems = new Float32Array((1 + 6) * 2).fill(-1)
    embeddingBagBackward(dout, bagOffsets, Uint32Array.from([0, 1]), dItems, {
      b: 2,
      k: 2,
      dim: 2,
      items: 6,
      stride: 6,
      offset: 2,
      base: 1,
    })
    expect(Array.from(dItems)).toEqual([-1, -1, 1, 2, 1, 2, 4, 5, 3, 4, 3, 4, 3, 4])
  })

  test('is the adjoint of the forward pass: ⟨dout, forward(w)⟩ = ⟨backward(dout) scattered, w⟩', () => {
    const bagRows = Uint32Array.from([1, 3, 2, 0, 1, 2, 3])
    const bagOffsets = Uint32Array.from([0, 2, 2, 3, 7])
    const pooling = Uint32Array.from([1, 0])
    const out = new Float32Array(8)
    embeddingBagForward(W, bagRows, bagOffsets, pooling, out, { b: 2, k: 2, dim: 2, totalRows: 4 })
    const dout = Float32Array.from([0.5, -1, 2, 3, 0.25, 4, -2, 1])
    const dItems = new Float32Array(7 * 2)
    embeddingBagBackward(dout, bagOffsets, pooling, dItems, {
      b: 2,
      k: 2,
      dim: 2,
      items: 7,
      stride: 4,
      offset: 0,
      base: 0,
    })
    let lhs = 0,
      rhs = 0
    out.forEach((x, i) => (lhs += x * dout[i]))
    bagRows.forEach((r, i) => {
      for (let d = 0; d < 2; d++) rhs += dItems[i * 2 + d] * W[r * 2 + d]
    })
    expect(rhs).toBeCloseTo(lhs, 4)
  })
})
