import { describe, expect, test } from 'vitest'
import { adam, powU32F32 } from '../../../src/kernels/recsys/adam.ref.ts'
import type { AdamHyper } from '../../../src/kernels/recsys/embedding-optim-types.ts'
import { Rng } from '../../../src/util/rng.ts'

/** torch.optim.AdamW.step for one element in float64, written out from the PyTorch docs. */
function adamw64(p: number, g: number, m: number, v: number, h: AdamHyper): [number, number, number] {
  p *= 1 - h.lr * h.weightDecay
  m = h.beta1 * m + (1 - h.beta1) * g
  v = h.beta2 * v + (1 - h.beta2) * g * g
  const mHat = m / (1 - h.beta1 ** h.t),
    vHat = v / (1 - h.beta2 ** h.t)
  return [p - (h.lr * mHat) / (Math.sqrt(vHat) + h.eps), m, v]
}

const H: AdamHyper = { lr: 1e-2, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01, t: 1 }

describe('adam (reference)', () => {
  test('powU32F32 is β^n within a few f32 ulps, and β^0 = 1', () => {
    expect(powU32F32(0.999, 0)).toBe(1)
    expect(powU32F32(0.5, 10)).toBe(2 ** -10)
    for (const n of [1, 2, 3, 7, 100, 1000, 12_345]) {
      const want = Math.fround(0.999) ** n
      expect(Math.abs(powU32F32(0.999, n) - want) / want, `n = ${n}`).toBeLessThan(n * 2 ** -23)
    }
  })

  test('the first step moves each parameter by ≈ lr against the gradient’s sign (bias correction)', () => {
    const p = Float32Array.from([1, 1, -2]),
      g = Float32Array.from([0.5, -3, 1e-3])
    const m = new Float32Array(3),
      v = new Float32Array(3)
    adam(p, g, m, v, { params: 3 }, { ...H, weightDecay: 0 })
    expect(p[0]).toBeCloseTo(0.99, 6)
    expect(p[1]).toBeCloseTo(1.01, 6)
    expect(p[2]).toBeCloseTo(-2.01, 5)
  })

  test('ten steps follow float64 PyTorch AdamW within f32 rounding', () => {
    const rng = new Rng(3),
      n = 50
    const p = rng.floats(n, -2, 2),
      m = new Float32Array(n),
      v = new Float32Array(n)
    const ref = Array.from(p, x => [x, 0, 0])
    for (let t = 1; t <= 10; t++) {
      const g = rng.floats(n)
      adam(p, g, m, v, { params: n }, { ...H, t })
      ref.forEach((s, i) => {
        ref[i] = adamw64(s[0], g[i], s[1], s[2], { ...H, t })
      })
    }
    ref.forEach(([want], i) => expect(Math.abs(p[i] - want), `p[${i}]`).toBeLessThan(2e-6))
  })

  test('weight decay is decoupled: a zero gradient only shrinks p by lr·wd', () => {
    const p = Float32Array.from([2]),
      m = new Float32Array(1),
      v = new Float32Array(1)
    adam(p, new Float32Array(1), m, v, { params: 1 }, { ...H, lr: 0.1, weightDecay: 0.5 })
    expect(p[0]).toBe(Math.fround(2 * Math.fround(0.95)))
  })

  test('only the first P elements change; t < 1 is rejected', () => {
    const p = Float32Array.from([1, 2]),
      g = Float32Array.from([1, 1])
    adam(p, g, new Float32Array(2), new Float32Array(2), { params: 1 }, H)
    expect(p[1]).toBe(2)
    expect(() => adam(p, g, new Float32Array(2), new Float32Array(2), { params: 1 }, { ...H, t: 0 })).toThrow(
      /t must be an integer ≥ 1/,
    )
  })
})
