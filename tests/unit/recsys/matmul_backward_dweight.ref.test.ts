import { describe, expect, test } from 'vitest'
import { matmulBackwardDweight } from '../../../src/kernels/recsys/matmul_backward_dweight.ref.ts'
import { matmulForward } from '../../../src/kernels/recsys/matmul_forward.ref.ts'
import { Rng } from '../../../src/util/rng.ts'
import { dot, expectGradient } from './mlp-gradcheck.ts'

describe('matmulBackwardDweight reference', () => {
  test.each([
    [1, 1, 1],
    [3, 4, 2],
    [5, 2, 3],
  ])('is the gradient of Σ g·matmulForward w.r.t. weight (B=%i C=%i OC=%i)', (b, c, oc) => {
    const rng = new Rng(b * 100 + c * 10 + oc)
    const inp = rng.floats(b * c),
      weight = rng.floats(oc * c),
      g = rng.floats(b * oc)
    const dweight = new Float32Array(oc * c)
    matmulBackwardDweight(g, inp, dweight, b, c, oc, false)
    const out = new Float32Array(b * oc)
    const loss = (): number => {
      matmulForward(inp, weight, out, b, c, oc)
      return dot(g, out)
    }
    expectGradient(dweight, weight, 1e-2, loss, 1e-4, 1e-3, 'dweight')
  })

  test('overwrites by default, adds with accumulate, and B = 0 gives zeros', () => {
    const rng = new Rng(5),
      b = 3,
      c = 2,
      oc = 2
    const dout = rng.floats(b * oc),
      inp = rng.floats(b * c)
    const fresh = new Float32Array(oc * c).fill(7)
    matmulBackwardDweight(dout, inp, fresh, b, c, oc, false)
    const acc = new Float32Array(oc * c).fill(7)
    matmulBackwardDweight(dout, inp, acc, b, c, oc, true)
    fresh.forEach((v, i) => expect(acc[i]).toBe(Math.fround(7 + v)))
    const empty = new Float32Array(oc * c).fill(7)
    matmulBackwardDweight(new Float32Array(0), new Float32Array(0), empty, 0, c, oc, false)
    expect([...empty]).toEqual([0, 0, 0, 0])
  })
})
