// gblinear's coordinate descent against hand-worked cases, its XGBoost JSON round trip and its
// parameter refusals. Node only.
import { describe, expect, it } from 'vitest'
import { parseParams } from '../../../src/models/gblinear/params.ts'
import { coordinateDelta, predictMargins, trainLinear } from '../../../src/models/gblinear/train.ts'
import { fromXGBoostJson, toXGBoostJson } from '../../../src/models/gblinear/model-json.ts'

const col = (...v: number[]) => Float32Array.from(v)

describe('gblinear coordinate descent', () => {
  // One centred feature x = [1, −1], y = [3, 1], squared error, base_score 0, eta ½: each round the
  // bias and the weight each go half the remaining way (Σx = 0 decouples them), so after k rounds
  // bias = 2 − 2^(1−k) and w = 1 − 2^−k, exactly.
  it('after k rounds: bias 2 − 2^(1−k), weight 1 − 2^−k', () => {
    for (const k of [1, 2, 3, 5]) {
      const p = parseParams({ objective: 'reg:squarederror', base_score: 0, eta: 0.5, num_round: k })
      const m = trainLinear({ columns: [col(1, -1)], labels: col(3, 1) }, p)
      expect([m.bias, m.weights[0], m.rounds]).toEqual([2 - 2 ** (1 - k), 1 - 2 ** -k, k])
    }
  })

  it('L2 shrinks the weight to Σxy/(Σx² + λ·N); L1 thresholds it, to 0 when α·N ≥ |Σxg|', () => {
    const data = { columns: [col(1, -1)], labels: col(3, 1) }
    const trained = (extra: Record<string, number>) =>
      trainLinear(data, parseParams({ objective: 'reg:squarederror', base_score: 0, eta: 1, num_round: 3, ...extra }))
    expect(trained({}).weights[0]).toBe(1)
    expect(trained({ lambda: 0.5 }).weights[0]).toBeCloseTo(2 / 3, 6) // 2 / (2 + 0.5·2)
    expect(trained({ alpha: 0.5 }).weights[0]).toBe(0.5) // (2 − 0.5·2) / 2
    expect(trained({ alpha: 1 }).weights[0]).toBe(0)
    expect(trained({ alpha: 1 }).bias).toBe(2)
  })

  it('CoordinateDelta: a Newton step; with L1 it stops at w = 0; no hessian, no step', () => {
    expect(coordinateDelta(-4, 2, 0.5, 0, 0)).toBe(2)
    expect(coordinateDelta(4, 2, 0.5, 0, 0)).toBe(-2)
    expect(coordinateDelta(4, 2, 0.5, 4, 0)).toBe(-0.5) // the L1 step would cross 0: it lands on 0
    expect(coordinateDelta(4, 1e-6, 0.5, 0, 0)).toBe(0)
  })

  // A missing value is absent from XGBoost's sparse column: no gradient sum, no margin term.
  // In a linear model that is the same as 0 — and must not poison the sums with NaN.
  it('a missing value counts as absent (equal to 0 here), never as NaN', () => {
    const p = parseParams({ objective: 'binary:logistic', base_score: 0.5, eta: 0.7, lambda: 0.1, num_round: 4 })
    const labels = col(1, 0, 1, 0, 1)
    const withNaN = trainLinear({ columns: [col(1, NaN, 2, -1, NaN), col(0.5, 1, NaN, 2, 1)], labels }, p)
    const withZero = trainLinear({ columns: [col(1, 0, 2, -1, 0), col(0.5, 1, 0, 2, 1)], labels }, p)
    expect(Array.from(withNaN.weights).every(Number.isFinite)).toBe(true)
    expect(withNaN.weights).toEqual(withZero.weights)
    expect(withNaN.bias).toBe(withZero.bias)
  })

  it('logistic: the first bias step from p = ½ is −eta·Σ(½ − y)/(N/4)', () => {
    // y = [1, 1, 1, 0]: Σg = −1, Σh = 1 → bias = eta · 1; no feature (F = 0).
    const p = parseParams({ objective: 'binary:logistic', base_score: 0.5, eta: 0.5, num_round: 1 })
    const m = trainLinear({ columns: [], labels: col(1, 1, 1, 0) }, p)
    expect(m.bias).toBe(0.5)
  })

  it('validation metrics per round and early stopping', () => {
    const p = parseParams({
      objective: 'reg:squarederror',
      base_score: 0,
      eta: 1,
      num_round: 10,
      early_stopping_rounds: 2,
    })
    const evaluate = (_m: string, pred: Float32Array, y: Float32Array) => Math.abs(pred[0] - y[0])
    const m = trainLinear(
      { columns: [col(1, -1)], labels: col(3, 1), valid: { columns: [col(1)], labels: col(3) } },
      p,
      { evaluate },
    )
    // Exact after round 0, no improvement after: stops after round 2, best 0.
    expect(m.history).toEqual([{ rmse: 0 }, { rmse: 0 }, { rmse: 0 }])
    expect(m.bestIteration).toBe(0)
  })
})

