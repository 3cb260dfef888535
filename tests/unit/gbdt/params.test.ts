import { describe, expect, it } from 'vitest'
import { DEFAULT_PARAMS, parseParams } from '../../../src/models/gbdt/params.ts'

describe('parseParams', () => {
  it('fills XGBoost defaults and the default metric per objective', () => {
    const p = parseParams({})
    expect(p).toMatchObject({
      eta: 0.3,
      max_depth: 6,
      min_child_weight: 1,
      lambda: 1,
      alpha: 0,
      max_bin: 256,
      num_round: 10,
      objective: 'binary:logistic',
    })
    expect(p.eval_metric).toEqual(['logloss'])
    expect(p.base_score).toBeUndefined()
    expect(parseParams({ objective: 'reg:squarederror' }).eval_metric).toEqual(['rmse'])
  })

  it('maps aliases and accepts numeric strings', () => {
    const p = parseParams({
      n_estimators: 50,
      learning_rate: '0.1',
      reg_lambda: 2,
      reg_alpha: 0.5,
      min_split_loss: 1,
      random_state: 7,
    })
    expect([p.num_round, p.eta, p.lambda, p.alpha, p.gamma, p.seed]).toEqual([50, 0.1, 2, 0.5, 1, 7])
  })

  it('refuses the same parameter under two names', () => {
    expect(() => parseParams({ eta: 0.1, learning_rate: 0.2 })).toThrow(/given twice/)
  })

  it.each([
    [{ max_depth: 0 }, 'max_depth: must be an integer in [1, 16], got 0'],
    [{ max_depth: 2.5 }, 'max_depth: must be an integer'],
    [{ eta: 0 }, 'eta: must be a number in (0, 1], got 0'],
    [{ eta: 1.5 }, 'eta: must be a number in (0, 1]'],
    [{ max_bin: 1000 }, 'max_bin: must be an integer in [2, 256], got 1000'],
    [{ max_bin: 1 }, 'max_bin'],
    [{ subsample: 0 }, 'subsample: must be a number in (0, 1]'],
    [{ colsample_bytree: 1.1 }, 'colsample_bytree'],
    [{ colsample_bylevel: 0 }, 'colsample_bylevel'],
    [{ colsample_bynode: -1 }, 'colsample_bynode'],
    [{ lambda: -1 }, 'lambda: must be a number in [0, Infinity)'],
    [{ alpha: -0.1 }, 'alpha'],
    [{ gamma: -1 }, 'gamma'],
    [{ min_child_weight: -1 }, 'min_child_weight'],
    [{ scale_pos_weight: 0 }, 'scale_pos_weight'],
    [{ num_round: 0 }, 'num_round'],
    [{ n_estimators: 0 }, 'n_estimators'],
    [{ early_stopping_rounds: 0 }, 'early_stopping_rounds'],
    [{ max_leaves: 1 }, 'max_leaves'],
    [{ objective: 'survival:cox' }, 'objective: must be one of'],
    [{ objective: 'multi:softmax', num_class: 1 }, 'num_class: multi:softmax needs at least 2 classes'],
    [{ num_class: 3 }, 'num_class: only multi:softprob and multi:softmax have classes'],
    [{ objective: 'multi:softprob', num_class: 2.5 }, 'num_class'],
    [{ grow_policy: 'levelwise' }, 'grow_policy: must be one of'],
    [{ eval_metric: 'ndcg2' }, 'eval_metric: must be one of'],
    [{ base_score: 1.5 }, 'base_score'],
    [{ eta: 'fast' }, 'eta'],
  ])('refuses %j naming the parameter', (raw, message) => {
    expect(() => parseParams(raw as Record<string, unknown>)).toThrow(RangeError)
    expect(() => parseParams(raw as Record<string, unknown>)).toThrow(message)
  })

  it('names an unknown parameter with a did-you-mean', () => {
    expect(() => parseParams({ max_dept: 3 })).toThrow('unknown parameter max_dept (did you mean max_depth?)')
    expect(() => parseParams({ zzzzzzzzzz: 3 })).toThrow(/^unknown parameter zzzzzzzzzz$/)
  })

  it('allows max_depth 0 for lossguide with max_leaves', () => {
    const p = parseParams({ grow_policy: 'lossguide', max_depth: 0, max_leaves: 8 })
    expect(p.max_depth).toBe(0)
    expect(DEFAULT_PARAMS.max_depth).toBe(6)
  })

  it('accepts eval_metric lists', () => {
    expect(parseParams({ eval_metric: 'auc,logloss' }).eval_metric).toEqual(['auc', 'logloss'])
    expect(parseParams({ eval_metric: ['error'] }).eval_metric).toEqual(['error'])
  })
})
