/**
 * Ranking on the GPU backend: the gradient pairs are computed on the host from the margins read
 * back (BackendSetup.hostGradients, rank-objective.ts) and uploaded per row chunk. The model equals
 * the CPU backend's byte for byte (XGBoost JSON), whole and chunked (a tiny binding limit: several
 * row chunks, each written at its own offset); and the hand-off's share of a round is measured
 * (profiled stages) on a ~50k-row ranking table, printed, not asserted.
 */
import { expect, test } from 'vitest'
import { train } from '../../../src/models/gbdt/driver.ts'
import { createCpuBackend } from '../../../src/models/gbdt/cpu-backend.ts'
import { createGpuBackend, type GpuBackendOptions } from '../../../src/models/gbdt/gpu-backend.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { toXGBoostJsonString } from '../../../src/models/gbdt/xgboost-json.ts'
import type { StageTimes } from '../../../src/gpu/recorder.ts'
import { checked, gpuCache } from './setup.ts'
import { makeRanking } from '../../unit/gbdt/ranking-data.ts'

const PARAMS = {
  objective: 'rank:ndcg',
  max_depth: 4,
  num_round: 4,
  subsample: 0.8,
  max_bin: 32,
  seed: 3,
  eval_metric: ['ndcg@5', 'map@5'],
}

async function gpuModel(
  raw: Record<string, unknown>,
  opts: GpuBackendOptions,
  data = makeRanking(50, 4, 3, 14, 12).data,
) {
  const cache = await gpuCache()
  const b = await checked(cache.device, () =>
    train(data, parseParams(raw), createGpuBackend(cache.device, cache, { histogramKernel: 'storage', ...opts })),
  )
  return toXGBoostJsonString(b)
}

test('rank:ndcg / rank:map on the GPU = the CPU backend, byte for byte, whole and in row chunks', async () => {
  const { data } = makeRanking(50, 4, 3, 14, 12)
  const want = toXGBoostJsonString(await train(data, parseParams(PARAMS), createCpuBackend))
  expect(await gpuModel(PARAMS, {}, data)).toBe(want)
  expect(await gpuModel(PARAMS, { maxBindingBytes: 1024 }, data)).toBe(want)
  const binary = { ...data, labels: data.labels.map(y => (y >= 3 ? 1 : 0)) }
  binary.valid = { ...data.valid!, labels: data.valid!.labels.map(y => (y >= 3 ? 1 : 0)) }
  const map = { ...PARAMS, objective: 'rank:map', lambdarank_pair_method: 'mean' }
  expect(await gpuModel(map, {}, binary)).toBe(toXGBoostJsonString(await train(binary, parseParams(map))))
}, 120_000)

test('the host gradient hand-off: its share of a round on ~50k rows (measured, printed)', async () => {
  // ~50k rows: 2,400 queries of 2…40 documents, 8 features.
  const { data } = makeRanking(2400, 8, 17, 40)
  const profile: StageTimes = {}
  const raw = { objective: 'rank:ndcg', max_depth: 6, num_round: 3, seed: 1, eval_metric: [] }
  const cache = await gpuCache()
  await checked(cache.device, () =>
    train(
      { ...data, valid: undefined },
      parseParams({ ...raw, eval_metric: 'ndcg' }),
      createGpuBackend(cache.device, cache, { histogramKernel: 'storage', profile }),
    ),
  )
  const total = Object.values(profile).reduce((a, b) => a + b, 0)
  const host = profile['host gradient'] ?? 0
  expect(host).toBeGreaterThan(0)
  console.log(
    `rank:ndcg host gradients, ${data.labels.length} rows, ${data.groups!.length - 1} queries: ` +
      `${(host / 3).toFixed(1)} ms/round = ${((100 * host) / total).toFixed(1)}% of the round; stages ` +
      JSON.stringify(Object.fromEntries(Object.entries(profile).map(([k, v]) => [k, Math.round(v)]))),
  )
}, 120_000)
