import { describe, expect, it } from 'vitest'
import {
  baseMargin,
  isMulticlass,
  kernelObjective,
  newtonStepBaseScore,
  OBJECTIVE_NAMES,
  objectiveJson,
  objectiveParamsFromJson,
  rowGradient,
  rowLoss,
  transform,
  type Objective,
} from '../../../src/models/gbdt/objective.ts'
import { defaultMetric, parseParams } from '../../../src/models/gbdt/params.ts'
import { checkLabels, estimateBaseScore as labelMean } from '../../../src/eval/labels.ts'
import { rowGradient as kernelGradient } from '../../../src/kernels/gbdt/gradient.ref.ts'
import { labelQuantile, refreshLeaves, weightedQuantile, xgbQuantile } from '../../../src/models/gbdt/leaf-refresh.ts'
import { cFloat } from '../../../src/util/float32.ts'
import { train } from '../../../src/models/gbdt/driver.ts'
import { createCpuBackend } from '../../../src/models/gbdt/cpu-backend.ts'
import { predictMargins } from '../../../src/models/gbdt/predict.ts'
import { fromXGBoostJson, toXGBoostJson } from '../../../src/models/gbdt/xgboost-json.ts'
import { ROW_UNUSED } from '../../../src/kernels/gbdt/layout.ts'
import { Rng } from '../../../src/util/rng.ts'
import type { Tree } from '../../../src/models/gbdt/types.ts'

/**
 * The objectives with one margin per row, whose entries the per-row checks below cover
 * (multiclass: tests/unit/gbdt/multiclass-train.test.ts; ranking: its own tests).
 */
const ROW_OBJECTIVES = OBJECTIVE_NAMES.filter(o => !isMulticlass(o) && !o.startsWith('rank:'))

/** Parameters of `objective` with every objective parameter away from its default. */
function paramsOf(objective: Objective, extra: Record<string, unknown> = {}) {
  return parseParams({
    objective,
    scale_pos_weight: 3,
    huber_slope: 1.7,
    tweedie_variance_power: 1.3,
    quantile_alpha: objective === 'reg:quantileerror' ? 0.3 : undefined,
    ...extra,
  })
}

/** A label the objective accepts, per case index. */
function labelFor(objective: Objective, k: number): number {
  if (objective.startsWith('binary:') || objective === 'reg:logistic')
    return [0, 1, objective === 'binary:logitraw' || objective === 'reg:logistic' ? 0.3 : 1][k]
  if (objective === 'reg:gamma') return [0.4, 1, 2.5][k]
  if (objective === 'count:poisson' || objective === 'reg:tweedie') return [0, 1, 3][k]
  return [-0.5, 1, 2.2][k]
}

/** The objectives whose h is the second derivative of rowLoss (others: their stated surrogate). */
const CURVED = new Set<string>([
  'binary:logistic',
  'reg:logistic',
  'binary:logitraw',
  'reg:squarederror',
  'reg:squaredlogerror',
  'reg:pseudohubererror',
  'reg:gamma',
  'reg:tweedie',
])

