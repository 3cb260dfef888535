import { describe, expect, test } from 'vitest'
import { createRefBackend } from '../../../src/models/recsys/backend.ts'
import { openRecsysData } from '../../../src/models/recsys/data.ts'
import { modelShapeOf } from '../../../src/models/recsys/layout.ts'
import { parseRecsysParams } from '../../../src/models/recsys/params.ts'
import { trainLoop } from '../../../src/models/recsys/train-loop.ts'
import { clicksFixture } from './clicks-fixture.ts'

describe('a diverging embedding table is caught at the next evaluation (CPU reference)', () => {
  // Adagrad and row-wise Adam move a touched row by ≈ embedding_lr per update: at 3e38 a row passes f32's max (3.4e38) at its second update.
  test.each(['adagrad', 'rowwise_adam'])(
    '%s at embedding_lr 3e38: the error names the embedding table and embedding_lr',
    { timeout: 30_000 },
    async opt => {
      const fx = await clicksFixture()
      const params = parseRecsysParams({
        epochs: 1,
        batch_size: 256,
        embedding_dim: 4,
        layers: [8],
        embedding_optimizer: opt,
        embedding_lr: 3e38,
        eval_every: 5,
      })
      const data = await openRecsysData(
        { plan: fx.plan, label: 'label', workers: 0, http: { fetch: fx.fetch } },
        params,
      )
      const backend = createRefBackend(modelShapeOf(data.source.layout, params), params)
      await expect(trainLoop({ params, backend, source: data.source })).rejects.toThrow(
        /diverged: .*embedding table 'embeddings' has NaN\/infinite values \(checked at step 5\).*embedding_lr = 3e\+38/,
      )
    },
  )

  test('a sane embedding_lr trains through the same evaluations', { timeout: 30_000 }, async () => {
    const fx = await clicksFixture()
    const params = parseRecsysParams({
      epochs: 1,
      batch_size: 256,
      embedding_dim: 4,
      layers: [8],
      embedding_lr: 0.05,
      eval_every: 5,
    })
    const data = await openRecsysData({ plan: fx.plan, label: 'label', workers: 0, http: { fetch: fx.fetch } }, params)
    const backend = createRefBackend(modelShapeOf(data.source.layout, params), params)
    const r = await trainLoop({ params, backend, source: data.source })
    expect(r.finished).toBe(true)
    expect(await backend.firstNonFinite()).toBeUndefined()
  })
})
