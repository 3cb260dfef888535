// gblinear through the registry (its one entry: model-file recognition, booster: "gblinear" in
// params), its feature choice (categorical columns refused naming them), its parameters with the
// run seed and a sweep trial's, and XGBoost's linear contributions. Node only.
import { describe, expect, it } from 'vitest'
import { familyOf, familyOfConfig, familyOfModel, loadFamily } from '../../../src/models/registry.ts'
import { linearFeatures } from '../../../src/models/gblinear/rows.ts'
import { runParams, trialParams } from '../../../src/models/gblinear/family.ts'
import { linearContribs } from '../../../src/models/gblinear/predict-run.ts'
import { parseParams } from '../../../src/models/gblinear/params.ts'
import { predictMargins, trainLinear } from '../../../src/models/gblinear/train.ts'
import { toXGBoostJson } from '../../../src/models/gblinear/model-json.ts'
import type { StructType } from '../../../src/table/types.ts'

const field = (name: string, type: string) => ({ name, type, nullable: true, metadata: {} })
const SCHEMA: StructType = {
  type: 'struct',
  fields: [field('y', 'integer'), field('x', 'double'), field('job', 'string'), field('n', 'long')],
}

function smallModel() {
  const columns = [Float32Array.of(1, NaN, 3), Float32Array.of(0.5, 2, NaN)]
  const m = trainLinear(
    { columns, labels: Float32Array.of(1, 0, 1), featureNames: ['x', 'n'] },
    parseParams({ eta: 0.5, num_round: 2 }),
  )
  return { m, columns }
}

describe('gblinear in the registry', () => {
  it('recognises its model file (text and bytes); XGBoost tree models stay gbdt', () => {
    const text = toXGBoostJson(smallModel().m)
    expect(familyOfModel(text).name).toBe('gblinear')
    expect(familyOfModel(new TextEncoder().encode(text)).name).toBe('gblinear')
    const trees = '{"learner":{"gradient_booster":{"model":{"trees":[]},"name":"gbtree"}},"version":[2,0,0]}'
    expect(familyOfModel(trees).name).toBe('gbdt')
    // The word alone (a feature named gblinear) is not enough: the parse decides.
    expect(familyOfModel('{"learner":{"feature_names":["gblinear"],"gradient_booster":{"name":"gbtree"}}}').name).toBe(
      'gbdt',
    )
  })

  it('booster: "gblinear" in params means --model gblinear; a contradiction is refused naming both', () => {
    expect(familyOfConfig({ params: { booster: 'gblinear' } }).name).toBe('gblinear')
    expect(familyOfConfig({ model: 'gblinear' }).name).toBe('gblinear')
    expect(familyOfConfig({ params: { booster: 'gbtree' } }).name).toBe('gbdt')
    expect(familyOfConfig({}).name).toBe('gbdt')
    expect(() => familyOfConfig({ model: 'recsys', params: { booster: 'gblinear' } })).toThrow(
      /booster "gblinear": the params train gblinear, the model is recsys/,
    )
  })

  it('loads the family; its description sweeps eta, lambda, alpha over num_round', async () => {
    const f = await loadFamily('gblinear')
    expect(f.name).toBe('gblinear')
    const d = familyOf('gblinear')
    expect(d.resource.param).toBe('num_round')
    expect(Object.keys(d.sweep.space).sort()).toEqual(['alpha', 'eta', 'lambda', 'num_round'])
    for (const name of Object.keys(d.sweep.space)) expect(f.paramNames).toContain(name)
  })
})

describe('gblinear features and parameters', () => {
  it('by default the numeric columns (strings skipped, saying why); a requested string column is refused', () => {
    const { names, skipped } = linearFeatures(SCHEMA, 'y')
    expect(names).toEqual(['x', 'n'])
    expect(skipped).toEqual([{ name: 'job', reason: expect.stringMatching(/gblinear has no categorical support/) }])
    expect(() => linearFeatures(SCHEMA, 'y', ['x', 'job'])).toThrow(
      /--features: column job: a string \(categorical\) column: gblinear has no categorical support/,
    )
    expect(() =>
      linearFeatures({ type: 'struct', fields: [field('y', 'integer'), field('s', 'string')] }, 'y'),
    ).toThrow(/no numeric feature columns/)
  })

  it('run seed, default metrics, and a trial: num_round = the resource, the sweep metric added', () => {
    expect(runParams({ seed: 7 })).toMatchObject({ seed: 7, eval_metric: ['auc', 'logloss'] })
    expect(runParams({ seed: 7, params: { seed: 1 } }).seed).toBe(1)
    const t = trialParams({ config: { eta: 0.2, num_round: 99 }, resource: 9, metric: 'rmse' })
    expect(t).toMatchObject({ num_round: 9, eta: 0.2, eval_metric: ['auc', 'logloss', 'rmse'] })
  })

  it("contributions (XGBoost's gblinear pred_contribs) sum to the margin; a missing value gives 0", () => {
    const { m, columns } = smallModel()
    const c = linearContribs(m, columns, 3)
    const margins = predictMargins(m, columns)
    for (let i = 0; i < 3; i++) expect(c[i * 3] + c[i * 3 + 1] + c[i * 3 + 2]).toBeCloseTo(margins[i], 5)
    expect(c[1 * 3 + 0]).toBe(0)
    expect(c[2 * 3 + 1]).toBe(0)
  })
})
