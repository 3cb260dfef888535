import { describe, expect, test } from 'vitest'
import { rowwiseAdamCall } from '../../../src/kernels/recsys/rowwise_adam.ts'
import { rowwiseAdam } from '../../../src/kernels/recsys/rowwise_adam.ref.ts'
import { runKernel } from '../../../src/kernels/runner.ts'
import { Rng } from '../../../src/util/rng.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { checked, expectMatch, gpuCache } from '../bench/setup.ts'
import { distinctRows, expectUntouched, upload } from './embedding-optim.fixtures.ts'

const H = { lr: 0.05, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01 }

/** `batches` batches of U distinct rows (overlapping, so rows reach different step counts). */
async function check(U: number, D: number, R: number, batches = 3, WG?: number): Promise<void> {
  const rng = new Rng(U * 13 + D + R)
  const want = {
    weights: rng.floats(R * D),
    m: new Float32Array(R * D),
    v: new Float32Array(R * D),
    rowStep: new Uint32Array(R),
  }
  const cache = await gpuCache()
  const { device } = cache
  const shape = { uniq: U, dim: D, totalRows: R }
  for (let step = 0; step < batches; step++) {
    const uniq = distinctRows(rng, U, R),
      dRows = rng.floats(U * D, -1, 1)
    const before = {
      weights: want.weights.slice(),
      m: want.m.slice(),
      v: want.v.slice(),
      rowStep: want.rowStep.slice(),
    }
    rowwiseAdam(want.weights, want.m, want.v, want.rowStep, dRows, uniq, shape, H)
    const g = upload(device, { ...before, dRows, uniq })
    try {
      await checked(device, () => runKernel(cache, rowwiseAdamCall(g.bufs, shape, H, { WG })))
      const got = {
        weights: await g.read('weights'),
        m: await g.read('m'),
        v: await g.read('v'),
        rowStep: await g.read('rowStep'),
      }
      const what = `rowwise_adam U=${U} D=${D} batch ${step}`
      expectMatch(compareArrays(got.rowStep, want.rowStep), `${what} rowStep`)
      expectMatch(compareArrays(got.weights, want.weights, 1e-6, 1e-5), `${what} weights`)
      expectMatch(compareArrays(got.m, want.m, 1e-7, 1e-6), `${what} m`)
      expectMatch(compareArrays(got.v, want.v, 1e-9, 1e-6), `${what} v`)
      for (const k of ['weights', 'm', 'v'] as const) expectUntouched(got[k], before[k], uniq, D, `${what} ${k}`)
      expectUntouched(got.rowStep, before.rowStep, uniq, 1, `${what} rowStep`)
      want.weights.set(got.weights)
      want.m.set(got.m)
      want.v.set(got.v)
    } finally {
      g.destroy()
    }
  }
  if (U > 0 && batches > 1) expect(new Set(want.rowStep).size, 'rows reached different step counts').toBeGreaterThan(1)
}

describe('rowwise_adam matches its reference; untouched rows stay bit for bit', () => {
  test.each([
    [0, 16],
    [1, 1],
    [5, 16],
    [17, 17],
    [100, 16],
    [257, 1],
  ])('U = %i, D = %i', (U, D) => check(U, D, 300))
  test('one row in every batch reaches step 6, WG = 32', () => check(3, 17, 4, 6, 32))
  test('folded grid: U = 65537 with WG = 1', () => check(65_537, 1, 70_000, 1, 1))
})
