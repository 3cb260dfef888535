/**
 * Continued training (TrainOptions.initModel, XGBoost's xgb_model): 10 rounds continued by 5 are
 * one 15-round run tree for tree (row and column sampling included), through either model file;
 * the model's features must match the data's; early stopping counts every tree; and a model
 * refined in real XGBoost continues here and still loads there with equal margins.
 */
import { describe, expect, it } from 'vitest'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { train } from '../../../src/models/gbdt/driver.ts'
import type { TrainData } from '../../../src/eval/dataset.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { predictMargins } from '../../../src/models/gbdt/predict.ts'
import { fromXGBoostJson, toXGBoostJson, toXGBoostJsonString } from '../../../src/models/gbdt/xgboost-json.ts'
import { decodeModel, encodeModel } from '../../../src/models/gbdt/model-file.ts'
import { makeBinary, sliceColumns } from '../../unit/gbdt/synthetic.ts'
import { maxDiff, tempDir, xgbPredict, xgbRefine } from './xgboost-peer.ts'
import { requireXgboost, runXgboostTests } from '../../support/peers.ts'

const d = makeBinary(1200, 5, 33, 0.1)
const data: TrainData = {
  columns: sliceColumns(d.columns, 0, 900),
  labels: d.labels.slice(0, 900),
  featureNames: ['a', 'b', 'c', 'd', 'e'],
  valid: { columns: sliceColumns(d.columns, 900, 1200), labels: d.labels.slice(900, 1200) },
}
const sampled = {
  max_depth: 4,
  eta: 0.3,
  subsample: 0.8,
  colsample_bytree: 0.8,
  colsample_bynode: 0.75,
  seed: 7,
}

/** The booster after a trip through a model file of `format` (what --init-model reads). */
function viaFile(b: Awaited<ReturnType<typeof train>>, format: 'json' | 'ubj') {
  return fromXGBoostJson(decodeModel(encodeModel(toXGBoostJson(b), format)))
}

describe('continued training', () => {
  it('10 rounds continued by 5 equal one 15-round run, tree for tree (subsample and colsample < 1)', async () => {
    const long = await train(data, parseParams({ ...sampled, num_round: 15 }))
    const short = await train(data, parseParams({ ...sampled, num_round: 10 }))
    const want = toXGBoostJsonString(long)
    expect(want).not.toBe(toXGBoostJsonString(await train(data, parseParams({ ...sampled, num_round: 15, seed: 8 }))))
    for (const format of ['json', 'ubj'] as const) {
      const rounds: number[] = []
      const more = await train(data, parseParams({ ...sampled, num_round: 5 }), undefined, {
        initModel: viaFile(short, format),
        onRound: r => void rounds.push(r),
      })
      expect(more.trees).toHaveLength(15)
      expect(toXGBoostJsonString(more)).toBe(want)
      expect(more.history).toEqual(long.history.slice(10))
      expect(rounds).toEqual([0, 1, 2, 3, 4])
    }
  })

  it("starts from the model's margins and keeps its base_score", async () => {
    const short = await train(data, parseParams({ max_depth: 3, num_round: 3, base_score: 0.3 }))
    const more = await train(data, parseParams({ max_depth: 3, num_round: 2 }), undefined, { initModel: short })
    expect(more.baseScore).toBe(short.baseScore)
    expect(more.trees.slice(0, 3)).toEqual(short.trees)
    const m3 = predictMargins(more, data.columns, 3)
    expect(Array.from(m3)).toEqual(Array.from(predictMargins(short, data.columns)))
  })

  it('early stopping counts every tree, as XGBoost (best_iteration of the whole model)', async () => {
    const p = { max_depth: 6, eta: 0.9, eval_metric: ['logloss'] }
    const long = await train(data, parseParams({ ...p, num_round: 40, early_stopping_rounds: 3 }))
    expect(long.trees.length).toBeLessThan(40)
    const short = await train(data, parseParams({ ...p, num_round: 2 }))
    const more = await train(data, parseParams({ ...p, num_round: 40, early_stopping_rounds: 3 }), undefined, {
      initModel: short,
    })
    expect(more.bestIteration).toBe(long.bestIteration)
    expect(more.trees).toHaveLength(long.trees.length)
    const attrs = (toXGBoostJson(more).learner as { attributes: Record<string, string> }).attributes
    expect(attrs.best_iteration).toBe(String(long.bestIteration))
    expect(Number(attrs.best_score)).toBeCloseTo(long.history[long.bestIteration].logloss, 12)
  })

  it('refuses a model whose features are not the data’s, naming the feature', async () => {
    const short = await train(data, parseParams({ max_depth: 2, num_round: 1 }))
    const p = parseParams({ num_round: 1 })
    const renamed = { ...data, featureNames: ['a', 'b', 'x', 'd', 'e'] }
    await expect(train(renamed, p, undefined, { initModel: short })).rejects.toThrow(
      'init model: feature 2 is c in the model but x in the data',
    )
    const fewer = { ...data, columns: data.columns.slice(0, 4), featureNames: ['a', 'b', 'c', 'd'], valid: undefined }
    await expect(train(fewer, p, undefined, { initModel: short })).rejects.toThrow(
      'init model: feature e is not in the data',
    )
    const typed = { ...data, featureTypes: ['float', 'c', 'float', 'float', 'float'] }
    await expect(train(typed, p, undefined, { initModel: short })).rejects.toThrow(
      'init model: feature b is of type float in the model, c in the data',
    )
    await expect(
      train(data, parseParams({ num_round: 1, objective: 'reg:squarederror' }), undefined, { initModel: short }),
    ).rejects.toThrow('init model: objective binary:logistic, the parameters say reg:squarederror')
  })

  it.skipIf(!runXgboostTests)(
    'a model refined in XGBoost continues here and loads there with equal margins (JSON and UBJSON)',
    async () => {
      requireXgboost()
      const dir = tempDir()
      const p = { max_depth: 4, eta: 0.3 }
      const ours = await train(data, parseParams({ ...p, num_round: 4 }))
      writeFileSync(join(dir, 'ours.json'), toXGBoostJsonString(ours))
      const xgbParams = { tree_method: 'hist', max_depth: 4, eta: 0.3, objective: 'binary:logistic' }
      const base = join(dir, 'refined')
      const refined = xgbRefine(join(dir, 'ours.json'), base, data.columns, data.labels, 3, xgbParams)
      expect(refined.trees).toBe(7)
      for (const format of ['json', 'ubj'] as const) {
        const file = readFileSync(`${base}.${format}`)
        const init = fromXGBoostJson(decodeModel(format === 'json' ? file.toString('utf8') : file))
        expect(init.trees.slice(0, 4).map(t => Array.from(t.splitCondition))).toEqual(
          ours.trees.map(t => Array.from(t.splitCondition)),
        )
        expect(maxDiff(predictMargins(init, data.columns), refined.margins)).toBeLessThanOrEqual(1e-5)
        const more = await train(data, parseParams({ ...p, num_round: 3 }), undefined, { initModel: init })
        expect(more.trees).toHaveLength(10)
        const out = join(dir, `continued.${format}`)
        writeFileSync(out, encodeModel(toXGBoostJson(more), format))
        const diff = maxDiff(xgbPredict(out, data.valid!.columns), predictMargins(more, data.valid!.columns))
        expect(diff).toBeLessThanOrEqual(1e-5)
      }
    },
  )
})
