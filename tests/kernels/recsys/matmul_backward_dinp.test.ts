import { describe, test } from 'vitest'
import { matmulBackwardDinpCall } from '../../../src/kernels/recsys/matmul_backward_dinp.ts'
import { matmulBackwardDinp } from '../../../src/kernels/recsys/matmul_backward_dinp.ref.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { DOT_RTOL, dotAtol, expectMatch, MLP_SHAPES, randomArrays, runOnGpu, shapeSeed } from './mlp.shared.ts'

async function check(b: number, c: number, oc: number, constants: { WX?: number; WY?: number } = {}): Promise<void> {
  const s = { b, c, oc }
  const { dout, weight } = randomArrays(shapeSeed(s) + 1, { dout: b * oc, weight: oc * c })
  const want = new Float32Array(b * c)
  matmulBackwardDinp(dout, weight, want, b, c, oc)
  const got = await runOnGpu({ dout, weight, dinp: new Float32Array(b * c).fill(Number.NaN) }, ['dinp'], bufs =>
    matmulBackwardDinpCall(bufs, s, constants),
  )
  expectMatch(compareArrays(got.dinp, want, dotAtol(oc), DOT_RTOL), `matmul_backward_dinp B=${b} C=${c} OC=${oc}`)
}

describe('matmul_backward_dinp matches its reference', () => {
  // OC = 0 makes dinp all zeros (an empty sum), which the NaN start would expose if unwritten.
  test.each(MLP_SHAPES)('B=%i C=%i OC=%i', (b, c, oc) => check(b, c, oc))
  test.each([
    [8, 8],
    [32, 4],
    [1, 64],
  ])('workgroup %i×%i on 45×21×50', (WX, WY) => check(45, 21, 50, { WX, WY }))
})
