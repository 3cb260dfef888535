import { describe, expect, test } from 'vitest'
import { bceLossForward, log1p32, sigmoid32 } from '../../../src/kernels/recsys/bce_loss_forward.ref.ts'
import { Rng } from '../../../src/util/rng.ts'

describe('bceLossForward reference', () => {
  test('log1p32 is accurate to f32 precision on [0, 1], including tiny x', () => {
    const xs = [0, 1e-30, 1e-10, 1e-7, 3e-5, 0.001, 0.0156, 0.015625, 0.02, 0.1, 0.5, 1]
    for (const x of xs) {
      const want = Math.log1p(Math.fround(x))
      expect(Math.abs(log1p32(x) - want), `log1p32(${x})`).toBeLessThanOrEqual(2e-7 * Math.abs(want) + 1e-45)
    }
  })

  test('sigmoid32 is finite and monotone at the extremes', () => {
    expect(sigmoid32(0)).toBe(0.5)
    expect(sigmoid32(200)).toBe(1)
    expect(sigmoid32(-200)).toBe(0)
    expect(sigmoid32(-20)).toBeGreaterThan(0)
    expect(Math.abs(sigmoid32(-20) - 1 / (1 + Math.exp(20)))).toBeLessThan(1e-15)
  })

  test('matches the f64 formula −y·log σ(z) − (1−y)·log(1 − σ(z)) with weights', () => {
    const rng = new Rng(1),
      n = 200
    const logits = rng.floats(n, -15, 15),
      labels = Float32Array.from({ length: n }, () => rng.int(2)),
      weights = rng.floats(n, 0, 2)
    const loss = new Float32Array(n),
      probs = new Float32Array(n)
    bceLossForward(logits, labels, weights, loss, probs, n)
    for (let i = 0; i < n; i++) {
      const z = logits[i],
        y = labels[i]
      const want = weights[i] * (Math.max(z, 0) - z * y + Math.log1p(Math.exp(-Math.abs(z))))
      expect(Math.abs(loss[i] - want), `loss[${i}]`).toBeLessThanOrEqual(1e-6 + 1e-6 * want)
      expect(Math.abs(probs[i] - 1 / (1 + Math.exp(-z))), `probs[${i}]`).toBeLessThan(1e-7)
    }
  })

  test('stays finite for huge logits and gives log 2 at z = 0', () => {
    const loss = new Float32Array(4),
      probs = new Float32Array(4)
    bceLossForward(new Float32Array([0, 1e4, -1e4, 1e4]), new Float32Array([1, 0, 1, 1]), null, loss, probs, 4)
    expect(loss[0]).toBeCloseTo(Math.LN2, 6)
    expect([loss[1], loss[2], loss[3]]).toEqual([1e4, 1e4, 0])
    expect([...probs]).toEqual([0.5, 1, 0, 1])
  })
})
