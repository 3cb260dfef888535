import { describe, expect, test } from 'vitest'
import { auc } from '../../../src/eval/metrics.ts'
import { createRefBackend, type RecsysBackend } from '../../../src/models/recsys/backend.ts'
import {
  captureCheckpoint,
  decodeCheckpoint,
  encodeCheckpoint,
  restoreCheckpoint,
  stateTensors,
} from '../../../src/models/recsys/checkpoint.ts'
import { openRecsysData } from '../../../src/models/recsys/data.ts'
import { modelShapeOf } from '../../../src/models/recsys/layout.ts'
import { parseRecsysParams } from '../../../src/models/recsys/params.ts'
import { predictAll, trainLoop } from '../../../src/models/recsys/train-loop.ts'
import { clicksFixture } from './clicks-fixture.ts'

/** A high lr on 3000 rows: validation AUC peaks within a few evaluations, then falls (memorising). */
const OVERFIT = {
  epochs: 50,
  batch_size: 256,
  embedding_dim: 4,
  layers: [8],
  lr: 0.05,
  embedding_lr: 0.3,
  eval_every: 2,
  early_stopping_rounds: 3,
  seed: 3,
}

async function setup(extra: object = {}) {
  const fx = await clicksFixture()
  const params = parseRecsysParams({ ...OVERFIT, ...extra })
  const data = await openRecsysData(
    { plan: fx.plan, label: 'label', validFraction: 0.3, workers: 0, http: { fetch: fx.fetch } },
    params,
  )
  return { params, data, shape: modelShapeOf(data.source.layout, params) }
}

/** The RefBackend without its keepWeights hooks: the loop's CPU fallback (exportState/importState) must do. */
function withoutHooks(b: RecsysBackend): RecsysBackend {
  return {
    shape: b.shape,
    maxBatch: b.maxBatch,
    step: (x, lr) => b.step(x, lr),
    takeLosses: () => b.takeLosses(),
    predict: x => b.predict(x),
    firstNonFinite: () => b.firstNonFinite(),
    exportState: () => b.exportState(),
    importState: s => b.importState(s),
    destroy: () => b.destroy(),
  }
}

describe('restore_best (CPU reference)', () => {
  test('defaults to early_stopping_rounds > 0; refuses a non-boolean', () => {
    expect(parseRecsysParams({}).restore_best).toBe(false)
    expect(parseRecsysParams({ early_stopping_rounds: 2 }).restore_best).toBe(true)
    expect(parseRecsysParams({ early_stopping_rounds: 2, restore_best: false }).restore_best).toBe(false)
    expect(parseRecsysParams({ restore_best: true }).restore_best).toBe(true)
    expect(() => parseRecsysParams({ restore_best: 1 })).toThrow(/restore_best must be true or false, got 1/)
  })

  test.each([
    ['keepWeights hooks', false],
    ['CPU fallback (no hooks)', true],
  ])("after early stopping the model scores the best evaluation's AUC (%s)", { timeout: 30_000 }, async (_, bare) => {
    const { params, data, shape } = await setup()
    const ref = createRefBackend(shape, params)
    const backend = bare ? withoutHooks(ref) : ref
    const r = await trainLoop({ params, backend, source: data.source, valid: data.valid })
    const aucs = r.metrics.map(m => m.validAuc!)
    console.log(
      `restore_best: ${r.metrics.length} evaluations, AUCs ${aucs.map(a => a.toFixed(4)).join(' ')}; best ${r.state.bestAuc} at step ${r.state.bestStep}`,
    )
    expect(r.stoppedEarly).toBe(true)
    expect(aucs.at(-1)!).toBeLessThan(r.state.bestAuc!)
    expect(r.restored?.step).toBe(r.state.bestStep)
    expect(r.restored?.validAuc).toBe(r.state.bestAuc)
    expect(auc(await predictAll(backend, data.valid), data.valid.labels)).toBe(r.state.bestAuc)
  })

  test("restore_best false keeps the last step's weights", { timeout: 30_000 }, async () => {
    const { params, data, shape } = await setup({ restore_best: false })
    const backend = createRefBackend(shape, params)
    const r = await trainLoop({ params, backend, source: data.source, valid: data.valid })
    expect(r.restored).toBeUndefined()
    expect(auc(await predictAll(backend, data.valid), data.valid.labels)).toBe(r.metrics.at(-1)!.validAuc)
    expect(r.metrics.at(-1)!.validAuc).not.toBe(r.state.bestAuc)
  })

  test('a checkpoint keeps the best weights: stop after the best, resume ⇒ the same restored model as the uninterrupted run', {
    timeout: 30_000,
  }, async () => {
    const { params, data, shape } = await setup({ early_stopping_rounds: 0, restore_best: true, epochs: 3 })
    const whole = createRefBackend(shape, params)
    const a = await trainLoop({ params, backend: whole, source: data.source, valid: data.valid })
    expect(a.restored).toBeDefined()
    // Stop just after the best evaluation, so the resumed run sees no better one.
    const stopAt = a.state.bestStep + 1
    const b = createRefBackend(shape, params)
    const first = await trainLoop({ params, backend: b, source: data.source, valid: data.valid, stopAtStep: stopAt })
    const ck = decodeCheckpoint(
      encodeCheckpoint(await captureCheckpoint(b, { shape, params, layout: data.source.layout, loop: first.state })),
    )
    expect(ck.best).toBeDefined()
    const c = createRefBackend(shape, ck.params)
    await restoreCheckpoint(c, ck)
    const rest = await trainLoop({
      params: ck.params,
      backend: c,
      source: data.source,
      valid: data.valid,
      resume: ck.loop,
    })
    expect(rest.restored?.step).toBe(a.state.bestStep)
    const want = stateTensors(shape, await whole.exportState()),
      got = stateTensors(shape, await c.exportState())
    got.forEach(([name, x], i) =>
      expect(
        Buffer.compare(
          Buffer.from(x.buffer, x.byteOffset, x.byteLength),
          Buffer.from(want[i][1].buffer, want[i][1].byteOffset, want[i][1].byteLength),
        ),
        name,
      ).toBe(0),
    )
  })
})
