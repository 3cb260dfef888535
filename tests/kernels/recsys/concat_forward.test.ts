import { describe, test } from 'vitest'
import { concatForwardCall } from '../../../src/kernels/recsys/concat_forward.ts'
import { concatForward } from '../../../src/kernels/recsys/concat_forward.ref.ts'
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

describe('concat_forward matches its reference exactly (a copy)', () => {
  test.each(SHAPES)('forward B=%i E=%i Cd=%i', async (b, e, cd) => {
    const { emb, dense } = randomArrays(b + e * 7 + cd * 31, { emb: b * e, dense: b * cd })
    const want = new Float32Array(b * (e + cd))
    concatForward(emb, dense, want, b, e, cd)
    const got = await runOnGpu({ emb, dense, inp: new Float32Array(b * (e + cd)).fill(Number.NaN) }, ['inp'], bufs =>
      concatForwardCall(bufs, { b, e, cd }),
    )
    expectMatch(compareArrays(got.inp, want, 0, 0), `concat_forward B=${b} E=${e} Cd=${cd}`)
  })
})
