import { describe, expect, test } from 'vitest'
import { createBuffer, uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import { runKernel } from '../../../src/kernels/runner.ts'
import { copyCall } from '../../../bench/kernels/copy.ts'
import { copy } from '../../../bench/kernels/copy.ref.ts'
import { Rng } from '../../../src/util/rng.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { checked, EDGE_SIZES, expectMatch, gpuCache } from './setup.ts'

function randomWords(seed: number, n: number): Uint32Array<ArrayBuffer> {
  const rng = new Rng(seed)
  return Uint32Array.from({ length: n }, () => rng.nextU32())
}

async function gpuCopy(src: Uint32Array<ArrayBuffer>, n: number, dstLength: number, WG?: number): Promise<Uint32Array> {
  const cache = await gpuCache()
  const { device } = cache
  // dst starts as a known pattern so untouched tail words are checked too.
  const gs = uploadBuffer(device, src),
    gd = uploadBuffer(device, new Uint32Array(dstLength).fill(0xdeadbeef))
  try {
    await checked(device, () => runKernel(cache, copyCall({ src: gs, dst: gd }, { n }, { WG })))
    return await readBuffer(device, gd, Uint32Array, dstLength)
  } finally {
    gs.destroy()
    gd.destroy()
  }
}

describe('copy matches its reference exactly', () => {
  test.each(EDGE_SIZES)('n = %i', async n => {
    const src = randomWords(n, n)
    const want = new Uint32Array(n + 3).fill(0xdeadbeef)
    copy(src, want, n)
    expectMatch(compareArrays(await gpuCopy(src, n, n + 3), want), `copy n=${n}`)
  })

  test.each([32, 64, 128, 256])('workgroup size %i, partial copy', async WG => {
    const src = randomWords(WG, 1000)
    const want = new Uint32Array(1000).fill(0xdeadbeef)
    copy(src, want, 777)
    expectMatch(compareArrays(await gpuCopy(src, 777, 1000, WG), want), `copy WG=${WG}`)
  })

  test('a grid folded into x·y (more than 65535 workgroups) covers every element once', async () => {
    const WG = 32,
      n = 65535 * WG + 101
    const src = randomWords(7, n)
    const want = new Uint32Array(n + 3).fill(0xdeadbeef)
    copy(src, want, n)
    expectMatch(compareArrays(await gpuCopy(src, n, n + 3, WG), want), `copy folded n=${n}`)
  })

  test('createBuffer never makes a zero-sized buffer', async () => {
    const { device } = await gpuCache()
    const b = createBuffer(device, 0)
    expect(b.size).toBe(4)
    b.destroy()
  })
})