describe('gblinear XGBoost JSON', () => {
  it('round trip keeps weights, bias, base_score, names and margins', () => {
    const p = parseParams({ objective: 'binary:logistic', eta: 0.3, lambda: 0.2, num_round: 3 })
    const columns = [col(0.1, 2, NaN, -3), col(1, 1, 0, 0.25)]
    const m = trainLinear({ columns, labels: col(1, 0, 1, 0), featureNames: ['a', 'b'] }, p)
    const text = toXGBoostJson(m)
    const doc = JSON.parse(text)
    expect(doc.learner.gradient_booster.name).toBe('gblinear')
    expect(doc.learner.gradient_booster.model.weights).toHaveLength(3)
    const back = fromXGBoostJson(text)
    expect(back.weights).toEqual(m.weights)
    expect([back.bias, back.baseScore, back.featureNames, back.rounds]).toEqual([m.bias, m.baseScore, ['a', 'b'], 3])
    expect(predictMargins(back, columns)).toEqual(predictMargins(m, columns))
    expect(fromXGBoostJson(new TextEncoder().encode(text)).weights).toEqual(m.weights)
  })

  it('refuses what it cannot predict, naming it', () => {
    expect(() => fromXGBoostJson('{"learner":{"gradient_booster":{"name":"gbtree"}}}', 'm.json')).toThrow(
      /m\.json: not an XGBoost gblinear model/,
    )
    const three = '{"learner":{"gradient_booster":{"name":"gblinear","model":{"weights":[1,2,3]}},'
    expect(() =>
      fromXGBoostJson(
        `${three}"learner_model_param":{"num_feature":"2","num_class":"3"},"objective":{"name":"multi:softprob"}}}`,
      ),
    ).toThrow(/3 output groups/)
    expect(() => fromXGBoostJson(`${three}"learner_model_param":{"num_feature":"1"}}}`)).toThrow(/must hold 2 numbers/)
  })
})

describe('gblinear parameters', () => {
  it('XGBoost defaults and aliases', () => {
    const p = parseParams({ reg_lambda: '0.5', learning_rate: 0.1, booster: 'gblinear', nthread: 4 })
    expect(p).toMatchObject({ objective: 'binary:logistic', eta: 0.1, lambda: 0.5, alpha: 0, num_round: 10 })
    expect(p.eval_metric).toEqual(['logloss'])
  })

  it.each([
    [{ lambda: -1 }, /lambda: must be a number in \[0, Infinity\), got -1/],
    [{ alpha: -0.1 }, /alpha: must be a number/],
    [{ reg_alpha: -0.1 }, /reg_alpha: must be a number/],
    [{ updater: 'shotgun' }, /updater: gblinear here trains with coord_descent only.*"shotgun"/],
    [{ feature_selector: 'shuffle' }, /feature_selector: only cyclic/],
    [{ booster: 'gbtree' }, /booster: the gblinear family trains booster gblinear/],
    [{ max_depth: 3 }, /unknown parameter max_depth for gblinear/],
    [{ objective: 'binary:logistic', base_score: 1 }, /base_score: must be in \(0, 1\)/],
    [{ lambda: 1, reg_lambda: 2 }, /reg_lambda: given twice \(also as lambda\)/],
  ])('refuses %j', (raw, message) => {
    expect(() => parseParams(raw)).toThrow(message)
  })
})
