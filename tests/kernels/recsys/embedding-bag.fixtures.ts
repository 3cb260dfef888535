/**
 * Shared fixture of the embedding bag kernels' parity tests: random bags (a fifth empty, an optional
 * huge bag) and one GPU-vs-reference check per kernel. B = rows, K = bag features, D = embedding
 * dim, M = items, R = embedding rows.
 */
import { test } from 'vitest'
import { createBuffer, uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import { embeddingBagBackwardCall } from '../../../src/kernels/recsys/embedding_bag_backward.ts'
import { embeddingBagBackward } from '../../../src/kernels/recsys/embedding_bag_backward.ref.ts'
import { embeddingBagForwardCall } from '../../../src/kernels/recsys/embedding_bag_forward.ts'
import { embeddingBagForward } from '../../../src/kernels/recsys/embedding_bag_forward.ref.ts'
import { runKernel } from '../../../src/kernels/runner.ts'
import { Rng } from '../../../src/util/rng.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { checked, expectMatch, gpuCache } from '../bench/setup.ts'

/** Bags of B rows × K features: lengths 0 … maxLen (a fifth empty), `huge` items in bag 0 when given. */
function bags(rng: Rng, B: number, K: number, R: number, maxLen: number, huge = 0) {
  const offsets = new Uint32Array(B * K + 1)
  for (let j = 0; j < B * K; j++) {
    const len = j === 0 && huge ? huge : rng.int(5) === 0 ? 0 : rng.int(maxLen + 1)
    offsets[j + 1] = offsets[j] + len
  }
  const rows = Uint32Array.from({ length: offsets[B * K] }, (_, i) => (i === 0 ? R - 1 : rng.int(R)))
  return { rows, offsets, pooling: Uint32Array.from({ length: K }, (_, k) => k % 2) }
}

/**
 * `kernel` (embedding_bag_forward or _backward) on one random batch of B rows × K bags of D floats,
 * GPU vs reference (mean divides in both: f32-close, sums exact).
 */
export async function checkBag(
  kernel: 'forward' | 'backward',
  B: number,
  K: number,
  D: number,
  maxLen: number,
  huge = 0,
): Promise<void> {
  const rng = new Rng(B * 131 + K * 7 + D + huge)
  const R = 300
  const { rows, offsets, pooling } = bags(rng, B, K, R, maxLen, huge)
  const M = rows.length
  const weights = Float32Array.from({ length: R * D }, () => rng.uniform(-1, 1))
  const fshape = { b: B, k: K, dim: D, totalRows: R }
  const wantOut = new Float32Array(B * K * D)
  embeddingBagForward(weights, rows, offsets, pooling, wantOut, fshape)
  // Backward reads a strided dout (3 leading floats per row, then the bags, then 2 more).
  const stride = 3 + K * D + 2
  const dout = Float32Array.from({ length: B * stride }, () => rng.uniform(-1, 1))
  const base = 5
  const bshape = { b: B, k: K, dim: D, items: M, stride, offset: 3, base }
  const wantItems = new Float32Array((base + M) * D)
  embeddingBagBackward(dout, offsets, pooling, wantItems, bshape)
  const cache = await gpuCache()
  const { device } = cache
  const nonEmpty = (a: Uint32Array<ArrayBuffer>): Uint32Array<ArrayBuffer> => (a.length ? a : new Uint32Array(1))
  const b = {
    weights: uploadBuffer(device, weights),
    bagRows: uploadBuffer(device, nonEmpty(rows)),
    bagOffsets: uploadBuffer(device, offsets),
    pooling: uploadBuffer(device, pooling),
    out: createBuffer(device, Math.max(4, 4 * B * K * D)),
    dout: uploadBuffer(device, dout),
    dItems: createBuffer(device, 4 * (base + M) * D),
  }
  try {
    const what = `B=${B} K=${K} D=${D} M=${M}`
    if (kernel === 'forward') {
      const call = embeddingBagForwardCall(
        { weights: b.weights, bagRows: b.bagRows, bagOffsets: b.bagOffsets, pooling: b.pooling, out: b.out },
        fshape,
      )
      await checked(device, () => runKernel(cache, call))
      expectMatch(
        compareArrays(await readBuffer(device, b.out, Float32Array, B * K * D), wantOut, 1e-6, 1e-6),
        `embedding_bag_forward ${what}`,
      )
    } else {
      const call = embeddingBagBackwardCall(
        { dout: b.dout, bagOffsets: b.bagOffsets, pooling: b.pooling, dItems: b.dItems },
        bshape,
      )
      await checked(device, () => runKernel(cache, call))
      expectMatch(
        compareArrays(await readBuffer(device, b.dItems, Float32Array, (base + M) * D), wantItems, 1e-7, 1e-6),
        `embedding_bag_backward ${what}`,
      )
    }
  } finally {
    Object.values(b).forEach(x => x.destroy())
  }
}

/** The cases both bag kernels are checked on: [B, K, D, longest bag] random sizes, then the edges. */
export const BAG_CASES: [number, number, number, number][] = [
  [1, 1, 1, 3],
  [1, 2, 16, 5],
  [64, 3, 16, 8],
  [257, 2, 17, 4],
  [1000, 1, 3, 12],
]

/** The parity tests of `kernel` over BAG_CASES, every bag empty, and one huge bag. */
export function bagParityTests(kernel: 'forward' | 'backward'): void {
  test.each(BAG_CASES)('B = %i, K = %i, D = %i, lengths ≤ %i', (B, K, D, maxLen) => checkBag(kernel, B, K, D, maxLen))
  test('every bag empty (M = 0)', () => checkBag(kernel, 40, 2, 8, 0))
  test('one huge bag (5000 items) among short ones', () => checkBag(kernel, 33, 2, 5, 3, 5000))
}
