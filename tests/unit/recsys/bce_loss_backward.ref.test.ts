import { describe, expect, test } from 'vitest'
import { bceLossBackward } from '../../../src/kernels/recsys/bce_loss_backward.ref.ts'
import { bceLossForward } from '../../../src/kernels/recsys/bce_loss_forward.ref.ts'
import { Rng } from '../../../src/util/rng.ts'
import { expectGradient } from './mlp-gradcheck.ts'

describe('bceLossBackward reference', () => {
  test.each([
    [1, false],
    [5, true],
    [8, false],
  ])('is the gradient of Σ loss / B w.r.t. logits (B=%i, weights %s)', (n, weighted) => {
    const rng = new Rng(n)
    const logits = rng.floats(n, -4, 4),
      labels = Float32Array.from({ length: n }, () => rng.int(2))
    const weights = weighted ? rng.floats(n, 0.5, 2) : null
    const dlogits = new Float32Array(n)
    bceLossBackward(logits, labels, weights, dlogits, n, n)
    const loss = new Float32Array(n),
      probs = new Float32Array(n)
    const mean = (): number => {
      bceLossForward(logits, labels, weights, loss, probs, n)
      return loss.reduce((s, v) => s + v, 0) / n
    }
    expectGradient(dlogits, logits, 1e-2, mean, 2e-5, 2e-3, 'dlogits')
  })

  test('divides by denom, not by the row count', () => {
    const d = new Float32Array(2)
    bceLossBackward(new Float32Array([0, 0]), new Float32Array([1, 0]), null, d, 2, 4)
    expect([...d]).toEqual([-0.125, 0.125])
  })

  test('is exactly 0 at saturation with the matching label', () => {
    const d = new Float32Array(2)
    bceLossBackward(new Float32Array([200, -200]), new Float32Array([1, 0]), new Float32Array([3, 3]), d, 2, 1)
    expect([...d]).toEqual([0, 0])
  })
})
