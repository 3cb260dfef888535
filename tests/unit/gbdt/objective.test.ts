import { describe, expect, it } from 'vitest'
import { baseMargin, newtonStepBaseScore, rowGradient, rowLoss, transform } from '../../../src/models/gbdt/objective.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { checkLabels, estimateBaseScore } from '../../../src/eval/labels.ts'
import { rowGradient as kernelGradient } from '../../../src/kernels/gbdt/gradient.ref.ts'
import { OBJECTIVE_LOGISTIC, OBJECTIVE_SQUARED_ERROR } from '../../../src/kernels/gbdt/layout.ts'

const objectives = ['binary:logistic', 'reg:logistic', 'reg:squarederror'] as const

describe('objective gradients', () => {
  it.each(objectives)('%s: g and h match finite differences of the loss', obj => {
    const e = 1e-4
    for (const m of [-3, -0.5, 0, 0.7, 2.5]) {
      for (const [y, w] of [
        [0, 1],
        [1, 2],
        [obj === 'binary:logistic' ? 1 : 0.3, 0.5],
      ]) {
        const [g, h] = rowGradient(obj, m, y, w, 3)
        const loss = (x: number): number => rowLoss(obj, x, y, w, 3)
        expect(g).toBeCloseTo((loss(m + e) - loss(m - e)) / (2 * e), 6)
        const [gp] = rowGradient(obj, m + e, y, w, 3),
          [gm] = rowGradient(obj, m - e, y, w, 3)
        expect(h).toBeCloseTo((gp - gm) / (2 * e), 6)
      }
    }
  })

  it('agrees with the gradient kernel reference (f32)', () => {
    for (const [obj, id] of [
      ['binary:logistic', OBJECTIVE_LOGISTIC],
      ['reg:squarederror', OBJECTIVE_SQUARED_ERROR],
    ] as const) {
      for (const m of [-2, 0, 1.3]) {
        const [g, h] = rowGradient(obj, m, 1, 1.5, 2)
        const [kg, kh] = kernelGradient(m, 1, 1.5, id, 2)
        expect(kg).toBeCloseTo(g, 6)
        expect(kh).toBeCloseTo(h, 6)
      }
    }
  })

  it('transforms and base margins are inverse', () => {
    expect(transform('binary:logistic', baseMargin('binary:logistic', 0.2))).toBeCloseTo(0.2, 12)
    expect(baseMargin('reg:squarederror', 3.5)).toBe(3.5)
    expect(transform('reg:squarederror', -1)).toBe(-1)
  })
})

describe('labels and base_score', () => {
  it('refuses non-binary labels naming the column and value', () => {
    expect(() => checkLabels('binary:logistic', [0, 1, 2], 'clicked')).toThrow(
      'label column clicked: binary:logistic needs labels 0 or 1, got 2 at row 2',
    )
    expect(() => checkLabels('reg:logistic', [0.5, -0.1], 'p')).toThrow(/label column p.*-0.1/)
    expect(() => checkLabels('reg:squarederror', [1, NaN], 'y')).toThrow(/label column y/)
    expect(() => checkLabels('reg:logistic', [0, 0.5, 1], 'p')).not.toThrow()
  })

  it('estimates the weighted label mean', () => {
    expect(estimateBaseScore('binary:logistic', [1, 0, 0, 1], [3, 1, 1, 1])).toBeCloseTo(4 / 6, 12)
    expect(estimateBaseScore('reg:squarederror', [1, 2, 6])).toBeCloseTo(3, 12)
    expect(estimateBaseScore('binary:logistic', [0, 0])).toBeGreaterThan(0)
  })

  it("XGBoost 2.0's Newton step from margin 0 is σ(4(ȳ − ½)) for logistic, the mean for squared error", () => {
    const y = [1, 1, 1, 0]
    expect(newtonStepBaseScore(parseParams({}), y)).toBeCloseTo(1 / (1 + Math.exp(-4 * (0.75 - 0.5))), 12)
    expect(newtonStepBaseScore(parseParams({ objective: 'reg:squarederror' }), [2, 4])).toBeCloseTo(3, 12)
  })
})
