import { describe, expect, test } from 'vitest'
import { matmulBackwardDinp } from '../../../src/kernels/recsys/matmul_backward_dinp.ref.ts'
import { matmulForward } from '../../../src/kernels/recsys/matmul_forward.ref.ts'
import { Rng } from '../../../src/util/rng.ts'
import { dot, expectGradient } from './mlp-gradcheck.ts'

describe('matmulBackwardDinp reference', () => {
  test.each([
    [1, 1, 1],
    [3, 4, 2],
    [2, 5, 7],
  ])('is the gradient of Σ g·matmulForward w.r.t. inp (B=%i C=%i OC=%i)', (b, c, oc) => {
    const rng = new Rng(b * 100 + c * 10 + oc)
    const inp = rng.floats(b * c),
      weight = rng.floats(oc * c),
      g = rng.floats(b * oc)
    const dinp = new Float32Array(b * c)
    matmulBackwardDinp(g, weight, dinp, b, c, oc)
    const out = new Float32Array(b * oc)
    const loss = (): number => {
      matmulForward(inp, weight, out, b, c, oc)
      return dot(g, out)
    }
    expectGradient(dinp, inp, 1e-2, loss, 1e-4, 1e-3, 'dinp')
  })

  test('overwrites dinp', () => {
    const rng = new Rng(9),
      b = 4,
      c = 3,
      oc = 6
    const dout = rng.floats(b * oc),
      weight = rng.floats(oc * c)
    const a = new Float32Array(b * c).fill(99)
    matmulBackwardDinp(dout, weight, a, b, c, oc)
    expect(a.every(v => Math.abs(v) < 6)).toBe(true)
  })

  test('accumulate adds the product to what dinp held', () => {
    const rng = new Rng(10),
      b = 3,
      c = 5,
      oc = 4
    const dout = rng.floats(b * oc),
      weight = rng.floats(oc * c),
      start = rng.floats(b * c)
    const product = new Float32Array(b * c)
    matmulBackwardDinp(dout, weight, product, b, c, oc)
    const acc = start.slice()
    matmulBackwardDinp(dout, weight, acc, b, c, oc, true)
    acc.forEach((v, i) => expect(v).toBe(Math.fround(start[i] + product[i])))
  })
})
