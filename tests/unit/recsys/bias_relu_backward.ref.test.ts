import { describe, expect, test } from 'vitest'
import { biasReluBackward } from '../../../src/kernels/recsys/bias_relu_backward.ref.ts'
import { biasReluForward } from '../../../src/kernels/recsys/bias_relu_forward.ref.ts'
import { Rng } from '../../../src/util/rng.ts'
import { dot, expectGradient } from './mlp-gradcheck.ts'

/** inp in [−1, 1) with inp + bias kept ≥ 0.05 away from the ReLU kink, so finite differences are smooth. */
function awayFromKink(rng: Rng, b: number, c: number): { inp: Float32Array; bias: Float32Array } {
  const bias = rng.floats(c, -0.5, 0.5),
    inp = new Float32Array(b * c)
  for (let i = 0; i < inp.length; i++) {
    do inp[i] = rng.uniform(-1, 1)
    while (Math.abs(inp[i] + bias[i % c]) < 0.05)
  }
  return { inp, bias }
}

describe('biasReluBackward reference', () => {
  test.each([
    [1, 1, true],
    [4, 3, true],
    [3, 5, false],
  ])('is the gradient of Σ g·biasReluForward (B=%i C=%i relu=%s)', (b, c, relu) => {
    const rng = new Rng(b * 10 + c)
    const { inp, bias } = awayFromKink(rng, b, c)
    const g = rng.floats(b * c),
      out = new Float32Array(b * c)
    biasReluForward(inp, bias, out, b, c, relu)
    const dinp = new Float32Array(b * c),
      dbias = new Float32Array(c)
    biasReluBackward(g, out, dinp, dbias, b, c, relu)
    const loss = (): number => {
      biasReluForward(inp, bias, out, b, c, relu)
      return dot(g, out)
    }
    expectGradient(dinp, inp, 1e-3, loss, 1e-4, 1e-3, 'dinp')
    expectGradient(dbias, bias, 1e-3, loss, 1e-4, 1e-3, 'dbias')
  })

  test('masks where out is 0 (ReLU′(0) = 0) and sums dbias over rows', () => {
    const dinp = new Float32Array(4),
      dbias = new Float32Array(2)
    biasReluBackward(new Float32Array([1, 2, 3, 4]), new Float32Array([0, 5, 1, 0]), dinp, dbias, 2, 2, true)
    expect([...dinp]).toEqual([0, 2, 3, 0])
    expect([...dbias]).toEqual([3, 2])
  })

  test('B = 0 gives dbias = 0', () => {
    const dbias = new Float32Array(3).fill(9)
    biasReluBackward(new Float32Array(0), new Float32Array(0), new Float32Array(0), dbias, 0, 3, true)
    expect([...dbias]).toEqual([0, 0, 0])
  })
})