describe('objective gradients', () => {
  it('covers XGBoost 1.7.4’s single-output objectives and reg:quantileerror', () => {
    expect(OBJECTIVE_NAMES).toContain('multi:softprob')
    expect(OBJECTIVE_NAMES).toContain('multi:softmax')
    expect([...ROW_OBJECTIVES].sort()).toEqual(
      [
        'binary:hinge',
        'binary:logistic',
        'binary:logitraw',
        'count:poisson',
        'reg:absoluteerror',
        'reg:gamma',
        'reg:logistic',
        'reg:pseudohubererror',
        'reg:quantileerror',
        'reg:squaredlogerror',
        'reg:squarederror',
        'reg:tweedie',
      ].sort(),
    )
  })

  it.each(ROW_OBJECTIVES)('%s: g is the derivative of the loss; h of g where the loss is smooth', obj => {
    const p = paramsOf(obj, obj === 'count:poisson' ? { max_delta_step: 0 } : {})
    const e = 1e-5
    // reg:squaredlogerror's loss lives on m > −1.
    for (const m of obj === 'reg:squaredlogerror' ? [-0.6, -0.2, 0.25, 0.7, 1.9] : [-1.3, -0.4, 0.25, 0.7, 1.9]) {
      for (let k = 0; k < 3; k++) {
        const y = labelFor(obj, k),
          w = [1, 2, 0.5][k]
        const [g, h] = rowGradient(p, m, y, w)
        const fd = (rowLoss(p, m + e, y, w) - rowLoss(p, m - e, y, w)) / (2 * e)
        expect(g).toBeCloseTo(fd, 5)
        // Squared log error floors h at 1e-6 where the loss is concave (XGBoost).
        if (obj === 'reg:squaredlogerror' && h < 2e-6 * w) expect(h).toBeCloseTo(1e-6 * w, 12)
        else if (CURVED.has(obj)) {
          const [gp] = rowGradient(p, m + e, y, w),
            [gm] = rowGradient(p, m - e, y, w)
          expect(h).toBeCloseTo((gp - gm) / (2 * e), 4)
        } else if (obj === 'count:poisson') expect(h).toBeCloseTo(Math.exp(m) * w, 10)
        else if (obj === 'binary:hinge') expect(h).toBe(m * (2 * y - 1) < 1 ? w : 2 ** -126)
        else expect(h).toBe(w) // absolute / quantile: the weight
      }
    }
  })

  it('scale_pos_weight scales rows labelled 1 under XGBoost’s RegLossObj objectives only', () => {
    for (const obj of ROW_OBJECTIVES) {
      const p = paramsOf(obj)
      const y = obj === 'reg:gamma' ? 1 : 1
      const [g3] = rowGradient(p, 0.3, y, 1),
        [g1] = rowGradient({ ...p, scale_pos_weight: 1 }, 0.3, y, 1)
      const scaled = ['binary:logistic', 'reg:logistic', 'binary:logitraw', 'reg:squarederror', 'reg:squaredlogerror']
      expect(g3, obj).toBeCloseTo(scaled.includes(obj) ? 3 * g1 : g1, 12)
    }
  })

  it('count:poisson’s hessian carries e^max_delta_step (0.7 by default, XGBoost)', () => {
    const p = parseParams({ objective: 'count:poisson' })
    expect(p.max_delta_step).toBe(Math.fround(0.7))
    const [, h] = rowGradient(p, 0.2, 2, 1.5)
    expect(h).toBeCloseTo(Math.exp(0.2 + Math.fround(0.7)) * 1.5, 12)
    expect(parseParams({ objective: 'count:poisson', max_delta_step: 0 }).max_delta_step).toBe(0)
    expect(parseParams({ objective: 'reg:gamma' }).max_delta_step).toBe(0)
  })

  it.each(ROW_OBJECTIVES)('%s: the f32 kernel reference agrees with the formulas', obj => {
    const p = paramsOf(obj)
    const { id, param } = kernelObjective(p)
    // Above −1: squared log error clamps m there to −1 + 1e-6, whose f32 and f64 differ by 5 %.
    for (const m of [-0.9, -0.3, 0, 0.45, 1.3]) {
      for (let k = 0; k < 3; k++) {
        const y = labelFor(obj, k)
        const [g, h] = rowGradient(p, m, y, 1.5)
        const [kg, kh] = kernelGradient(Math.fround(m), Math.fround(y), 1.5, id, p.scale_pos_weight, param)
        expect(Math.abs(kg - g)).toBeLessThanOrEqual(2e-6 * Math.max(1, Math.abs(g)))
        if (h > 1e-30) expect(Math.abs(kh - h) / h).toBeLessThan(2e-6)
        else expect(kh).toBe(Math.fround(h))
      }
    }
  })
})

