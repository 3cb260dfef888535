import { describe, expect, test } from 'vitest'
import { uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import { runKernel } from '../../../src/kernels/runner.ts'
import { atomicAddWorkgroupCall } from '../../../bench/kernels/atomic_add_workgroup.ts'
import { atomicAddWorkgroup } from '../../../bench/kernels/atomic_add_workgroup.ref.ts'
import { Rng } from '../../../src/util/rng.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { checked, EDGE_SIZES, expectMatch, gpuCache } from './setup.ts'

/** Keys drawn from [0, 2k) so the kernel's `% K` wrap is exercised too. */
function randomKeys(seed: number, n: number, k: number): Uint32Array<ArrayBuffer> {
  const rng = new Rng(seed)
  return Uint32Array.from({ length: n }, () => rng.int(2 * k))
}

async function gpuHistogram(
  keys: Uint32Array<ArrayBuffer>,
  start: Uint32Array<ArrayBuffer>,
  k: number,
  c: { WG?: number; ITEMS?: number } = {},
): Promise<Uint32Array> {
  const cache = await gpuCache()
  const { device } = cache
  const gk = uploadBuffer(device, keys),
    gc = uploadBuffer(device, start)
  try {
    await checked(device, () =>
      runKernel(cache, atomicAddWorkgroupCall({ keys: gk, counters: gc }, { n: keys.length, k }, c)),
    )
    return await readBuffer(device, gc, Uint32Array, k)
  } finally {
    gk.destroy()
    gc.destroy()
  }
}

describe('atomic_add_workgroup matches its reference exactly', () => {
  test.each(EDGE_SIZES)('n = %i, k = 37', async n => {
    const k = 37
    const keys = randomKeys(n, n, k)
    const start = Uint32Array.from({ length: k }, (_, i) => i * 3)
    const want = start.slice()
    atomicAddWorkgroup(keys, want, n, k)
    expectMatch(compareArrays(await gpuHistogram(keys, start, k), want), `atomic_add_workgroup n=${n}`)
  })

  // k > WG checks the strided flush loop; ITEMS = 1 and odd n check slice boundaries.
  test.each([
    [1, 64, 16],
    [16, 128, 4],
    [300, 64, 1],
    [4096, 256, 16],
    [4096, 64, 3],
  ])('k = %i, WG = %i, ITEMS = %i', async (k, WG, ITEMS) => {
    const n = 20_011
    const keys = randomKeys(k + WG, n, k)
    const want = new Uint32Array(k)
    atomicAddWorkgroup(keys, want, n, k)
    expectMatch(
      compareArrays(await gpuHistogram(keys, new Uint32Array(k), k, { WG, ITEMS }), want),
      `atomic_add_workgroup k=${k}`,
    )
  })

  test('rejects k = 0 by name', () => {
    expect(() => atomicAddWorkgroupCall({} as never, { n: 1, k: 0 })).toThrow(/k must be/)
  })
})
