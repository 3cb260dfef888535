import { describe, test } from 'vitest'
import { biasReluBackwardCall } from '../../../src/kernels/recsys/bias_relu_backward.ts'
import { biasReluBackward } from '../../../src/kernels/recsys/bias_relu_backward.ref.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { expectMatch, randomArrays, runOnGpu } from './mlp.shared.ts'

/** [B, C]: empty B, one, channels 1 / 17 / 64 around the workgroup size, a long column (B = 4096). */
const SHAPES = [
  [0, 4],
  [1, 1],
  [5, 17],
  [257, 1],
  [100, 64],
  [33, 129],
  [4096, 1],
] as const

async function check(b: number, c: number, relu: boolean, constants: { WG?: number } = {}): Promise<void> {
  const { dout, pre } = randomArrays(b * 17 + c, { dout: b * c, pre: b * c })
  // A ReLU output: about half zeros, the rest positive.
  const out = pre.map(v => Math.max(0, v))
  const dinp = new Float32Array(b * c),
    dbias = new Float32Array(c)
  biasReluBackward(dout, out, dinp, dbias, b, c, relu)
  const arrays = {
    dout,
    out,
    dinp: new Float32Array(b * c).fill(Number.NaN),
    dbias: new Float32Array(c).fill(Number.NaN),
  }
  const got = await runOnGpu(arrays, ['dinp', 'dbias'], bufs =>
    biasReluBackwardCall(relu ? bufs : { ...bufs, out: undefined }, { b, c }, relu, constants),
  )
  expectMatch(compareArrays(got.dinp, dinp, 0, 0), `bias_relu_backward dinp B=${b} C=${c} relu=${relu}`)
  // Same row order as the reference: only FMA-free f32 adds, so equal up to a tiny tolerance.
  expectMatch(
    compareArrays(got.dbias, dbias, 1e-6 * Math.max(1, b), 1e-5),
    `bias_relu_backward dbias B=${b} C=${c} relu=${relu}`,
  )
}

describe('bias_relu_backward matches its reference', () => {
  test.each(SHAPES)('B=%i C=%i, relu', (b, c) => check(b, c, true))
  test.each(SHAPES)('B=%i C=%i, bias only', (b, c) => check(b, c, false))
  test.each([1, 32, 256])('WG = %i', WG => check(37, 70, true, { WG }))
})
