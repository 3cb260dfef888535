import { describe, test } from 'vitest'
import { crossBackwardCall } from '../../../src/kernels/recsys/cross_backward.ts'
import { crossBackward } from '../../../src/kernels/recsys/cross_backward.ref.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { CROSS_SHAPES, expectMatch, randomArrays, runOnGpu } from './mlp.shared.ts'

type Flags = { accumulate: boolean; residual: boolean }

async function check(b: number, c: number, flags: Flags, constants: { WG?: number } = {}): Promise<void> {
  const { dout, x0, z, bias, start } = randomArrays(b * 53 + c, {
    dout: b * c,
    x0: b * c,
    z: b * c,
    bias: c,
    start: b * c,
  })
  const want = { dz: new Float32Array(b * c), dx0: start.slice(), dbias: new Float32Array(c) }
  crossBackward(dout, x0, z, bias, want.dz, want.dx0, want.dbias, b, c, flags.accumulate, flags.residual)
  // Outputs start as NaN (an unwritten element shows), dx0 as random values when accumulating.
  const nan = (n: number): Float32Array<ArrayBuffer> => new Float32Array(n).fill(Number.NaN)
  const arrays = { dout, x0, z, bias, dz: nan(b * c), dx0: flags.accumulate ? start : nan(b * c), dbias: nan(c) }
  const got = await runOnGpu(arrays, ['dz', 'dx0', 'dbias'], bufs =>
    crossBackwardCall(bufs, { b, c }, flags, constants),
  )
  const what = `cross_backward B=${b} C=${c} ${JSON.stringify(flags)}`
  expectMatch(compareArrays(got.dz, want.dz, 0, 0), `${what} dz`)
  expectMatch(compareArrays(got.dx0, want.dx0, 1e-6, 1e-6), `${what} dx0`)
  // Same row order as the reference: only FMA-free f32 adds, so equal up to a tiny tolerance.
  expectMatch(compareArrays(got.dbias, want.dbias, 1e-6 * Math.max(1, b), 1e-5), `${what} dbias`)
}

const FLAGS: Flags[] = [
  { accumulate: false, residual: false },
  { accumulate: true, residual: false },
  { accumulate: false, residual: true },
  { accumulate: true, residual: true },
]

describe('cross_backward matches its reference', () => {
  test.each(CROSS_SHAPES.flatMap(([b, c]) => FLAGS.map(f => [b, c, f] as const)))('B=%i C0=%i %j', (b, c, f) =>
    check(b, c, f),
  )
  test.each([1, 32, 256])('WG = %i', WG => check(37, 70, { accumulate: true, residual: true }, { WG }))
})
