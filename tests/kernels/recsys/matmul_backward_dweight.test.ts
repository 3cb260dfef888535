import { describe, test } from 'vitest'
import { matmulBackwardDweightCall } from '../../../src/kernels/recsys/matmul_backward_dweight.ts'
import { matmulBackwardDweight } from '../../../src/kernels/recsys/matmul_backward_dweight.ref.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { DOT_RTOL, dotAtol, expectMatch, MLP_SHAPES, randomArrays, runOnGpu, shapeSeed } from './mlp.shared.ts'

async function check(
  b: number,
  c: number,
  oc: number,
  accumulate: boolean,
  constants: { WX?: number; WY?: number } = {},
): Promise<void> {
  const s = { b, c, oc }
  const { dout, inp, start } = randomArrays(shapeSeed(s) + 2, { dout: b * oc, inp: b * c, start: oc * c })
  // Overwrite mode starts from NaN (any unwritten or read element shows); accumulate from random values.
  const dweight = accumulate ? start : new Float32Array(oc * c).fill(Number.NaN)
  const want = dweight.slice()
  matmulBackwardDweight(dout, inp, want, b, c, oc, accumulate)
  const got = await runOnGpu({ dout, inp, dweight }, ['dweight'], bufs =>
    matmulBackwardDweightCall(bufs, s, accumulate, constants),
  )
  expectMatch(
    compareArrays(got.dweight, want, dotAtol(b), DOT_RTOL),
    `matmul_backward_dweight B=${b} C=${c} OC=${oc} acc=${accumulate}`,
  )
}

describe('matmul_backward_dweight matches its reference', () => {
  test.each(MLP_SHAPES)('B=%i C=%i OC=%i, overwrite', (b, c, oc) => check(b, c, oc, false))
  test.each(MLP_SHAPES)('B=%i C=%i OC=%i, accumulate', (b, c, oc) => check(b, c, oc, true))
  test.each([
    [8, 8],
    [32, 4],
    [1, 64],
  ])('workgroup %i×%i on 45×21×50', (WX, WY) => check(45, 21, 50, false, { WX, WY }))
})
