import { describe, test } from 'vitest'
import { concatBackwardCall } from '../../../src/kernels/recsys/concat_backward.ts'
import { concatBackward } from '../../../src/kernels/recsys/concat_backward.ref.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { expectMatch, randomArrays, runOnGpu } from './mlp.shared.ts'

/** [B, E, Cd]: empty batch, no dense inputs, one of each, odd sizes, past the workgroup size. */
const SHAPES = [
  [0, 4, 3],
  [5, 8, 0],
  [1, 1, 1],
  [7, 12, 5],
  [300, 32, 19],
] as const

describe('concat_backward matches its reference exactly (a copy)', () => {
  test.each(SHAPES)('backward B=%i E=%i Cd=%i', async (b, e, cd) => {
    const { dinp } = randomArrays(b * 3 + e + cd, { dinp: b * (e + cd) })
    const want = new Float32Array(b * e)
    concatBackward(dinp, want, b, e, cd)
    const got = await runOnGpu({ dinp, demb: new Float32Array(b * e).fill(Number.NaN) }, ['demb'], bufs =>
      concatBackwardCall(bufs, { b, e, cd }),
    )
    expectMatch(compareArrays(got.demb, want, 0, 0), `concat_backward B=${b} E=${e} Cd=${cd}`)
  })
})
