/**
 * A sweep trial is the training run it claims to be: for both models, a trial and `snaptrain
 * train`'s run with the same table version, features, filter, validation split, parameters and
 * seed give byte-identical model files and identical metrics (a ranking run with --qid and a multiclass run too; CPU backends, in Node, over a real
 * loopback server; the GPU backends are checked against the same references elsewhere). A trial
 * stopped by its strategy hands back the params that train its kept model (num_round / epochs it
 * reached, the sweep's metric in eval_metric, the recommender's eval_every): the same bytes (the
 * recommender: the same weights; its file header keeps the requested epochs).
 */
import { dirname } from 'node:path'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../../../src/serve/page-server.ts'
import { serveDirectory, type ServedDirectory } from '../../../src/serve/server.ts'
import { runTraining } from '../../../src/run/pipeline.ts'
import { DataCache } from '../../../src/sweep/data-cache.ts'
import { createTrialRunner } from '../../../src/sweep/trial-runner.ts'
import type { SweepConfig, TrialArtifacts } from '../../../src/tune/types.ts'
import { clicksFixture } from '../../unit/recsys/clicks-fixture.ts'

let tables: ServedDirectory
let clicks: ServedDirectory
let clicksUrl: string
beforeAll(async () => {
  tables = await serveDirectory(join(PROJECT_ROOT, 'public', 'tables'))
  const fx = await clicksFixture(3000)
  clicks = await serveDirectory(dirname(fx.dir))
  clicksUrl = `${clicks.url}clicks/`
}, 60_000)
afterAll(async () => {
  await tables?.close()
  await clicks?.close()
})

/** Runs one trial of `config` with `resource` and returns its artifacts. */
async function trial(run: ReturnType<typeof createTrialRunner>, resource: number): Promise<TrialArtifacts> {
  const result = await run.run(
    { id: 0, config: {}, resource, bracket: 0, rung: 0 },
    () => 'continue',
    new AbortController().signal,
  )
  return result.artifacts!
}

function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), c => c.charCodeAt(0))
}

describe('sweep trial = training run', () => {
  it('GBDT: the same model bytes and metrics', async () => {
    const params = { max_depth: 3, eta: 0.3, subsample: 0.8, colsample_bytree: 0.8, eval_metric: ['auc', 'logloss'] }
    const common = { table: `${tables.url}marketing/`, label: 'y', filter: 'age < 50', validFraction: 0.25, seed: 7 }
    const trained = await runTraining({ ...common, params: { ...params, num_round: 6 }, backend: 'cpu', workers: 0 })
    const config: SweepConfig = { model: 'gbdt', ...common, strategy: 'grid', trials: 1, fixed: params }
    const data = await new DataCache({ workers: 0 }).load(config, () => {})
    const artifacts = await trial(createTrialRunner({ config, data }), 6)
    expect(artifacts.model).toBe(trained.model)
    expect((artifacts.manifest as { metrics: unknown }).metrics).toEqual(trained.metrics.map(stripWall))
    // The trial's manifest names the device it really ran on and its real training time.
    const m = artifacts.manifest as { adapter: string; train_seconds: number }
    expect(m.adapter).toBe(trained.summary.adapter)
    expect(m.train_seconds).toBeGreaterThan(0)
  }, 120_000)

  it("GBDT stopped by its strategy at round 2 of 6: its params (num_round 2, the sweep's metric) train the kept model", async () => {
    const common = { table: `${tables.url}marketing/`, label: 'y', filter: 'age < 50', validFraction: 0.25, seed: 7 }
    const fixed = { max_depth: 3, eval_metric: ['logloss'], early_stopping_rounds: 5 }
    const config: SweepConfig = { model: 'gbdt', ...common, strategy: 'asha', trials: 1, fixed, metric: 'auc' }
    const data = await new DataCache({ workers: 0 }).load(config, () => {})
    const out = await createTrialRunner({ config, data }).run(
      { id: 0, config: { eta: 0.3 }, resource: 6, bracket: 0, rung: 0 },
      resource => (resource >= 2 ? 'stop' : 'continue'),
      new AbortController().signal,
    )
    // The sweep's metric went last into eval_metric (early stopping watches it): part of the params.
    expect(out.params).toEqual({ ...fixed, eta: 0.3, eval_metric: ['logloss', 'auc'], num_round: 2 })
    const trained = await runTraining({ ...common, params: out.params, backend: 'cpu', workers: 0 })
    expect(out.artifacts!.model).toBe(trained.model)
  }, 120_000)

  it('GBDT ranking (rank:map, qid = day, split by query): the same model bytes and metrics', async () => {
    const params = { objective: 'rank:map', max_depth: 3, eta: 0.3, subsample: 0.8, eval_metric: ['map@10', 'ndcg@5'] }
    const common = {
      table: `${tables.url}marketing/`,
      label: 'y',
      qid: 'day',
      filter: 'age < 40',
      validFraction: 0.25,
      seed: 3,
    }
    const trained = await runTraining({ ...common, params: { ...params, num_round: 3 }, backend: 'cpu', workers: 0 })
    const config: SweepConfig = {
      model: 'gbdt',
      ...common,
      strategy: 'grid',
      trials: 1,
      fixed: params,
      metric: 'map@10',
    }
    const data = await new DataCache({ workers: 0 }).load(config, () => {})
    const artifacts = await trial(createTrialRunner({ config, data }), 3)
    expect(artifacts.model).toBe(trained.model)
    expect((artifacts.manifest as { metrics: unknown }).metrics).toEqual(trained.metrics.map(stripWall))
    expect((artifacts.manifest as { qid?: string }).qid).toBe('day')
  }, 120_000)

  it('GBDT multiclass (multi:softprob, num_class inferred from the label): the same model bytes and metrics', async () => {
    const params = {
      objective: 'multi:softprob',
      max_depth: 3,
      eta: 0.3,
      subsample: 0.8,
      eval_metric: ['merror', 'mlogloss'],
    }
    const common = {
      table: `${tables.url}marketing/`,
      label: 'previous',
      filter: 'previous < 4',
      validFraction: 0.25,
      seed: 5,
    }
    const trained = await runTraining({ ...common, params: { ...params, num_round: 3 }, backend: 'cpu', workers: 0 })
    const config: SweepConfig = {
      model: 'gbdt',
      ...common,
      strategy: 'grid',
      trials: 1,
      fixed: params,
      metric: 'mlogloss',
    }
    const data = await new DataCache({ workers: 0 }).load(config, () => {})
    const artifacts = await trial(createTrialRunner({ config, data }), 3)
    expect(artifacts.model).toBe(trained.model)
    expect(String(artifacts.model)).toContain('"num_class":"4"')
    expect((artifacts.manifest as { metrics: unknown }).metrics).toEqual(trained.metrics.map(stripWall))
  }, 120_000)

  it('recommender: the same model bytes and metrics', async () => {
    const params = {
      epochs: 2,
      batch_size: 256,
      embedding_dim: 4,
      layers: [8],
      lr: 3e-3,
      eval_every: 6,
      early_stopping_rounds: 50,
    }
    const common = { table: clicksUrl, label: 'label', validFraction: 0.2, seed: 11 }
    const trained = (await runTraining({ model: 'recsys', ...common, params, backend: 'cpu', workers: 0 })) as {
      model: Uint8Array
      metrics: Array<Record<string, number>>
    }
    const config: SweepConfig = {
      model: 'recsys',
      ...common,
      strategy: 'grid',
      trials: 1,
      fixed: { ...params, epochs: undefined },
    }
    const table = await new DataCache({ workers: 0 }).load(config, () => {})
    const artifacts = await trial(createTrialRunner({ config, data: table, best: {} }), 2)
    expect(artifacts.model).toBeDefined()
    const model = fromBase64(artifacts.model as string)
    expect(model.byteLength).toBe(trained.model.byteLength)
    const head = (b: Uint8Array) =>
      new TextDecoder().decode(b.subarray(12, 12 + new DataView(b.buffer, b.byteOffset).getUint32(8, true)))
    expect(head(model)).toBe(head(trained.model))
    expect(Buffer.from(model).equals(Buffer.from(trained.model))).toBe(true)
    const last = trained.metrics.at(-1)!
    expect((artifacts.manifest as { metric: number }).metric).toBe(last.auc)
    const m = artifacts.manifest as { adapter: string; train_seconds: number }
    expect(m.adapter).toBe('cpu (reference backend)')
    expect(m.train_seconds).toBeGreaterThan(0)
  }, 180_000)
})

