import { describe, expect, test } from 'vitest'
import { adagrad, adagradAccumulator } from '../../../src/kernels/recsys/adagrad.ref.ts'
import { Rng } from '../../../src/util/rng.ts'

describe('adagrad (reference)', () => {
  test('accumulates g² and scales the step by 1/√accum, on touched rows only', () => {
    const R = 4,
      D = 2,
      rng = new Rng(1)
    const w = rng.floats(R * D),
      accum = adagradAccumulator(R, D, 0.1)
    const w0 = w.slice(),
      a0 = accum.slice()
    const dRows = Float32Array.from([0.5, -2, 3, 0]) // rows 3 and 0
    adagrad(w, accum, dRows, Uint32Array.from([3, 0]), { uniq: 2, dim: D, totalRows: R }, { lr: 0.1, eps: 1e-10 })
    const expectRow = (row: number, u: number): void => {
      for (let d = 0; d < D; d++) {
        const g = dRows[u * D + d],
          a = 0.1 + g * g
        expect(accum[row * D + d]).toBeCloseTo(a, 6)
        expect(w[row * D + d]).toBeCloseTo(w0[row * D + d] - (0.1 * g) / Math.sqrt(a), 6)
      }
    }
    expectRow(3, 0)
    expectRow(0, 1)
    for (const i of [2, 3, 4, 5]) {
      expect(w[i]).toBe(w0[i])
      expect(accum[i]).toBe(a0[i])
    }
  })

  test('the first step from a zero accumulator is ≈ lr against the gradient’s sign', () => {
    const w = Float32Array.from([1]),
      accum = adagradAccumulator(1, 1)
    adagrad(
      w,
      accum,
      Float32Array.from([-7]),
      Uint32Array.from([0]),
      { uniq: 1, dim: 1, totalRows: 1 },
      { lr: 0.5, eps: 1e-10 },
    )
    expect(w[0]).toBeCloseTo(1.5, 6)
  })

  test('rows ≥ R are skipped; a negative initial accumulator is rejected', () => {
    const w = Float32Array.from([1])
    adagrad(
      w,
      new Float32Array(1),
      Float32Array.from([1]),
      Uint32Array.from([1]),
      { uniq: 1, dim: 1, totalRows: 1 },
      { lr: 1, eps: 1e-10 },
    )
    expect(w[0]).toBe(1)
    expect(() => adagradAccumulator(1, 1, -1)).toThrow(/initial accumulator value/)
  })
})
