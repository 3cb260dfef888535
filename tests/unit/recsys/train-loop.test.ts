import { describe, expect, test } from 'vitest'
import { createRefBackend, RefBackend } from '../../../src/models/recsys/backend.ts'
import { openRecsysData } from '../../../src/models/recsys/data.ts'
import { initOptimizerState, initWeights } from '../../../src/models/recsys/init.ts'
import { modelShapeOf } from '../../../src/models/recsys/layout.ts'
import { parseRecsysParams } from '../../../src/models/recsys/params.ts'
import { trainLoop } from '../../../src/models/recsys/train-loop.ts'
import { clicksFixture } from './clicks-fixture.ts'

// Learning itself (validation AUC and loss on 20 000 rows, 2 epochs): tests/integration/recsys/train-loop-learns.test.ts.
describe('recsys training loop (CPU reference on small generated clicks tables)', () => {
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
