import { describe, test } from 'vitest'
import { matmulBackwardDweightTiledCall } from '../../../src/kernels/recsys/matmul_backward_dweight_tiled.ts'
import { matmulBackwardDweightTiled } from '../../../src/kernels/recsys/matmul_backward_dweight_tiled.ref.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { DOT_RTOL, dotAtol, expectMatch, MLP_SHAPES, randomArrays, runOnGpu, shapeSeed } from './mlp.shared.ts'

async function check(b: number, c: number, oc: number, accumulate: boolean, constants: { TILE?: number } = {}): Promise<void> {
  const s = { b, c, oc }
  const { dout, inp, start } = randomArrays(shapeSeed(s) + 2, { dout: b * oc, inp: b * c, start: oc * c })
  const dweight = accumulate ? start : new Float32Array(oc * c).fill(Number.NaN)
  const want = dweight.slice()
  matmulBackwardDweightTiled(dout, inp, want, b, c, oc, accumulate)
  const got = await runOnGpu({ dout, inp, dweight }, ['dweight'], bufs => matmulBackwardDweightTiledCall(bufs, s, accumulate, constants))
  expectMatch(compareArrays(got.dweight, want, dotAtol(b), DOT_RTOL), `matmul_backward_dweight_tiled B=${b} C=${c} OC=${oc} acc=${accumulate}`)
}

describe('matmul_backward_dweight_tiled matches its reference', () => {
  test.each(MLP_SHAPES)('B=%i C=%i OC=%i, overwrite', (b, c, oc) => check(b, c, oc, false))
  test.each(MLP_SHAPES)('B=%i C=%i OC=%i, accumulate', (b, c, oc) => check(b, c, oc, true))
  test.each([4, 8, 16])('TILE = %i on 45×21×50 (no tile divides it)', TILE => check(45, 21, 50, false, { TILE }))
})
