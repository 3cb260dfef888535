import { describe, expect, test } from 'vitest'
import { biasReluForward } from '../../../src/kernels/recsys/bias_relu_forward.ref.ts'

describe('biasReluForward reference', () => {
  test('adds the per-channel bias and clamps at 0', () => {
    const out = new Float32Array(6)
    biasReluForward(new Float32Array([1, -2, 3, -4, 5, 0.5]), new Float32Array([0.5, 1, -3]), out, 2, 3, true)
    expect([...out]).toEqual([1.5, 0, 0, 0, 6, 0])
  })

  test('without relu only adds the bias (negative values pass)', () => {
    const out = new Float32Array(3)
    biasReluForward(new Float32Array([1, -2, 3]), new Float32Array([-2]), out, 3, 1, false)
    expect([...out]).toEqual([-1, -4, 1])
  })

  test('B = 0 writes nothing', () => {
    const out = new Float32Array(2).fill(9)
    biasReluForward(new Float32Array(0), new Float32Array([1, 2]), out, 0, 2, true)
    expect([...out]).toEqual([9, 9])
  })
})
