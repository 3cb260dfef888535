import { describe, test } from 'vitest'
import { matmulForwardTiledCall } from '../../../src/kernels/recsys/matmul_forward_tiled.ts'
import { matmulForwardTiled } from '../../../src/kernels/recsys/matmul_forward_tiled.ref.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { DOT_RTOL, dotAtol, expectMatch, MLP_SHAPES, randomArrays, runOnGpu, shapeSeed } from './mlp.shared.ts'

async function check(b: number, c: number, oc: number, constants: { TILE?: number } = {}): Promise<void> {
  const s = { b, c, oc }
  const { inp, weight } = randomArrays(shapeSeed(s), { inp: b * c, weight: oc * c })
  const want = new Float32Array(b * oc)
  matmulForwardTiled(inp, weight, want, b, c, oc)
  const got = await runOnGpu({ inp, weight, out: new Float32Array(b * oc).fill(Number.NaN) }, ['out'], bufs => matmulForwardTiledCall(bufs, s, constants))
  expectMatch(compareArrays(got.out, want, dotAtol(c), DOT_RTOL), `matmul_forward_tiled B=${b} C=${c} OC=${oc}`)
}

describe('matmul_forward_tiled matches its reference', () => {
  test.each(MLP_SHAPES)('B=%i C=%i OC=%i', (b, c, oc) => check(b, c, oc))
  test.each([4, 8, 16])('TILE = %i on 45×21×50 (no tile divides it)', TILE => check(45, 21, 50, { TILE }))
})
