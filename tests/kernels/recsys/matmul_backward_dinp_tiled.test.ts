import { describe, test } from 'vitest'
import { matmulBackwardDinpTiledCall } from '../../../src/kernels/recsys/matmul_backward_dinp_tiled.ts'
import { matmulBackwardDinpTiled } from '../../../src/kernels/recsys/matmul_backward_dinp_tiled.ref.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { DOT_RTOL, dotAtol, expectMatch, MLP_SHAPES, randomArrays, runOnGpu, shapeSeed } from './mlp.shared.ts'

async function check(b: number, c: number, oc: number, constants: { TILE?: number } = {}): Promise<void> {
  const s = { b, c, oc }
  const { dout, weight } = randomArrays(shapeSeed(s) + 1, { dout: b * oc, weight: oc * c })
  const want = new Float32Array(b * c)
  matmulBackwardDinpTiled(dout, weight, want, b, c, oc)
  const got = await runOnGpu({ dout, weight, dinp: new Float32Array(b * c).fill(Number.NaN) }, ['dinp'], bufs => matmulBackwardDinpTiledCall(bufs, s, constants))
  expectMatch(compareArrays(got.dinp, want, dotAtol(oc), DOT_RTOL), `matmul_backward_dinp_tiled B=${b} C=${c} OC=${oc}`)
}

describe('matmul_backward_dinp_tiled matches its reference', () => {
  test.each(MLP_SHAPES)('B=%i C=%i OC=%i', (b, c, oc) => check(b, c, oc))
  test.each([4, 8, 16])('TILE = %i on 45×21×50 (no tile divides it)', TILE => check(45, 21, 50, { TILE }))
})
