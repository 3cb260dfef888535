import { describe, test } from 'vitest'
import { adamCall } from '../../../src/kernels/recsys/adam.ts'
import { adam } from '../../../src/kernels/recsys/adam.ref.ts'
import type { AdamHyper } from '../../../src/kernels/recsys/embedding-optim-types.ts'
import { runKernel } from '../../../src/kernels/runner.ts'
import { Rng } from '../../../src/util/rng.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { checked, EDGE_SIZES, expectMatch, gpuCache } from '../bench/setup.ts'
import { upload } from './embedding-optim.fixtures.ts'

const H: Omit<AdamHyper, 't'> = { lr: 1e-2, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01 }

/**
 * Steps `steps` (t values) of AdamW on P parameters on both sides, the GPU state carried between
 * steps. Tolerance: the GPU's sqrt and division may be a few ulps off (WGSL allows 2.5 ulp);
 * m and v take only products and sums, so they stay within an ulp or two (a fused multiply-add).
 */
async function check(P: number, steps: number[], h = H, WG?: number): Promise<void> {
  const rng = new Rng(P + steps.length)
  const state = {
    weights: rng.floats(P, -2, 2),
    grads: new Float32Array(P),
    m: new Float32Array(P),
    v: new Float32Array(P),
  }
  const want = { weights: state.weights.slice(), m: new Float32Array(P), v: new Float32Array(P) }
  const cache = await gpuCache()
  const { device } = cache
  const g = upload(device, state)
  try {
    for (const t of steps) {
      const grads = rng.floats(P, -1, 1)
      device.queue.writeBuffer(g.bufs.grads, 0, grads)
      adam(want.weights, grads, want.m, want.v, { params: P }, { ...h, t })
      await checked(device, () => runKernel(cache, adamCall(g.bufs, { params: P }, { ...h, t }, { WG })))
    }
    const what = `adam P=${P} t=${steps.join(',')}`
    expectMatch(compareArrays(await g.read('weights'), want.weights, 1e-6, 1e-5), `${what} weights`)
    expectMatch(compareArrays(await g.read('m'), want.m, 1e-7, 1e-6), `${what} m`)
    expectMatch(compareArrays(await g.read('v'), want.v, 1e-9, 1e-6), `${what} v`)
  } finally {
    g.destroy()
  }
}

describe('adam matches its reference (weights atol 1e-6 rtol 1e-5)', () => {
  test.each(EDGE_SIZES.filter(n => n < 65_537))('P = %i, steps 1..3', P => check(P, [1, 2, 3]))
  test('late steps (bias correction ≈ 1), no weight decay, WG = 64', () =>
    check(1000, [999, 1000, 5000], { ...H, weightDecay: 0 }, 64))
  test('large lr and weight decay, beta1 = 0', () =>
    check(300, [1, 2], { lr: 0.5, beta1: 0, beta2: 0.99, eps: 1e-6, weightDecay: 0.3 }))
  test('folded grid: P = 65537 with WG = 1', () => check(65_537, [1], H, 1))
})
