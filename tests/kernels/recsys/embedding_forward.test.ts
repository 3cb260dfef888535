import { describe, test } from 'vitest'
import { createBuffer, uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import { embeddingForwardCall } from '../../../src/kernels/recsys/embedding_forward.ts'
import { embeddingForward } from '../../../src/kernels/recsys/embedding_forward.ref.ts'
import { runKernel } from '../../../src/kernels/runner.ts'
import { Rng } from '../../../src/util/rng.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { checked, expectMatch, gpuCache } from '../bench/setup.ts'

/** B × S lookups into R rows: one hot row repeated, the last row R − 1, and a few ids ≥ R. */
async function check(B: number, S: number, D: number, R: number, WG?: number): Promise<void> {
  const rng = new Rng(B * 131 + S * 17 + D)
  const n = B * S
  const rows = Uint32Array.from({ length: n }, () => {
    const k = rng.int(10)
    return k === 0 ? R - 1 : k < 3 ? 1 : k === 3 ? R + rng.int(3) : rng.int(R)
  })
  const weights = rng.floats(R * D, -3, 3)
  const want = new Float32Array(n * D)
  embeddingForward(weights, rows, want, { positions: n, dim: D, totalRows: R })
  const cache = await gpuCache()
  const { device } = cache
  const out = createBuffer(device, 4 * n * D)
  const b = { weights: uploadBuffer(device, weights), rows: uploadBuffer(device, rows), out }
  try {
    await checked(device, () =>
      runKernel(cache, embeddingForwardCall(b, { positions: n, dim: D, totalRows: R }, { WG })),
    )
    // A copy: bit-identical.
    expectMatch(
      compareArrays(await readBuffer(device, out, Float32Array, n * D), want),
      `embedding_forward B=${B} S=${S} D=${D}`,
    )
  } finally {
    Object.values(b).forEach(x => x.destroy())
  }
}

describe('embedding_forward matches its reference exactly', () => {
  test.each([
    [0, 3, 16],
    [1, 1, 1],
    [1, 3, 17],
    [37, 5, 16],
    [300, 26, 16],
    [255, 2, 17],
  ])('B = %i, S = %i, D = %i', (B, S, D) => check(B, S, D, 50))
  test('WG = 32, B·S not a multiple', () => check(33, 3, 7, 20, 32))
  test('folded grid: B·S = 69000 > 65535 workgroups (WG = 1)', () => check(3000, 23, 2, 5000, 1))
})
