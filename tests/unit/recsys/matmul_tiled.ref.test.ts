import { describe, expect, test } from 'vitest'
import { matmulBackwardDinp } from '../../../src/kernels/recsys/matmul_backward_dinp.ref.ts'
import { matmulBackwardDweight } from '../../../src/kernels/recsys/matmul_backward_dweight.ref.ts'
import { matmulForward } from '../../../src/kernels/recsys/matmul_forward.ref.ts'
import { matmulTiled } from '../../../src/kernels/recsys/matmul_tiled.ref.ts'
import { Rng } from '../../../src/util/rng.ts'

describe('matmulTiled reference', () => {
  test('computes known products in each layout', () => {
    const a = new Float32Array([1, 2, 3, 4, 5, 6]) // [2×3]; transposed it reads as [3×2]
    const b = new Float32Array([1, 0, 0, 1, 1, 1])
    const c = new Float32Array(4)
    matmulTiled(a, b, c, 2, 3, 2) // a [2×3] · b [3×2]
    expect([...c]).toEqual([4, 5, 10, 11])
    matmulTiled(a, b, c, 2, 3, 2, false, true) // a · (b as [2×3])ᵀ
    expect([...c]).toEqual([1, 6, 4, 15])
    const c3 = new Float32Array(9)
    matmulTiled(a, b, c3, 3, 2, 3, true, false) // (a as [2×3])ᵀ · (b as [2×3])
    expect([...c3]).toEqual([5, 4, 4, 7, 5, 5, 9, 6, 6])
    matmulTiled(a, b, c, 2, 3, 2, false, false, true)
    expect([...c]).toEqual([5, 11, 14, 26])
  })

  test("with the recommender's layouts it sums exactly as the naive references", () => {
    const rng = new Rng(11),
      b = 9,
      c = 17,
      oc = 5
    const inp = rng.floats(b * c),
      weight = rng.floats(oc * c),
      dout = rng.floats(b * oc),
      start = rng.floats(oc * c)
    const want = new Float32Array(b * oc),
      got = new Float32Array(b * oc)
    matmulForward(inp, weight, want, b, c, oc)
    matmulTiled(inp, weight, got, b, c, oc, false, true)
    expect(got).toEqual(want)
    const wantDinp = new Float32Array(b * c),
      gotDinp = new Float32Array(b * c)
    matmulBackwardDinp(dout, weight, wantDinp, b, c, oc)
    matmulTiled(dout, weight, gotDinp, b, oc, c)
    expect(gotDinp).toEqual(wantDinp)
    const wantDw = start.slice(),
      gotDw = start.slice()
    matmulBackwardDweight(dout, inp, wantDw, b, c, oc, true)
    matmulTiled(dout, inp, gotDw, oc, b, c, true, false, true)
    expect(gotDw).toEqual(wantDw)
  })
})
