import { describe, test } from 'vitest'
import { biasReluForwardCall } from '../../../src/kernels/recsys/bias_relu_forward.ts'
import { biasReluForward } from '../../../src/kernels/recsys/bias_relu_forward.ref.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { expectMatch, randomArrays, runOnGpu } from './mlp.shared.ts'

/** [B, C]: empty, one, channels 1 / 17 / 64, B·C around and past the workgroup size. */
const SHAPES = [
  [0, 4],
  [1, 1],
  [5, 17],
  [257, 1],
  [100, 64],
  [1000, 17],
] as const

async function check(b: number, c: number, relu: boolean, constants: { WG?: number } = {}): Promise<void> {
  const { inp, bias } = randomArrays(b * 31 + c, { inp: b * c, bias: c })
  const want = new Float32Array(b * c)
  biasReluForward(inp, bias, want, b, c, relu)
  const got = await runOnGpu({ inp, bias, out: new Float32Array(b * c).fill(Number.NaN) }, ['out'], bufs =>
    biasReluForwardCall(bufs, { b, c }, relu, constants),
  )
  // One f32 add and a max: the GPU result is exact.
  expectMatch(compareArrays(got.out, want, 0, 0), `bias_relu_forward B=${b} C=${c} relu=${relu}`)
}

describe('bias_relu_forward matches its reference exactly', () => {
  test.each(SHAPES)('B=%i C=%i, relu', (b, c) => check(b, c, true))
  test.each(SHAPES)('B=%i C=%i, bias only', (b, c) => check(b, c, false))
  test.each([32, 64, 128])('WG = %i', WG => check(37, 13, true, { WG }))
})
