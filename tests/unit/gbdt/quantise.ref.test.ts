import { describe, expect, test } from 'vitest'
import { quantise } from '../../../src/kernels/gbdt/quantise.ref.ts'
import { quantiseScale, roundHalfEven } from '../../../src/kernels/gbdt/fixed-point.ts'
import { Rng } from '../../../src/util/rng.ts'

describe('quantise reference', () => {
  test('scale is the power of two putting max |v| in (2^29, 2^30]', () => {
    for (const m of [1, 0.75, 1e-9, 3.5, 2 ** 40, 0.25 + 2 ** -20, Math.fround(0.1)]) {
      const s = quantiseScale(m)
      expect(Number.isInteger(Math.log2(s))).toBe(true)
      expect(m * s).toBeLessThanOrEqual(2 ** 30)
      expect(m * s).toBeGreaterThan(2 ** 29)
    }
    expect(quantiseScale(0)).toBe(2 ** 127)
    expect(quantiseScale(1e-45)).toBe(2 ** 127)
  })

  test('roundHalfEven breaks ties to even, else rounds to nearest', () => {
    expect([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4999, -2.6, 7].map(roundHalfEven).map(v => v + 0)).toEqual([
      0, 2, 2, 0, -2, -2, 2, -3, 7,
    ])
  })

  test('quantised values are within 0.5 of v · scale and bounded by 2^30', () => {
    const rng = new Rng(2)
    const n = 1000
    const gpair = rng.floats(2 * n, -3, 3)
    const q = new Int32Array(2 * n),
      scales = new Float32Array(4)
    quantise(gpair, n, q, scales)
    const maxG = Math.max(...Array.from({ length: n }, (_, i) => Math.abs(gpair[2 * i])))
    expect(scales[0]).toBe(maxG)
    expect(scales[2]).toBe(quantiseScale(maxG))
    for (let i = 0; i < 2 * n; i++) {
      const exact = gpair[i] * scales[2 + (i & 1)]
      expect(Math.abs(q[i] - exact)).toBeLessThanOrEqual(0.5)
      expect(Math.abs(q[i])).toBeLessThanOrEqual(2 ** 30)
    }
  })
})