describe('transforms, base margins, metrics and model config', () => {
  it('transform inverts the base margin of every link; hinge predicts 0/1, logitraw the margin', () => {
    const base: Partial<Record<Objective, number>> = {
      'binary:logistic': 0.2,
      'reg:logistic': 0.7,
      'binary:logitraw': -0.4,
      'binary:hinge': 0.3,
      'reg:squarederror': 3.5,
      'reg:squaredlogerror': 1.5,
      'reg:pseudohubererror': -2,
      'reg:absoluteerror': 4,
      'reg:quantileerror': 4,
      'count:poisson': 2.5,
      'reg:gamma': 0.3,
      'reg:tweedie': 7,
    }
    for (const obj of ROW_OBJECTIVES) {
      if (obj === 'binary:hinge') continue
      // The logistic transform is XGBoost's float32 sigmoid: exact to float32 there, to f64 elsewhere.
      const digits = obj === 'binary:logistic' || obj === 'reg:logistic' ? 7 : 12
      expect(transform(obj, baseMargin(obj, base[obj]!)), obj).toBeCloseTo(base[obj]!, digits)
    }
    expect(baseMargin('count:poisson', 2.5)).toBeCloseTo(Math.log(2.5), 14)
    expect(baseMargin('binary:logitraw', -0.4)).toBe(-0.4)
    expect([-1, 0, 1e-9, 3].map(m => transform('binary:hinge', m))).toEqual([0, 0, 1, 1])
    expect(transform('reg:tweedie', 1)).toBeCloseTo(Math.E, 14)
    // XGBoost's float32 sigmoid reaches 1 exactly at margin 17 (1 + e^−17 rounds to 1 in float32);
    // a float64 sigmoid rounded to float32 would still be one ulp below 1 there.
    expect(transform('binary:logistic', 17)).toBe(1)
    expect(Math.fround(1 / (1 + Math.exp(-17)))).toBeLessThan(1)
  })

  it('default eval metric per objective (XGBoost DefaultEvalMetric)', () => {
    const want: Partial<Record<Objective, string>> = {
      'multi:softprob': 'mlogloss',
      'multi:softmax': 'mlogloss',
      'binary:logistic': 'logloss',
      'reg:logistic': 'rmse',
      'binary:logitraw': 'logloss',
      'binary:hinge': 'error',
      'reg:squarederror': 'rmse',
      'reg:squaredlogerror': 'rmsle',
      'reg:pseudohubererror': 'mphe',
      'reg:absoluteerror': 'mae',
      'reg:quantileerror': 'quantile',
      'count:poisson': 'poisson-nloglik',
      'reg:gamma': 'gamma-nloglik',
      'reg:tweedie': 'tweedie-nloglik@1.5',
    }
    for (const obj of [...ROW_OBJECTIVES, 'multi:softprob', 'multi:softmax'] as const) {
      const p = parseParams({ objective: obj, quantile_alpha: obj === 'reg:quantileerror' ? 0.5 : undefined })
      expect(p.eval_metric, obj).toEqual([want[obj]])
    }
    expect(defaultMetric(parseParams({ objective: 'reg:tweedie', tweedie_variance_power: 1.3 }))).toBe(
      'tweedie-nloglik@1.3',
    )
  })

  it('writes the objective config as XGBoost 1.7.4 saves it and reads it back', () => {
    expect(objectiveJson(parseParams({ objective: 'count:poisson' }))).toEqual({
      name: 'count:poisson',
      poisson_regression_param: { max_delta_step: '0.699999988' },
    })
    expect(objectiveJson(parseParams({ objective: 'reg:tweedie', tweedie_variance_power: 1.3 }))).toEqual({
      name: 'reg:tweedie',
      tweedie_regression_param: { tweedie_variance_power: '1.29999995' },
    })
    expect(objectiveJson(parseParams({ objective: 'reg:pseudohubererror' }))).toEqual({
      name: 'reg:pseudohubererror',
      pseudo_huber_param: { huber_slope: '1' },
    })
    for (const obj of ['reg:gamma', 'reg:absoluteerror', 'binary:hinge'] as const)
      expect(objectiveJson(parseParams({ objective: obj }))).toEqual({ name: obj })
    expect(objectiveJson(parseParams({ objective: 'binary:logitraw' }))).toEqual({
      name: 'binary:logitraw',
      reg_loss_param: { scale_pos_weight: '1' },
    })
    for (const obj of ROW_OBJECTIVES) {
      const p = paramsOf(obj)
      const back = objectiveParamsFromJson(objectiveJson(p))
      expect(back.objective).toBe(obj)
      for (const [k, v] of Object.entries(back))
        if (k !== 'objective') expect(v, `${obj} ${k}`).toBe(Math.fround((p as never)[k]))
    }
    expect(
      objectiveParamsFromJson({ name: 'reg:quantileerror', quantile_loss_param: { quantile_alpha: '[5E-1]' } }),
    ).toEqual({
      objective: 'reg:quantileerror',
      quantile_alpha: 0.5,
    })
    expect(() =>
      objectiveParamsFromJson({ name: 'reg:quantileerror', quantile_loss_param: { quantile_alpha: '[0.1,0.9]' } }),
    ).toThrow(/quantile_alpha/)
    expect(objectiveJson(parseParams({ objective: 'multi:softmax', num_class: 26 }))).toEqual({
      name: 'multi:softmax',
      softmax_multiclass_param: { num_class: '26' },
    })
    expect(objectiveParamsFromJson({ name: 'multi:softprob', softmax_multiclass_param: { num_class: '7' } })).toEqual({
      objective: 'multi:softprob',
      num_class: 7,
    })
    expect(() => objectiveParamsFromJson({ name: 'survival:cox' })).toThrow(/objective survival:cox is not supported/)
  })

  it('cFloat prints an f32 as C++ with 9 significant digits', () => {
    expect([0.7, 1.5, 1, 1.3, 0.1, 1e-7, 1234567890, 0.0001].map(v => cFloat(v))).toEqual([
      '0.699999988',
      '1.5',
      '1',
      '1.29999995',
      '0.100000001',
      '1.00000001e-07',
      '1.23456794e+09',
      '9.99999975e-05',
    ])
  })
})

