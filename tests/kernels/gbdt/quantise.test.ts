import { describe, expect, test } from 'vitest'
import { createBuffer, uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import { encodeQuantise, quantiseCalls, SCALES_BYTES } from '../../../src/kernels/gbdt/quantise.ts'
import { quantise } from '../../../src/kernels/gbdt/quantise.ref.ts'
import { quantiseScale } from '../../../src/kernels/gbdt/fixed-point.ts'
import { Rng } from '../../../src/util/rng.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { checked, expectMatch, gpuCache } from './setup.ts'

/** Runs both passes on `gpair` (n rows) → [qgpair, scales]; `scales` starts dirty on purpose. */
async function gpuQuantise(
  gpair: Float32Array<ArrayBuffer>,
  n: number,
  WG?: number,
  RPI?: number,
): Promise<[Int32Array, Float32Array]> {
  const cache = await gpuCache()
  const { device } = cache
  const bufs = {
    gpair: uploadBuffer(device, gpair),
    qgpair: createBuffer(device, 8 * n),
    scales: uploadBuffer(device, new Float32Array([9, 9, 9, 9])),
  }
  try {
    await checked(device, async () => {
      const enc = device.createCommandEncoder()
      const free = encodeQuantise(cache, enc, bufs, n, { WG, RPI })
      device.queue.submit([enc.finish()])
      await device.queue.onSubmittedWorkDone()
      free()
    })
    return [
      await readBuffer(device, bufs.qgpair, Int32Array, 2 * n),
      await readBuffer(device, bufs.scales, Float32Array, SCALES_BYTES / 4),
    ]
  } finally {
    Object.values(bufs).forEach(b => b.destroy())
  }
}

async function expectParity(
  gpair: Float32Array<ArrayBuffer>,
  n: number,
  what: string,
  WG?: number,
  RPI?: number,
): Promise<void> {
  const wantQ = new Int32Array(2 * n),
    wantS = new Float32Array(4)
  quantise(gpair, n, wantQ, wantS)
  const [q, s] = await gpuQuantise(gpair, n, WG, RPI)
  expectMatch(compareArrays(s, wantS), `${what} scales`)
  expectMatch(compareArrays(q, wantQ), `${what} qgpair`)
}

describe('quantise matches its reference exactly', () => {
  test.each([0, 1, 255, 257, 1000, 65_537])('n = %i', async n => {
    const rng = new Rng(n)
    const gpair = Float32Array.from({ length: 2 * n }, (_, j) => (j & 1 ? rng.uniform(0, 0.25) : rng.uniform(-1, 1)))
    await expectParity(gpair, n, `quantise n=${n}`)
  })

  test.each([64, 128])('WG = %i', async WG => {
    const rng = new Rng(WG)
    await expectParity(rng.floats(2 * 999, -5, 40), 999, `quantise WG=${WG}`, WG)
  })

  // The max pass reads RPI rows per invocation: the maxima sit in the last row, past any full block.
  test.each([1, 3, 64, 1000])('RPI = %i, maxima in the last row', async RPI => {
    const rng = new Rng(RPI),
      n = 1001
    const gpair = Float32Array.from({ length: 2 * n }, (_, j) => (j & 1 ? rng.uniform(0, 0.25) : rng.uniform(-1, 1)))
    gpair.set([-3.5, 0.75], 2 * (n - 1))
    await expectParity(gpair, n, `quantise RPI=${RPI}`, 64, RPI)
    const [, s] = await gpuQuantise(gpair, n, 64, RPI)
    expect([s[0], s[1]]).toEqual([3.5, 0.75])
  })

  test('RPI must be a positive integer', () => {
    expect(() => quantiseCalls({} as never, 10, { RPI: 0 })).toThrow(/RPI/)
  })

  test('exact ties round half to even; zero column gets scale 2^127', async () => {
    // max |g| = 1 → gScale = 2^30, so g = (k + 0.5) / 2^30 lands exactly on a tie.
    const g = [1, ...[0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 7.5].map(v => v / 2 ** 30)]
    const gpair = Float32Array.from(g.flatMap(v => [v, 0]))
    await expectParity(gpair, g.length, 'ties')
    const [q, s] = await gpuQuantise(gpair, g.length)
    expect(Array.from(q.filter((_, j) => j % 2 === 0))).toEqual([2 ** 30, 0, 2, 2, 0, -2, -2, 8])
    expect(s[3]).toBe(quantiseScale(0))
  })

  test('maxima far from 1: |g| up to 1e6, |h| below 1e-20', async () => {
    const rng = new Rng(3)
    const gpair = Float32Array.from({ length: 2 * 500 }, (_, j) =>
      j & 1 ? rng.uniform(0, 1e-20) : rng.uniform(-1e6, 1e6),
    )
    await expectParity(gpair, 500, 'wide range')
  })
})
