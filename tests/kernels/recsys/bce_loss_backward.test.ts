import { describe, test } from 'vitest'
import { bceLossBackwardCall } from '../../../src/kernels/recsys/bce_loss_backward.ts'
import { bceLossBackward } from '../../../src/kernels/recsys/bce_loss_backward.ref.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { bceCase, expectMatch, runOnGpu } from './mlp.shared.ts'

async function check(n: number, weighted: boolean, denom: number, constants: { WG?: number } = {}): Promise<void> {
  const { logits, labels, weights } = bceCase(n * 3 + (weighted ? 1 : 0), n)
  const want = new Float32Array(n)
  bceLossBackward(logits, labels, weighted ? weights : null, want, n, denom)
  const arrays = { logits, labels, weights, dlogits: new Float32Array(n).fill(Number.NaN) }
  const got = await runOnGpu(arrays, ['dlogits'], bufs =>
    bceLossBackwardCall(weighted ? bufs : { ...bufs, weights: undefined }, n, denom, constants),
  )
  // |dlogits| ≤ w/denom; WGSL exp and division are a few ULP off: scale atol by 1/denom.
  expectMatch(
    compareArrays(got.dlogits, want, 1e-6 / denom, 1e-5),
    `bce_loss_backward n=${n} weighted=${weighted} denom=${denom}`,
  )
}

describe('bce_loss_backward matches its reference', () => {
  test.each([1, 255, 257, 4096])('n = %i, unweighted, denom = n', n => check(n, false, n))
  test.each([1, 1000])('n = %i, weighted, denom = n', n => check(n, true, n))
  test('a partial batch divides by the given denom', () => check(100, true, 1024))
  test('n = 0 dispatches nothing', () => check(0, false, 1))
  test.each([64, 128])('WG = %i', WG => check(333, false, 333, { WG }))
})
