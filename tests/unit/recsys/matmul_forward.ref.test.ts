import { describe, expect, test } from 'vitest'
import { matmulForward } from '../../../src/kernels/recsys/matmul_forward.ref.ts'
import { Rng } from '../../../src/util/rng.ts'

describe('matmulForward reference', () => {
  test('computes a known product inp · weightᵀ', () => {
    // inp [2×3], weight [2×3] (OC = 2): out[b, o] = Σ_c inp[b, c]·weight[o, c].
    const out = new Float32Array(4)
    matmulForward(new Float32Array([1, 2, 3, 4, 5, 6]), new Float32Array([1, 0, 0, 1, 1, 1]), out, 2, 3, 2)
    expect([...out]).toEqual([1, 6, 4, 15])
  })

  test('matches an f64 product within f32 rounding and leaves C = 0 as zeros', () => {
    const rng = new Rng(3),
      b = 7,
      c = 19,
      oc = 5
    const inp = rng.floats(b * c),
      weight = rng.floats(oc * c),
      out = new Float32Array(b * oc)
    matmulForward(inp, weight, out, b, c, oc)
    for (let r = 0; r < b; r++) {
      for (let o = 0; o < oc; o++) {
        let s = 0
        for (let k = 0; k < c; k++) s += inp[r * c + k] * weight[o * c + k]
        expect(Math.abs(out[r * oc + o] - s)).toBeLessThan(1e-5)
      }
    }
    const zero = new Float32Array(6).fill(Number.NaN)
    matmulForward(new Float32Array(0), new Float32Array(0), zero, 2, 0, 3)
    expect([...zero]).toEqual([0, 0, 0, 0, 0, 0])
  })
})
