import { describe, expect, it } from 'vitest'
import { auc, evaluate, loglossRow } from '../../../src/eval/metrics.ts'

describe('metrics', () => {
  it('auc: hand-computed with ties at half', () => {
    // Pairs (pos, neg): pos 0.8 beats 0.1, 0.4 and ties 0.8 → (1 + 1 + 0.5); pos 0.4 beats 0.1, ties 0.4 → 1.5.
    expect(auc([0.1, 0.4, 0.4, 0.8, 0.8], [0, 0, 1, 1, 0])).toBeCloseTo(4 / 6, 12)
    expect(auc([0.1, 0.2, 0.3], [0, 1, 1])).toBe(1)
    expect(auc([0.3, 0.2, 0.1], [0, 1, 1])).toBe(0)
    expect(auc([0.5, 0.5], [0, 1])).toBe(0.5)
    expect(auc([0.1, 0.2], [1, 1])).toBeNaN()
  })

  it('auc: weights count as repeated rows', () => {
    expect(auc([0.1, 0.5, 0.9], [1, 0, 1], [2, 1, 1])).toBeCloseTo(auc([0.1, 0.1, 0.5, 0.9], [1, 1, 0, 1]), 12)
  })

  it('logloss, error, rmse', () => {
    expect(evaluate('logloss', [0.9, 0.2], [1, 0])).toBeCloseTo(-(Math.log(0.9) + Math.log(0.8)) / 2, 12)
    expect(loglossRow(0, 1)).toBeCloseTo(-Math.log(1e-16), 6)
    expect(evaluate('error', [0.6, 0.4, 0.5, 0.7], [1, 1, 0, 0])).toBe(0.5)
    expect(evaluate('rmse', [1, 3], [0, 0])).toBeCloseTo(Math.sqrt(5), 12)
    expect(evaluate('rmse', [1, 3], [0, 0], [3, 1])).toBeCloseTo(Math.sqrt(12 / 4), 12)
  })
})
