/**
 * Model files through the one training run (runTraining in Node, CPU backend, marketing):
 * modelFormat 'ubj' gives UBJSON bytes holding the same model and dictionaries; initModel
 * continues it (features and dictionaries from the model) so 3 + 2 rounds equal one 5-round run
 * byte for byte; a model whose features the table lacks is refused naming the feature.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../../../src/serve/page-server.ts'
import { serveDirectory, type ServedDirectory } from '../../../src/serve/server.ts'
import { openSnapshot } from '../../../src/table/index.ts'
import { runTraining } from '../../../src/run/pipeline.ts'
import { gbdtFamily, runParams } from '../../../src/models/gbdt/family.ts'
import { modelFeatures } from '../../../src/models/gbdt/predict-run.ts'
import { categoriesOf } from '../../../src/models/gbdt/model-attributes.ts'
import { decodeModel } from '../../../src/models/gbdt/model-file.ts'
import { fromXGBoostJson, xgboostJsonText } from '../../../src/models/gbdt/xgboost-json.ts'
import type { TrainConfig } from '../../../src/run/config.ts'
import { makeTree } from '../../unit/gbdt/tree-fixture.ts'
import { DEFAULT_PARAMS } from '../../../src/models/gbdt/params.ts'

let server: ServedDirectory
let url: string
beforeAll(async () => {
  server = await serveDirectory(join(PROJECT_ROOT, 'public', 'tables'))
  url = `${server.url}marketing/`
})
afterAll(async () => {
  await server?.close()
})

const config = (over: Partial<TrainConfig>): TrainConfig => ({
  table: url,
  label: 'y',
  features: ['age', 'job', 'balance', 'month'],
  validFraction: 0.2,
  seed: 2,
  params: { num_round: 3, max_depth: 3, subsample: 0.9, colsample_bynode: 0.75 },
  backend: 'cpu',
  workers: 0,
  ...over,
})

describe('model files in a run', () => {
  it('ubj then --init-model: 3 + 2 rounds equal one 5-round run, dictionaries kept', async () => {
    const first = await runTraining(config({ modelFormat: 'ubj' }))
    expect(first.model).toBeInstanceOf(Uint8Array)
    const model = decodeModel(first.model)
    expect(fromXGBoostJson(model).trees).toHaveLength(3)
    expect(Object.keys(categoriesOf(model))).toEqual(['job', 'month'])
    const params = { num_round: 2, max_depth: 3, subsample: 0.9, colsample_bynode: 0.75 }
    const more = await runTraining(config({ features: undefined, initModel: first.model, params }))
    const long = await runTraining(config({ params: { ...params, num_round: 5 } }))
    expect(fromXGBoostJson(more.model).trees).toHaveLength(5)
    expect(more.model).toBe(long.model)
    expect(more.summary.rounds).toBe(5)
    // The same model as JSON text: the UBJSON file held every value.
    const again = await runTraining(config({ features: undefined, initModel: xgboostJsonText(model), params }))
    expect(again.model).toBe(long.model)
  }, 120_000)

  it('refuses an init model whose feature the table lacks, before any data is read', async () => {
    const snapshot = await openSnapshot(url)
    const first = await runTraining({ ...config({ params: { num_round: 1, max_depth: 2 } }), model: 'gbdt' })
    const renamed = first.model.replace('"feature_names":["age"', '"feature_names":["agex"')
    const c = config({ initModel: renamed, features: undefined })
    await expect(gbdtFamily.precheck(snapshot, c, runParams(c))).rejects.toThrow(/model feature agex: no such column/)
    const regression = config({ initModel: first.model, params: { objective: 'reg:squarederror' } })
    await expect(gbdtFamily.precheck(snapshot, regression, runParams(regression))).rejects.toThrow(
      /init model: objective binary:logistic, the parameters say reg:squarederror/,
    )
    const ranks = config({ initModel: first.model, ranks: 2 })
    await expect(gbdtFamily.precheck(snapshot, ranks, runParams(ranks))).rejects.toThrow(/runs on one rank/)
  }, 60_000)

  it('refuses a constraint naming an unknown feature or a categorical one before any data is read', async () => {
    const snapshot = await openSnapshot(url)
    const unknown = config({ params: { monotone_constraints: { agee: 1 } } })
    await expect(gbdtFamily.precheck(snapshot, unknown, runParams(unknown))).rejects.toThrow(
      /monotone_constraints: no feature column agee \(features: age, job, balance, month\)/,
    )
    const index = config({ params: { interaction_constraints: [[0, 7]] } })
    await expect(gbdtFamily.precheck(snapshot, index, runParams(index))).rejects.toThrow(
      /interaction_constraints: feature index 7 is out of range: 4 features/,
    )
    const categorical = config({ params: { enable_categorical: true, monotone_constraints: { job: 1 } } })
    await expect(gbdtFamily.precheck(snapshot, categorical, runParams(categorical))).rejects.toThrow(/job/)
    const fine = config({
      params: { monotone_constraints: { balance: 1 }, interaction_constraints: [['age', 'balance']] },
    })
    await expect(gbdtFamily.precheck(snapshot, fine, runParams(fine))).resolves.toBeUndefined()
  })

  it('predicting a model with categorical splits on a table without that column names the column', async () => {
    const snapshot = await openSnapshot(url)
    const t = makeTree([
      [1, 2, 1, 0, -1, 1],
      [-1, -1, 0, -0.5, -1, 0],
      [-1, -1, 0, 0.5, -1, 0],
    ])
    t.splitType[0] = 1
    t.catSize[0] = 2
    t.categories = Int32Array.from([0, 3])
    const booster = {
      params: { ...DEFAULT_PARAMS },
      featureNames: ['age', 'occupation'],
      featureTypes: ['int', 'c'],
      baseScore: 0.5,
      trees: [t],
      history: [],
      bestIteration: 0,
    }
    expect(() => modelFeatures(booster, snapshot.schema, { occupation: ['a', 'b'] }, url)).toThrow(
      /model feature occupation: no such column in .*marketing.* \(columns: .*job/,
    )
  })
})
