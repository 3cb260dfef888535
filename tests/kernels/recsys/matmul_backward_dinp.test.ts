import { describe, test } from 'vitest'
import { matmulBackwardDinpCall } from '../../../src/kernels/recsys/matmul_backward_dinp.ts'
import { matmulBackwardDinp } from '../../../src/kernels/recsys/matmul_backward_dinp.ref.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { DOT_RTOL, dotAtol, expectMatch, MLP_SHAPES, randomArrays, runOnGpu, shapeSeed } from './mlp.shared.ts'

async function check(
  b: number,
  c: number,
  oc: number,
  constants: { WX?: number; WY?: number } = {},
  accumulate = false,
): Promise<void> {
  const s = { b, c, oc }
  const { dout, weight, start } = randomArrays(shapeSeed(s) + 1, { dout: b * oc, weight: oc * c, start: b * c })
  // Overwrite mode starts from NaN (any unwritten or read element shows); accumulate from random values.
  const dinp = accumulate ? start : new Float32Array(b * c).fill(Number.NaN)
  const want = start.slice()
  matmulBackwardDinp(dout, weight, want, b, c, oc, accumulate)
  const got = await runOnGpu({ dout, weight, dinp: dinp.slice() }, ['dinp'], bufs =>
    matmulBackwardDinpCall(bufs, s, accumulate, constants),
  )
  expectMatch(
    compareArrays(got.dinp, want, dotAtol(oc), DOT_RTOL),
    `matmul_backward_dinp B=${b} C=${c} OC=${oc} accumulate=${accumulate}`,
  )
}

describe('matmul_backward_dinp matches its reference', () => {
  // OC = 0 makes dinp all zeros (an empty sum), which the NaN start would expose if unwritten.
  test.each(MLP_SHAPES)('B=%i C=%i OC=%i', (b, c, oc) => check(b, c, oc))
  test.each(MLP_SHAPES)('B=%i C=%i OC=%i, accumulate', (b, c, oc) => check(b, c, oc, {}, true))
  test.each([
    [8, 8],
    [32, 4],
    [1, 64],
  ])('workgroup %i×%i on 45×21×50', (WX, WY) => check(45, 21, 50, { WX, WY }))
})
