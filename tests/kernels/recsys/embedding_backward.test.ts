import { describe, test } from 'vitest'
import { createBuffer, uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import { embeddingBackwardCall } from '../../../src/kernels/recsys/embedding_backward.ts'
import { embeddingBackward } from '../../../src/kernels/recsys/embedding_backward.ref.ts'
import { runKernel } from '../../../src/kernels/runner.ts'
import { embeddingSegments } from '../../../src/models/recsys/segments.ts'
import { Rng } from '../../../src/util/rng.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { checked, expectMatch, gpuCache } from '../bench/setup.ts'

/** `n` lookups into R rows, a third of them on row 3 (one long segment), plus row R − 1. */
async function check(n: number, D: number, R: number, WG?: number): Promise<void> {
  const rng = new Rng(n * 7 + D)
  const rows = Uint32Array.from({ length: n }, (_, p) => (p === n - 1 ? R - 1 : rng.int(3) === 0 ? 3 : rng.int(R)))
  const { uniq, segStart, order } = embeddingSegments(rows, R)
  const U = uniq.length
  // Mixed magnitudes so the summation order shows in the low bits.
  const dout = Float32Array.from({ length: n * D }, () => rng.uniform(-1, 1) * 10 ** rng.int(6))
  const want = new Float32Array(U * D)
  const shape = { uniq: U, dim: D, positions: n }
  embeddingBackward(dout, order, segStart, want, shape)
  const cache = await gpuCache()
  const { device } = cache
  const dRows = createBuffer(device, 4 * U * D)
  const b = {
    dout: uploadBuffer(device, dout),
    order: uploadBuffer(device, order),
    segStart: uploadBuffer(device, segStart),
    dRows,
  }
  try {
    await checked(device, () => runKernel(cache, embeddingBackwardCall(b, shape, { WG })))
    // The same f32 additions in the same order: bit-identical.
    expectMatch(
      compareArrays(await readBuffer(device, dRows, Float32Array, U * D), want),
      `embedding_backward n=${n} D=${D} U=${U}`,
    )
  } finally {
    Object.values(b).forEach(x => x.destroy())
  }
}

describe('embedding_backward matches its reference exactly', () => {
  test.each([
    [0, 16],
    [1, 1],
    [1, 17],
    [257, 16],
    [1000, 17],
    [6000, 1],
  ])('B·S = %i, D = %i', (n, D) => check(n, D, 200))
  test('WG = 64, U·D not a multiple', () => check(777, 3, 90, 64))
  test('folded grid: > 65535 workgroups (WG = 1)', () => check(20_000, 16, 6000, 1))
})
