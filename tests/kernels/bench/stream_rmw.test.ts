import { describe, expect, test } from 'vitest'
import { uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import { runKernel } from '../../../src/kernels/runner.ts'
import { streamRmwCall } from '../../../bench/kernels/stream_rmw.ts'
import { streamRmw } from '../../../bench/kernels/stream_rmw.ref.ts'
import { Rng } from '../../../src/util/rng.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { checked, EDGE_SIZES, expectMatch, gpuCache } from './setup.ts'

async function gpuStreamRmw(
  a: Float32Array<ArrayBuffer>,
  b: Float32Array<ArrayBuffer>,
  s: number,
  WG?: number,
): Promise<Float32Array> {
  const cache = await gpuCache()
  const { device } = cache
  const ga = uploadBuffer(device, a),
    gb = uploadBuffer(device, b)
  try {
    await checked(device, () => runKernel(cache, streamRmwCall({ a: ga, b: gb }, { n: a.length, s }, { WG })))
    return await readBuffer(device, ga, Float32Array, a.length)
  } finally {
    ga.destroy()
    gb.destroy()
  }
}

describe('stream_rmw matches its reference', () => {
  test.each(EDGE_SIZES)('n = %i', async n => {
    const rng = new Rng(1000 + n)
    const a = rng.floats(n),
      b = rng.floats(n),
      s = rng.uniform(-2, 2)
    const got = await gpuStreamRmw(a, b, s)
    const want = a.slice()
    streamRmw(want, b, n, s)
    expect(got.length).toBe(n)
    // atol/rtol allow for FMA contraction of a·s + b on the GPU (one rounding instead of two).
    expectMatch(compareArrays(got, want, 1e-6, 1e-6), `stream_rmw n=${n}`)
  })

  test.each([64, 128, 256])('workgroup size %i', async WG => {
    const rng = new Rng(WG)
    const n = 3 * WG + 7
    const a = rng.floats(n),
      b = rng.floats(n)
    const want = a.slice()
    streamRmw(want, b, n, 0.5)
    expectMatch(compareArrays(await gpuStreamRmw(a, b, 0.5, WG), want, 1e-6, 1e-6), `stream_rmw WG=${WG}`)
  })

  test('the reference changes its input (the test can fail)', () => {
    const a = new Float32Array([1, 2]),
      b = new Float32Array([10, 20])
    streamRmw(a, b, 2, 3)
    expect([...a]).toEqual([13, 26])
  })
})
