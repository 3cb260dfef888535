import { describe, expect, test } from 'vitest'
import { createBuffer, uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import { gradientCall } from '../../../src/kernels/gbdt/gradient.ts'
import { gradient } from '../../../src/kernels/gbdt/gradient.ref.ts'
import {
  OBJECTIVE_ABSOLUTE,
  OBJECTIVE_COUNT,
  OBJECTIVE_GAMMA,
  OBJECTIVE_HINGE,
  OBJECTIVE_LOGISTIC,
  OBJECTIVE_POISSON,
  OBJECTIVE_PSEUDO_HUBER,
  OBJECTIVE_QUANTILE,
  OBJECTIVE_SQUARED_ERROR,
  OBJECTIVE_SQUARED_LOG,
  OBJECTIVE_TWEEDIE,
  ROW_UNUSED,
} from '../../../src/kernels/gbdt/layout.ts'
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

async function gpuGradient(c: GradCase, n: number, objective: number, spw: number, param = 0): Promise<Float32Array> {
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
    await checked(device, () => runKernel(cache, gradientCall(bufs, n, objective, spw, param)))
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

/**
 * Per objective id: margins and labels in its domain (exp objectives: |m| ≤ 4; squared log error
 * m > −1 and labels > −1, some at the clamp; gamma labels > 0; 0/1 labels where the objective is
 * binary; exact ties m = y for the sign objectives) and its parameter.
 */
function objectiveCase(id: number, seed: number, n: number, withWeights: boolean, withPositions: boolean) {
  const rng = new Rng(seed)
  const c = gradCase(seed, n, withWeights, withPositions)
  const binary = id === OBJECTIVE_LOGISTIC || id === OBJECTIVE_HINGE
  for (let i = 0; i < n; i++) {
    const y = binary
      ? rng.int(2)
      : id === OBJECTIVE_GAMMA
        ? rng.uniform(0.05, 5)
        : id === OBJECTIVE_SQUARED_LOG
          ? rng.uniform(-0.9, 5)
          : id === OBJECTIVE_POISSON || id === OBJECTIVE_TWEEDIE
            ? rng.int(6)
            : rng.uniform(-5, 5)
    c.labels[i] = y
    c.margins[i] =
      id === OBJECTIVE_SQUARED_LOG
        ? rng.uniform(-1.5, 4)
        : [OBJECTIVE_POISSON, OBJECTIVE_GAMMA, OBJECTIVE_TWEEDIE].includes(id)
          ? rng.uniform(-4, 4)
          : rng.int(8) === 0 && !binary
            ? y // m = y: sign(0) = 0, the quantile's ≥ branch
            : rng.uniform(-6, 6)
  }
  const param =
    {
      [OBJECTIVE_PSEUDO_HUBER]: 1.7,
      [OBJECTIVE_POISSON]: Math.fround(0.7),
      [OBJECTIVE_TWEEDIE]: 1.3,
      [OBJECTIVE_QUANTILE]: 0.3,
    }[id] ?? 0
  return { c, param }
}

describe('gradient of every objective matches its reference (atol 1e-6, rtol 2e-5)', () => {
  const ids = Array.from({ length: OBJECTIVE_COUNT }, (_, id) => id)
  const cases = ids.flatMap(
    id =>
      [
        [id, 1, true, false],
        [id, 256, false, true],
        [id, 257, true, true],
      ] as const,
  )
  test.each(cases)('objective %i, n = %i, weights %s, positions %s', async (id, n, w, p) => {
    const { c, param } = objectiveCase(id, 100 * id + n, n, w, p)
    const want = new Float32Array(2 * n)
    gradient(c.margins, c.labels, c.weights, c.positions, want, n, id, 2.5, param)
    expectMatch(compareArrays(await gpuGradient(c, n, id, 2.5, param), want, 1e-6, 2e-5), `gradient obj=${id} n=${n}`)
  })

  test('an unknown objective id is refused before dispatch', () => {
    const b = {} as GPUBuffer
    expect(() => gradientCall({ margins: b, labels: b, gpair: b }, 1, OBJECTIVE_COUNT)).toThrow(/objective id/)
    expect(OBJECTIVE_ABSOLUTE).toBeLessThan(OBJECTIVE_COUNT)
  })
})
