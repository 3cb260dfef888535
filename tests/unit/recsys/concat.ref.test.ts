import { describe, expect, test } from 'vitest'
import { concatBackward } from '../../../src/kernels/recsys/concat_backward.ref.ts'
import { concatForward } from '../../../src/kernels/recsys/concat_forward.ref.ts'

describe('concat references', () => {
  test('forward puts each row’s embeddings then its dense inputs; backward takes the embedding slice', () => {
    const emb = new Float32Array([1, 2, 3, 4]),
      dense = new Float32Array([9, 8, 7, 6, 5, 4])
    const inp = new Float32Array(10)
    concatForward(emb, dense, inp, 2, 2, 3)
    expect([...inp]).toEqual([1, 2, 9, 8, 7, 3, 4, 6, 5, 4])
    const demb = new Float32Array(4)
    concatBackward(inp, demb, 2, 2, 3)
    expect([...demb]).toEqual([1, 2, 3, 4])
  })
})
