import { describe, expect, test } from 'vitest'
import { gradient } from '../../../src/kernels/gbdt/gradient.ref.ts'
import { OBJECTIVE_LOGISTIC, OBJECTIVE_SQUARED_ERROR, ROW_UNUSED } from '../../../src/kernels/gbdt/layout.ts'

describe('gradient reference', () => {
  test('logistic: g = p − y, h = p(1 − p), scale_pos_weight on positives, weights', () => {
    const m = Float32Array.from([0, 2, -1, 50]),
      y = Float32Array.from([1, 0, 1, 0]),
      w = Float32Array.from([1, 2, 0.5, 1])
    const out = new Float32Array(8)
    gradient(m, y, w, null, out, 4, OBJECTIVE_LOGISTIC, 3)
    const p = (x: number): number => 1 / (1 + Math.exp(-x))
    const want = [
      (0.5 - 1) * 3,
      0.25 * 3,
      p(2) * 2,
      p(2) * (1 - p(2)) * 2,
      (p(-1) - 1) * 1.5,
      p(-1) * (1 - p(-1)) * 1.5,
      1,
      1e-16,
    ]
    want.forEach((v, i) => expect(out[i]).toBeCloseTo(v, 6))
    expect(out[7]).toBeCloseTo(1e-16, 20)
  })

  test('squared error: scale_pos_weight on rows labelled 1 (XGBoost RegLossObj); unused rows get (0, 0)', () => {
    const m = Float32Array.from([1.5, 0, 3]),
      y = Float32Array.from([1, 2, 1])
    const out = new Float32Array(6).fill(9)
    gradient(m, y, null, Uint32Array.from([0, ROW_UNUSED, 0]), out, 3, OBJECTIVE_SQUARED_ERROR, 5)
    expect([...out]).toEqual([2.5, 5, 0, 0, 10, 5])
  })

  test('unknown objective id is refused', () => {
    expect(() => gradient(new Float32Array(1), new Float32Array(1), null, null, new Float32Array(2), 1, 10, 1)).toThrow(
      /objective/,
    )
  })
})
