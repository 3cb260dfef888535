import { describe, test } from 'vitest'
import { crossForwardCall } from '../../../src/kernels/recsys/cross_forward.ts'
import { crossForward } from '../../../src/kernels/recsys/cross_forward.ref.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { CROSS_SHAPES, expectMatch, randomArrays, runOnGpu } from './mlp.shared.ts'

async function check(b: number, c: number, sameXl: boolean, constants: { WG?: number } = {}): Promise<void> {
  const { x0, xl, z, bias } = randomArrays(b * 101 + c, { x0: b * c, xl: b * c, z: b * c, bias: c })
  const want = new Float32Array(b * c)
  crossForward(x0, sameXl ? x0 : xl, z, bias, want, b, c)
  const arrays = { x0, xl, z, bias, out: new Float32Array(b * c).fill(Number.NaN) }
  const got = await runOnGpu(arrays, ['out'], bufs =>
    crossForwardCall({ ...bufs, xl: sameXl ? bufs.x0 : bufs.xl }, { b, c }, constants),
  )
  // Three f32 operations per element; only FMA contraction may differ.
  expectMatch(compareArrays(got.out, want, 1e-6, 1e-6), `cross_forward B=${b} C=${c} xl=x0 ${sameXl}`)
}

describe('cross_forward matches its reference', () => {
  test.each(CROSS_SHAPES)('B=%i C0=%i', (b, c) => check(b, c, false))
  test.each(CROSS_SHAPES)('B=%i C0=%i, layer 0 (xl is x0, one buffer bound twice)', (b, c) => check(b, c, true))
  test.each([1, 64, 256])('WG = %i', WG => check(37, 70, false, { WG }))
})