describe('labels and parameters', () => {
  it('refuses labels naming the column, the objective and what it needs', () => {
    expect(() => checkLabels('binary:logistic', [0, 1, 2], 'clicked')).toThrow(
      'label column clicked: binary:logistic needs labels 0 or 1, got 2 at row 2',
    )
    expect(() => checkLabels('reg:logistic', [0.5, -0.1], 'p')).toThrow(/label column p.*-0.1/)
    expect(() => checkLabels('reg:squarederror', [1, NaN], 'y')).toThrow(/label column y/)
    expect(() => checkLabels('reg:logistic', [0, 0.5, 1], 'p')).not.toThrow()
    const bad: Array<[Objective, number, RegExp]> = [
      ['reg:squaredlogerror', -1, /reg:squaredlogerror needs labels > −1, got -1 at row 1/],
      ['count:poisson', -0.5, /count:poisson needs labels ≥ 0/],
      ['reg:tweedie', -1, /reg:tweedie needs labels ≥ 0/],
      ['reg:gamma', 0, /reg:gamma needs labels > 0, got 0/],
      ['binary:hinge', 0.5, /binary:hinge needs labels 0 or 1/],
      ['binary:logitraw', 1.5, /binary:logitraw needs labels in \[0, 1\]/],
      ['reg:absoluteerror', Infinity, /reg:absoluteerror needs finite labels/],
      ['reg:pseudohubererror', NaN, /reg:pseudohubererror needs finite labels/],
    ]
    for (const [obj, y, msg] of bad) {
      expect(() => checkLabels(obj, [1, y], 'amount')).toThrow(/^label column amount: /)
      expect(() => checkLabels(obj, [1, y], 'amount')).toThrow(msg)
    }
    expect(() => checkLabels('reg:gamma', [0.1, 3], 'amount')).not.toThrow()
    expect(() => checkLabels('count:poisson', [0, 3], 'n')).not.toThrow()
  })

  it('refuses bad objective parameters naming them', () => {
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [
        { objective: 'reg:tweedie', tweedie_variance_power: 2 },
        /^tweedie_variance_power: must be a number in \(1, 2\)/,
      ],
      [{ objective: 'reg:tweedie', tweedie_variance_power: 1 }, /^tweedie_variance_power:/],
      [{ objective: 'reg:pseudohubererror', huber_slope: 0 }, /^huber_slope: must be a number in \(0, Infinity\)/],
      [{ objective: 'reg:quantileerror' }, /^quantile_alpha: reg:quantileerror needs quantile_alpha/],
      [{ objective: 'reg:quantileerror', quantile_alpha: 1 }, /^quantile_alpha: must be a number in \(0, 1\)/],
      [{ objective: 'reg:quantileerror', quantile_alpha: [0.1, 0.9] }, /^quantile_alpha: one quantile only/],
      [{ objective: 'reg:quantileerror', quantile_alpha: '[0.1, 0.9]' }, /^quantile_alpha: one quantile only/],
      [{ objective: 'count:poisson', base_score: 0 }, /^base_score: must be > 0 for count:poisson/],
      [{ objective: 'reg:gamma', base_score: -1 }, /^base_score: must be > 0 for reg:gamma/],
      [{ objective: 'survival:cox' }, /^objective: must be one of .*multi:softmax/],
    ]
    for (const [raw, msg] of bad) expect(() => parseParams(raw), JSON.stringify(raw)).toThrow(msg)
    expect(parseParams({ objective: 'reg:quantileerror', quantile_alpha: '[0.25]' }).quantile_alpha).toBe(0.25)
    expect(parseParams({ objective: 'binary:logitraw', base_score: -2 }).base_score).toBe(-2)
  })

  it('estimates base_score: the weighted label mean, the weighted quantile for the quantile objectives', () => {
    expect(labelMean('binary:logistic', [1, 0, 0, 1], [3, 1, 1, 1])).toBeCloseTo(4 / 6, 12)
    expect(labelMean('reg:squarederror', [1, 2, 6])).toBeCloseTo(3, 12)
    expect(labelMean('binary:logistic', [0, 0])).toBeGreaterThan(0)
    expect(labelMean('count:poisson', [1, 2, 6])).toBeCloseTo(3, 12)
    expect(labelMean('count:poisson', [0, 0])).toBeGreaterThan(0) // log(0) would be an infinite margin
    expect(labelQuantile(0.5, [1, 2, 60])).toBe(2)
    expect(labelQuantile(0.5, [1, 2, 60], [1, 1, 5])).toBe(60)
    expect(labelQuantile(0.25, [4, 1, 3, 2])).toBeCloseTo(1.25, 6)
  })

  it("XGBoost 2.0's Newton step from margin 0 is σ(4(ȳ − ½)) for logistic, the mean for squared error", () => {
    const y = [1, 1, 1, 0]
    expect(newtonStepBaseScore(parseParams({}), y)).toBe(Math.fround(1 / (1 + Math.exp(-4 * (0.75 - 0.5)))))
    expect(newtonStepBaseScore(parseParams({ objective: 'reg:squarederror' }), [2, 4])).toBeCloseTo(3, 12)
  })
})

