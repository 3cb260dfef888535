import { describe, expect, test } from 'vitest'
import { marginUpdate } from '../../../src/kernels/gbdt/margin_update.ref.ts'

describe('marginUpdate (reference)', () => {
  test('adds the leaf value of each row’s node; excluded and out-of-range rows stay', () => {
    const margins = Float32Array.from([1, 1, 1, 1])
    marginUpdate(Uint32Array.from([2, 0, 0xffffffff, 7]), Float32Array.from([0.5, 9, -0.25]), margins, 4, 3)
    expect(Array.from(margins)).toEqual([0.75, 1.5, 1, 1])
  })

  test('the sum is rounded to f32', () => {
    const margins = Float32Array.from([1])
    marginUpdate(new Uint32Array(1), Float32Array.from([2 ** -30]), margins, 1, 1)
    expect(margins[0]).toBe(1)
  })
})
