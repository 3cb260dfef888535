import { describe, test } from 'vitest'
import { matmulForwardCall } from '../../../src/kernels/recsys/matmul_forward.ts'
import { matmulForward } from '../../../src/kernels/recsys/matmul_forward.ref.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { DOT_RTOL, dotAtol, expectMatch, MLP_SHAPES, randomArrays, runOnGpu, shapeSeed } from './mlp.shared.ts'

async function check(b: number, c: number, oc: number, constants: { WX?: number; WY?: number } = {}): Promise<void> {
  const s = { b, c, oc }
  const { inp, weight } = randomArrays(shapeSeed(s), { inp: b * c, weight: oc * c })
  const want = new Float32Array(b * oc)
  matmulForward(inp, weight, want, b, c, oc)
  const got = await runOnGpu({ inp, weight, out: new Float32Array(b * oc).fill(Number.NaN) }, ['out'], bufs =>
    matmulForwardCall(bufs, s, constants),
  )
  expectMatch(compareArrays(got.out, want, dotAtol(c), DOT_RTOL), `matmul_forward B=${b} C=${c} OC=${oc}`)
}

describe('matmul_forward matches its reference', () => {
  test.each(MLP_SHAPES)('B=%i C=%i OC=%i', (b, c, oc) => check(b, c, oc))
  test.each([
    [8, 8],
    [32, 4],
    [1, 64],
  ])('workgroup %i×%i on 45×21×50', (WX, WY) => check(45, 21, 50, { WX, WY }))
})