describe('a recommender trial stopped after epoch 1 of 2', () => {
  it('its params (epochs 1, eval_every = steps per epoch) train the kept weights byte for byte', async () => {
    const fixed = { batch_size: 256, embedding_dim: 4, layers: [8], lr: 3e-3 }
    const common = { table: clicksUrl, label: 'label', validFraction: 0.2, seed: 11 }
    const config: SweepConfig = { model: 'recsys', ...common, strategy: 'asha', trials: 1, fixed }
    const table = await new DataCache({ workers: 0 }).load(config, () => {})
    const out = await createTrialRunner({ config, data: table, best: {} }).run(
      { id: 0, config: {}, resource: 2, bracket: 0, rung: 0 },
      () => 'stop',
      new AbortController().signal,
    )
    const params = out.params!
    expect(params).toMatchObject({ ...fixed, epochs: 1 })
    expect(params.eval_every).toBeGreaterThan(0) // the trial's own: the default (100) is not what it evaluated at
    const trained = (await runTraining({ model: 'recsys', ...common, params, backend: 'cpu', workers: 0 })) as {
      model: Uint8Array
    }
    // Weights, optimizer state and loop state byte for byte; the file's header keeps the budget
    // the trial was asked for (epochs 2; loop.epoch says 1 was done), which resumes it there.
    const split = (b: Uint8Array) => {
      const n = new DataView(b.buffer, b.byteOffset).getUint32(8, true)
      return { head: JSON.parse(new TextDecoder().decode(b.subarray(12, 12 + n))), rest: b.subarray(12 + n) }
    }
    const kept = split(fromBase64(out.artifacts!.model!)),
      again = split(trained.model)
    expect(Buffer.from(kept.rest).equals(Buffer.from(again.rest))).toBe(true)
    expect(kept.head.params.epochs).toBe(2)
    expect({ ...kept.head, params: { ...kept.head.params, epochs: 1 } }).toEqual(again.head)
  }, 180_000)
})

/** A metrics row without wall-clock fields (they differ between any two runs). */
function stripWall(row: Record<string, number>): Record<string, number> {
  const { elapsed_seconds: _e, ...rest } = row
  return rest
}
