import { describe, test } from 'vitest'
import { bceLossForwardCall } from '../../../src/kernels/recsys/bce_loss_forward.ts'
import { bceLossForward } from '../../../src/kernels/recsys/bce_loss_forward.ref.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { bceCase, expectMatch, runOnGpu } from './mlp.shared.ts'

async function check(n: number, weighted: boolean, constants: { WG?: number } = {}): Promise<void> {
  const { logits, labels, weights } = bceCase(n + (weighted ? 1 : 0), n)
  const loss = new Float32Array(n),
    probs = new Float32Array(n)
  bceLossForward(logits, labels, weighted ? weights : null, loss, probs, n)
  const arrays = {
    logits,
    labels,
    weights,
    loss: new Float32Array(n).fill(Number.NaN),
    probs: new Float32Array(n).fill(Number.NaN),
  }
  const got = await runOnGpu(arrays, ['loss', 'probs'], bufs =>
    bceLossForwardCall(weighted ? bufs : { ...bufs, weights: undefined }, n, constants),
  )
  // WGSL exp/log are a few ULP off Math.exp/log; the rest is the same f32 steps.
  expectMatch(compareArrays(got.loss, loss, 1e-6, 1e-5), `bce_loss_forward loss n=${n} weighted=${weighted}`)
  expectMatch(compareArrays(got.probs, probs, 1e-6, 1e-5), `bce_loss_forward probs n=${n} weighted=${weighted}`)
}

describe('bce_loss_forward matches its reference (atol 1e-6, rtol 1e-5)', () => {
  test.each([0, 1, 255, 257, 4096])('n = %i, unweighted', n => check(n, false))
  test.each([1, 1000])('n = %i, weighted', n => check(n, true))
  test('tiny losses (confident and right, log1p series range) keep their relative precision', async () => {
    const n = 512
    const logits = Float32Array.from({ length: n }, (_, i) => (i % 2 ? 1 : -1) * (4 + (i / n) * 14))
    const labels = Float32Array.from({ length: n }, (_, i) => i % 2)
    const loss = new Float32Array(n),
      probs = new Float32Array(n)
    bceLossForward(logits, labels, null, loss, probs, n)
    const arrays = {
      logits,
      labels,
      loss: new Float32Array(n).fill(Number.NaN),
      probs: new Float32Array(n).fill(Number.NaN),
    }
    const got = await runOnGpu(arrays, ['loss'], bufs => bceLossForwardCall(bufs, n))
    // Losses 2e-8 … 2e-2: relative error only (exp is a few ULP off, the series is plain f32 arithmetic).
    expectMatch(compareArrays(got.loss, loss, 0, 1e-5), 'bce_loss_forward tiny losses')
  })

  test.each([64, 128])('WG = %i', WG => check(333, true, { WG }))
})
