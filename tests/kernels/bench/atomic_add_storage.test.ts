import { describe, test } from 'vitest'
import { uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import { runKernel } from '../../../src/kernels/runner.ts'
import { atomicAddStorageCall } from '../../../bench/kernels/atomic_add_storage.ts'
import { atomicAddStorage } from '../../../bench/kernels/atomic_add_storage.ref.ts'
import { Rng } from '../../../src/util/rng.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { checked, EDGE_SIZES, expectMatch, gpuCache } from './setup.ts'

/** Keys drawn from [0, 2k) so the kernel's `% k` wrap is exercised too. */
function randomKeys(seed: number, n: number, k: number): Uint32Array<ArrayBuffer> {
  const rng = new Rng(seed)
  return Uint32Array.from({ length: n }, () => rng.int(2 * k))
}

async function gpuHistogram(
  keys: Uint32Array<ArrayBuffer>,
  start: Uint32Array<ArrayBuffer>,
  k: number,
  WG?: number,
): Promise<Uint32Array> {
  const cache = await gpuCache()
  const { device } = cache
  const gk = uploadBuffer(device, keys),
    gc = uploadBuffer(device, start)
  try {
    await checked(device, () =>
      runKernel(cache, atomicAddStorageCall({ keys: gk, counters: gc }, { n: keys.length, k }, { WG })),
    )
    return await readBuffer(device, gc, Uint32Array, k)
  } finally {
    gk.destroy()
    gc.destroy()
  }
}

describe('atomic_add_storage matches its reference exactly', () => {
  test.each(EDGE_SIZES)('n = %i, k = 37', async n => {
    const k = 37
    const keys = randomKeys(n, n, k)
    // Non-zero starting counts: the kernel accumulates, it does not overwrite.
    const start = Uint32Array.from({ length: k }, (_, i) => i * 3)
    const want = start.slice()
    atomicAddStorage(keys, want, n, k)
    expectMatch(compareArrays(await gpuHistogram(keys, start, k), want), `atomic_add_storage n=${n}`)
  })

  test.each([
    [1, 64],
    [16, 128],
    [4096, 256],
    [65_536, 64],
  ])('k = %i, WG = %i', async (k, WG) => {
    const n = 20_011
    const keys = randomKeys(k, n, k)
    const want = new Uint32Array(k)
    atomicAddStorage(keys, want, n, k)
    expectMatch(compareArrays(await gpuHistogram(keys, new Uint32Array(k), k, WG), want), `atomic_add_storage k=${k}`)
  })
})
