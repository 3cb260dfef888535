import { describe, expect, test } from 'vitest'
import { createRefBackend, RefBackend } from '../../../src/models/recsys/backend.ts'
import { openRecsysData } from '../../../src/models/recsys/data.ts'
import { tableMemory } from '../../../src/models/recsys/features.ts'
import { initOptimizerState, initWeights } from '../../../src/models/recsys/init.ts'
import { modelShapeOf } from '../../../src/models/recsys/layout.ts'
import { parseRecsysParams } from '../../../src/models/recsys/params.ts'
import { trainLoop } from '../../../src/models/recsys/train-loop.ts'
import { clicksFixture } from './clicks-fixture.ts'

describe('recsys training loop (CPU reference on small generated clicks tables)', () => {
  // 3000 rows hold only ~200 clicks: the MLP memorises them (valid AUC ≈ 0.6 at best); 20 000 rows learn.
  test('validation AUC clearly beats 0.5 and the loss falls (20 000 rows, 2 epochs)', { timeout: 60_000 }, async () => {
    const fx = await clicksFixture(20_000)
    const params = parseRecsysParams({
      epochs: 2,
      batch_size: 256,
      embedding_dim: 8,
      layers: [32, 16],
      eval_every: 20,
      seed: 7,
      log1p: ['dense_0', 'dense_1', 'dense_2', 'dense_3', 'dense_4', 'dense_5', 'dense_6', 'dense_7'],
    })
    const data = await openRecsysData(
      { plan: fx.plan, label: 'label', validFraction: 0.2, workers: 0, http: { fetch: fx.fetch } },
      params,
    )
    const layout = data.source.layout
    expect(layout.sparse.map(f => f.name)).toEqual([
      'user_id',
      'item_id',
      'device',
      'country',
      'ad_format',
      'hour',
      'category',
      'publisher',
    ])
    expect(layout.lists).toEqual([{ name: 'emb', length: 8 }])
    expect(layout.bags?.map(f => [f.name, f.pooling])).toEqual([['history', 'mean']])
    // dense_2, dense_5, dense_7 have nulls → indicator inputs: 8 values + 3 indicators + 8 list elements.
    expect(layout.denseInputs).toBe(19)
    const shape = modelShapeOf(layout, params)
    const result = await trainLoop({
      params,
      backend: createRefBackend(shape, params),
      source: data.source,
      valid: data.valid,
    })
    const last = result.metrics[result.metrics.length - 1]
    const best = Math.max(...result.metrics.map(m => m.validAuc!))
    console.log(
      `recsys CPU reference: ${result.state.step} steps, ${data.valid.n} validation rows; valid AUC last ${last.validAuc!.toFixed(4)} best ${best.toFixed(4)} ` +
        `(Bayes-optimal ${fx.bayesAuc.toFixed(4)}); train loss ${result.metrics[0].trainLoss.toFixed(4)} → ${last.trainLoss.toFixed(4)}; logloss ${last.validLogloss!.toFixed(4)}`,
    )
    console.log(tableMemory(layout, params.embedding_dim).join('\n'))
    expect(result.finished).toBe(true)
    expect(result.state.step).toBe(params.epochs * data.source.stepsPerEpoch)
    expect(data.valid.n).toBeGreaterThan(3000)
    expect(last.validAuc!).toBeGreaterThan(0.6)
    expect(last.trainLoss).toBeLessThan(result.metrics[0].trainLoss)
  })

  test('a diverging lr stops with an error naming lr, never a NaN model', { timeout: 30_000 }, async () => {
    const fx = await clicksFixture()
    const params = parseRecsysParams({
      epochs: 1,
      batch_size: 256,
      embedding_dim: 4,
      layers: [8],
      lr: 1e30,
      eval_every: 5,
    })
    const data = await openRecsysData({ plan: fx.plan, label: 'label', workers: 0, http: { fetch: fx.fetch } }, params)
    const shape = modelShapeOf(data.source.layout, params)
    // Inject a NaN weight so the divergence is certain (Adam's normalised steps may stay finite).
    const w = initWeights(shape, 0)
    w.dense[0][0] = NaN
    const backend = new RefBackend(shape, params, { weights: w, opt: initOptimizerState(shape, params) })
    await expect(trainLoop({ params, backend, source: data.source })).rejects.toThrow(/diverged.*lr = 1e\+30/)
  })

  test('early stopping stops after early_stopping_rounds evaluations without improvement', {
    timeout: 30_000,
  }, async () => {
    const fx = await clicksFixture()
    const params = parseRecsysParams({
      epochs: 50,
      batch_size: 256,
      embedding_dim: 4,
      layers: [8],
      lr: 0.05,
      eval_every: 2,
      early_stopping_rounds: 2,
    })
    const data = await openRecsysData(
      { plan: fx.plan, label: 'label', validFraction: 0.3, workers: 0, http: { fetch: fx.fetch } },
      params,
    )
    const shape = modelShapeOf(data.source.layout, params)
    const r = await trainLoop({
      params,
      backend: createRefBackend(shape, params),
      source: data.source,
      valid: data.valid,
    })
    expect(r.stoppedEarly).toBe(true)
    expect(r.state.badRounds).toBe(2)
    const aucs = r.metrics.map(m => m.validAuc!)
    expect(Math.max(...aucs.slice(-2))).toBeLessThanOrEqual(r.state.bestAuc!)
    expect(r.state.step).toBeLessThan(50 * data.source.stepsPerEpoch)
  })
})
