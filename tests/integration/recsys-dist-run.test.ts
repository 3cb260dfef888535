/**
 * `ranks` in a whole recommender run (train-run.ts → dist-run.ts), CPU reference in Node: R
 * in-thread ranks on global batches of R × B rows give the model of one rank with batch R × B
 * (same rows, same order) within float tolerance; the summary reports the collectives; the lr
 * scaling rule changes the result; a bad rank count names the parameter.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { join } from 'node:path'
import { serveDirectory, type ServedDirectory } from '../../src/serve/server.ts'
import { PROJECT_ROOT } from '../../src/serve/page-server.ts'
import { stateTensors, decodeCheckpoint } from '../../src/models/recsys/checkpoint.ts'
import { lrScale, scaledParams } from '../../src/models/recsys/ranks.ts'
import { parseRecsysParams } from '../../src/models/recsys/params.ts'
import { runTraining } from '../../src/run/pipeline.ts'
import type { RecsysTrainConfig, RecsysTrainResult } from '../../src/models/recsys/family.ts'

const runRecsysTraining = async (c: RecsysTrainConfig): Promise<RecsysTrainResult> =>
  (await runTraining(c)) as RecsysTrainResult
import { compareArrays, describeMismatch } from '../../src/util/tolerance.ts'

let server: ServedDirectory
beforeAll(async () => {
  server = await serveDirectory(join(PROJECT_ROOT, 'public', 'tables'))
})
afterAll(async () => {
  await server?.close()
})

/** Marketing's columns without nulls in string columns (the recommender hashes strings; a null id is refused). */
const FEATURES = [
  'age',
  'marital',
  'default',
  'balance',
  'housing',
  'loan',
  'day',
  'month',
  'duration',
  'campaign',
  'previous',
  'euribor3m',
]
const PARAMS = { epochs: 1, batch_size: 64, layers: [8], embedding_dim: 4, eval_every: 1000, lr: 0.01, seed: 3 }

function config(ranks: number, params: Record<string, unknown>): RecsysTrainConfig {
  return {
    model: 'recsys',
    table: `${server.url}marketing/`,
    label: 'y',
    features: FEATURES,
    filter: 'age < 26',
    validFraction: 0.2,
    backend: 'cpu',
    workers: 0,
    ranks,
    params,
  }
}

describe('lr scaling rules', () => {
  test('none / linear / sqrt factors, and scaledParams scales lr and embedding_lr only', () => {
    expect([lrScale('none', 4), lrScale('linear', 4), lrScale('sqrt', 4)]).toEqual([1, 4, 2])
    const p = parseRecsysParams({ lr: 0.01, embedding_lr: 0.1, lr_scaling: 'linear', warmup_steps: 5 })
    const s = scaledParams(p, 2)
    expect([s.lr, s.embedding_lr, s.warmup_steps, s.batch_size]).toEqual([0.02, 0.2, 5, p.batch_size])
    expect(() => parseRecsysParams({ lr_scaling: 'cubic' })).toThrow(
      /lr_scaling must be one of 'none', 'linear', 'sqrt'/,
    )
  })
})

describe('runRecsysTraining with ranks (CPU reference, in-thread group)', () => {
  test('R = 2 with batch 64 ≈ R = 1 with batch 128 on the same table; summary has the collectives', async () => {
    const two = await runRecsysTraining(config(2, PARAMS))
    const one = await runRecsysTraining(config(1, { ...PARAMS, batch_size: 128 }))
    expect(two.summary.steps).toBe(one.summary.steps)
    expect(two.summary.ranks).toBe(2)
    const allreduce = two.summary.collectives!.find(s => s.op === 'allreduce')!
    expect(allreduce.calls).toBe(two.summary.steps)
    const a = decodeCheckpoint(two.model),
      b = decodeCheckpoint(one.model)
    expect(a.params.batch_size).toBe(64) // the per-rank batch is what the model file records
    const bt = Object.fromEntries(stateTensors(b.shape, b.state))
    const bad = stateTensors(a.shape, a.state)
      .map(([name, t]) => [name, compareArrays(t, bt[name], 1e-5, 1e-3)] as const)
      .filter(([, r]) => !r.ok)
    expect(bad.map(([name, r]) => `${name}: ${describeMismatch(r)}`)).toEqual([])
    expect(two.summary.auc).toBeCloseTo(one.summary.auc!, 3)
  })

  test('lr_scaling linear trains a different model than none; ranks 0 is refused naming ranks', async () => {
    const none = await runRecsysTraining(config(2, PARAMS))
    const linear = await runRecsysTraining(config(2, { ...PARAMS, lr_scaling: 'linear', warmup_steps: 2 }))
    const w0 = (r: typeof none): Float32Array => decodeCheckpoint(r.model).state.weights.dense[0]
    expect(compareArrays(w0(linear), w0(none), 1e-4, 1e-3).ok).toBe(false)
    await expect(runRecsysTraining(config(0, PARAMS))).rejects.toThrow(/ranks must be an integer in \[1, 64\], got 0/)
  })
})
