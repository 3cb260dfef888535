import { describe, test } from 'vitest'
import { adagradCall } from '../../../src/kernels/recsys/adagrad.ts'
import { adagrad, adagradAccumulator } from '../../../src/kernels/recsys/adagrad.ref.ts'
import { runKernel } from '../../../src/kernels/runner.ts'
import { Rng } from '../../../src/util/rng.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { checked, expectMatch, gpuCache } from '../bench/setup.ts'
import { distinctRows, expectUntouched, upload } from './embedding-optim.fixtures.ts'

const H = { lr: 0.1, eps: 1e-10 }

/** Three batches of `U` distinct touched rows (incl. R − 1) in an [R × D] table. */
async function check(U: number, D: number, R: number, initial = 0.1, WG?: number): Promise<void> {
  const rng = new Rng(U * 31 + D + R)
  const weights = rng.floats(R * D),
    accum = adagradAccumulator(R, D, initial)
  const want = { weights: weights.slice(), accum: accum.slice() }
  const cache = await gpuCache()
  const { device } = cache
  const shape = { uniq: U, dim: D, totalRows: R }
  for (let step = 0; step < 3; step++) {
    const uniq = distinctRows(rng, U, R),
      dRows = rng.floats(U * D, -2, 2)
    const before = { weights: want.weights.slice(), accum: want.accum.slice() }
    adagrad(want.weights, want.accum, dRows, uniq, shape, H)
    const g = upload(device, { weights: before.weights, accum: before.accum, dRows, uniq })
    try {
      await checked(device, () => runKernel(cache, adagradCall(g.bufs, shape, H, { WG })))
      const [w, a] = [await g.read('weights'), await g.read('accum')]
      const what = `adagrad U=${U} D=${D} step ${step}`
      expectMatch(compareArrays(w, want.weights, 1e-6, 1e-5), `${what} weights`)
      expectMatch(compareArrays(a, want.accum, 0, 1e-6), `${what} accum`)
      expectUntouched(w, before.weights, uniq, D, `${what} weights`)
      expectUntouched(a, before.accum, uniq, D, `${what} accum`)
      // Continue from the GPU's state so errors could not hide behind a fresh upload.
      want.weights.set(w)
      want.accum.set(a)
    } finally {
      g.destroy()
    }
  }
}

describe('adagrad matches its reference; untouched rows stay bit for bit', () => {
  test.each([
    [0, 16],
    [1, 1],
    [5, 16],
    [17, 17],
    [100, 16],
    [257, 1],
  ])('U = %i, D = %i', (U, D) => check(U, D, 300))
  test('initial accumulator 0, WG = 64', () => check(50, 17, 60, 0, 64))
  test('folded grid: U·D = 72000 with WG = 1', () => check(4500, 16, 5000, 0.1, 1))
})
