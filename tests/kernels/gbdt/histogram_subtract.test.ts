import { describe, test } from 'vitest'
import { uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import { histogramSubtractCall } from '../../../src/kernels/gbdt/histogram_subtract.ts'
import { histogramSubtract } from '../../../src/kernels/gbdt/histogram_subtract.ref.ts'
import { runKernel } from '../../../src/kernels/runner.ts'
import { Rng } from '../../../src/util/rng.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { checked, expectMatch, gpuCache } from './setup.ts'

/** Random words (every borrow pattern); slots [0, count) parents, then built, then siblings shuffled. */
async function expectParity(seed: number, count: number, b: number, WG?: number): Promise<void> {
  const rng = new Rng(seed)
  const slots = 3 * count + 1
  const hist = Uint32Array.from({ length: slots * b * 4 }, () => (rng.int(3) === 0 ? 0 : rng.nextU32()))
  const order = Array.from({ length: 3 * count }, (_, k) => k + 1).sort(() => rng.next() - 0.5)
  const triples = Uint32Array.from(order)
  const want = hist.slice()
  histogramSubtract(triples, want, count, b)
  const cache = await gpuCache()
  const { device } = cache
  const bufs = { triples: uploadBuffer(device, triples), hist: uploadBuffer(device, hist) }
  try {
    await checked(device, () => runKernel(cache, histogramSubtractCall(bufs, { count, b }, { WG })))
    expectMatch(
      compareArrays(await readBuffer(device, bufs.hist, Uint32Array, hist.length), want),
      `histogram_subtract count=${count} b=${b}`,
    )
  } finally {
    bufs.triples.destroy()
    bufs.hist.destroy()
  }
}

describe('histogram_subtract matches its reference exactly', () => {
  test.each([
    [0, 10],
    [1, 1],
    [1, 256],
    [3, 255],
    [5, 257],
    [16, 1000],
  ])('%i triples × %i bins', async (count, b) => {
    await expectParity(count * 1000 + b, count, b)
  })

  test('WG = 64 over 7 × 3001 bins', async () => {
    await expectParity(77, 7, 3001, 64)
  })
})