/** A stump: node 0 splits into leaves 1 and 2 (values 9, to be replaced). */
function stump(): Tree {
  const k = 3
  return {
    left: Int32Array.from([1, -1, -1]),
    right: Int32Array.from([2, -1, -1]),
    parent: Int32Array.from([-1, 0, 0]),
    splitIndex: new Int32Array(k),
    splitCondition: Float32Array.from([0.5, 9, 9]),
    splitBin: Int32Array.from([0, -1, -1]),
    defaultLeft: new Uint8Array(k),
    baseWeight: Float32Array.from([0, 9, 9]),
    lossChange: new Float32Array(k),
    sumHessian: new Float32Array(k),
    splitType: new Uint8Array(k),
    catBegin: new Uint32Array(k),
    catSize: new Uint32Array(k),
    categories: new Int32Array(0),
  }
}

describe('leaf refresh (XGBoost UpdateTreeLeaf)', () => {
  it('XGBoost Quantile interpolates (NIST), WeightedQuantile steps', () => {
    const v = Float32Array.from([10, 1, 3])
    expect(xgbQuantile(0.5, v)).toBe(3)
    expect(xgbQuantile(0.5, Float32Array.from([4, 2]))).toBe(3)
    expect(xgbQuantile(0.2, v)).toBe(1) // α ≤ 1/(n+1): the smallest
    expect(xgbQuantile(0.8, v)).toBe(10) // α ≥ n/(n+1): the largest
    expect(xgbQuantile(0.6, v)).toBeCloseTo(3 + 0.4 * 7, 5) // x = 2.4: v1 + 0.4 (v2 − v1)
    expect(xgbQuantile(0.5, Float32Array.from([7]))).toBe(7)
    expect(xgbQuantile(0.5, new Float32Array(0))).toBeNaN()
    expect(weightedQuantile(0.5, Float32Array.from([1, 2, 3]), Float32Array.from([1, 1, 5]))).toBe(3)
    expect(weightedQuantile(0.5, Float32Array.from([3, 1, 2]), Float32Array.from([1, 1, 1]))).toBe(2)
  })

  it('sets each leaf to eta × the median residual of its used rows, on a hand-checked stump', () => {
    const t = stump()
    // Rows 0–2 in leaf 1 (residuals 1, 3, 10), rows 3–4 in leaf 2 (2, 4), row 5 unused, row 6 not sampled.
    const positions = Uint32Array.from([1, 1, 1, 2, 2, ROW_UNUSED, 2])
    const margins = Float32Array.from([0, 1, -5, 1, 0, 0, 0])
    const labels = Float32Array.from([1, 4, 5, 3, 4, 100, 100])
    refreshLeaves(t, { positions, margins, labels, sampled: i => i !== 6 }, 0.5, 0.5)
    expect([...t.splitCondition]).toEqual([0.5, 1.5, 1.5])
    expect([...t.baseWeight]).toEqual([0, 9, 9]) // XGBoost's SetLeaf leaves base_weights alone
    // Weighted: leaf 1's residuals 1, 3, 10 with weights 1, 1, 5 → 10; a zero-weight row takes no part.
    const w = stump()
    const weights = Float32Array.from([1, 1, 5, 1, 0, 1, 1])
    refreshLeaves(w, { positions, margins, labels, weights, sampled: () => true }, 0.5, 1)
    expect([...w.splitCondition]).toEqual([0.5, 10, 2])
  })

  it('is refused across ranks (each rank holds only its own residuals), naming the objective', async () => {
    const data = { columns: [Float32Array.from([1, 2, 3, 4])], labels: Float32Array.from([1, 2, 3, 4]) }
    const shareMetrics = async (m: Record<string, number>) => m
    for (const objective of ['reg:absoluteerror', 'reg:quantileerror'])
      await expect(
        train(
          data,
          parseParams({ objective, quantile_alpha: objective === 'reg:quantileerror' ? 0.5 : undefined }),
          undefined,
          {
            shareMetrics,
          },
        ),
      ).rejects.toThrow(
        `objective: ${objective} refreshes leaf values from residual quantiles, not supported across ranks`,
      )
    await expect(
      train(data, parseParams({ objective: 'reg:tweedie', num_round: 1 }), undefined, { shareMetrics }),
    ).resolves.toBeDefined()
  })

  it('a leaf no row reaches keeps its value', () => {
    const t = stump()
    refreshLeaves(
      t,
      {
        positions: Uint32Array.from([1]),
        margins: new Float32Array(1),
        labels: Float32Array.from([2]),
        sampled: () => true,
      },
      0.5,
      1,
    )
    expect([...t.splitCondition]).toEqual([0.5, 2, 9])
  })

  it('training reg:absoluteerror: every leaf holds eta × the median of its rows’ residuals', async () => {
    const rng = new Rng(5),
      n = 200
    const x = rng.floats(n, -2, 2),
      labels = Float32Array.from(x, v => 3 * v + (rng.next() < 0.1 ? 40 : 0) + rng.normal())
    const p = parseParams({ objective: 'reg:absoluteerror', eta: 0.5, max_depth: 2, num_round: 2, base_score: 0 })
    let trained: Float32Array | undefined
    const b = await train({ columns: [x], labels }, p, setup => {
      const inner = createCpuBackend(setup)
      const dispose = inner.dispose.bind(inner)
      inner.dispose = () => {
        trained = (inner.trainMargins() as Float32Array).slice()
        dispose()
      }
      return inner
    })
    expect(b.params.eval_metric).toEqual(['mae'])
    // The backend's margins took the refreshed leaves (what round 2's gradients start from).
    expect(trained).toEqual(predictMargins(b, [x]))
    // Round 1 starts at margin 0: each leaf = 0.5 × the median label of its rows (XGBoost Quantile).
    const first = { ...b, trees: b.trees.slice(0, 1) }
    const m1 = predictMargins(first, [x])
    const groups = new Map<number, number[]>()
    m1.forEach((m, i) => groups.set(m, [...(groups.get(m) ?? []), labels[i]]))
    expect(groups.size).toBeGreaterThan(1)
    for (const [leaf, ys] of groups) expect(leaf).toBe(Math.fround(xgbQuantile(0.5, Float32Array.from(ys)) * 0.5))
    // The model file says reg:absoluteerror and reads back with the same margins.
    const back = fromXGBoostJson(JSON.parse(JSON.stringify(toXGBoostJson(b))))
    expect(back.params.objective).toBe('reg:absoluteerror')
    expect(predictMargins(back, [x])).toEqual(predictMargins(b, [x]))
  })
})
