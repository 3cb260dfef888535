/**
 * The recommender learns: a whole CPU-reference training run (trainLoop, 2 epochs) on a generated
 * clicks table of 20 000 rows, with the layout the generator's columns give. A full training run,
 * so in the integration tier; the loop's control flow (divergence, early stopping) is unit-tested
 * in tests/unit/recsys/train-loop.test.ts.
 */
import { describe, expect, test } from 'vitest'
import { createRefBackend } from '../../../src/models/recsys/backend.ts'
import { openRecsysData } from '../../../src/models/recsys/data.ts'
import { tableMemory } from '../../../src/models/recsys/features.ts'
import { modelShapeOf } from '../../../src/models/recsys/layout.ts'
import { parseRecsysParams } from '../../../src/models/recsys/params.ts'
import { trainLoop } from '../../../src/models/recsys/train-loop.ts'
import { clicksFixture } from '../../unit/recsys/clicks-fixture.ts'

describe('recsys training loop learns (CPU reference on a generated clicks table)', () => {
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
})
