import { describe, test } from 'vitest'
import { createBuffer, uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import { gradientCall } from '../../../src/kernels/gbdt/gradient.ts'
import { gradient } from '../../../src/kernels/gbdt/gradient.ref.ts'
import { OBJECTIVE_LOGISTIC, OBJECTIVE_SQUARED_ERROR, ROW_UNUSED } from '../../../src/kernels/gbdt/layout.ts'
import { runKernel } from '../../../src/kernels/runner.ts'
import { Rng } from '../../../src/util/rng.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { checked, expectMatch, gpuCache } from './setup.ts'

interface GradCase {
  margins: Float32Array<ArrayBuffer>
  labels: Float32Array<ArrayBuffer>
  weights: Float32Array<ArrayBuffer> | null
  positions: Uint32Array<ArrayBuffer> | null
}

/** Margins in [−20, 20] (sigmoid saturates), binary labels, optional weights and unused rows. */
function gradCase(seed: number, n: number, withWeights: boolean, withPositions: boolean): GradCase {
  const rng = new Rng(seed)
  return {
    margins: rng.floats(n, -20, 20),
    labels: Float32Array.from({ length: n }, () => rng.int(2)),
    weights: withWeights ? rng.floats(n, 0, 3) : null,
    positions: withPositions
      ? Uint32Array.from({ length: n }, () => (rng.int(4) === 0 ? ROW_UNUSED : rng.int(7)))
      : null,
  }
}

async function gpuGradient(c: GradCase, n: number, objective: number, spw: number): Promise<Float32Array> {
  const cache = await gpuCache()
  const { device } = cache
  const bufs = {
    margins: uploadBuffer(device, c.margins),
    labels: uploadBuffer(device, c.labels),
    weights: c.weights ? uploadBuffer(device, c.weights) : undefined,
    positions: c.positions ? uploadBuffer(device, c.positions) : undefined,
    gpair: createBuffer(device, 8 * n),
  }
  try {
    await checked(device, () => runKernel(cache, gradientCall(bufs, n, objective, spw)))
    return await readBuffer(device, bufs.gpair, Float32Array, 2 * n)
  } finally {
    Object.values(bufs).forEach(b => b?.destroy())
  }
}

describe('gradient matches its reference (atol 1e-6, rtol 1e-5)', () => {
  const cases = [0, 1, 255, 257, 1000].flatMap(
    n =>
      [
        [n, OBJECTIVE_LOGISTIC, true, true],
        [n, OBJECTIVE_SQUARED_ERROR, false, false],
      ] as const,
  )
  test.each(cases)('n = %i, objective %i, weights %s, positions %s', async (n, objective, w, p) => {
    const c = gradCase(n + objective, n, w, p)
    const want = new Float32Array(2 * n)
    gradient(c.margins, c.labels, c.weights, c.positions, want, n, objective, 2.5)
    expectMatch(
      compareArrays(await gpuGradient(c, n, objective, 2.5), want, 1e-6, 1e-5),
      `gradient n=${n} obj=${objective}`,
    )
  })

  test('logistic without weights, with unused rows and scale_pos_weight 1', async () => {
    const n = 3001,
      c = gradCase(8, n, false, true)
    const want = new Float32Array(2 * n)
    gradient(c.margins, c.labels, null, c.positions, want, n, OBJECTIVE_LOGISTIC, 1)
    expectMatch(
      compareArrays(await gpuGradient(c, n, OBJECTIVE_LOGISTIC, 1), want, 1e-6, 1e-5),
      'gradient logistic unweighted',
    )
  })
})
