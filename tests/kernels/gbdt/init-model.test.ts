/**
 * Continued training on the GPU backend: margins start from the model's (uploaded per row chunk),
 * so 3 rounds continued by 2 give the model of one 5-round run, also with the rows in chunks.
 */
import { describe, expect, test } from 'vitest'
import { train } from '../../../src/models/gbdt/driver.ts'
import { createGpuBackend, type GpuBackendOptions } from '../../../src/models/gbdt/gpu-backend.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { fromXGBoostJson, toXGBoostJsonString } from '../../../src/models/gbdt/xgboost-json.ts'
import type { Booster } from '../../../src/models/gbdt/types.ts'
import { checked, gpuCache } from './setup.ts'
import { gbdtData } from './gpu-backend-data.ts'

const data = gbdtData(600, 4, 8, 0.1, 'binary')
const params = { max_depth: 3, subsample: 0.8, colsample_bynode: 0.8, eval_metric: ['logloss'], seed: 3 }

async function gpuTrain(rounds: number, initModel?: Booster, opts: GpuBackendOptions = {}): Promise<Booster> {
  const cache = await gpuCache()
  return checked(cache.device, () =>
    train(data, parseParams({ ...params, num_round: rounds }), createGpuBackend(cache.device, cache, opts), {
      initModel,
    }),
  )
}

describe('continued training on the GPU backend', () => {
  test('3 + 2 rounds equal one 5-round run (whole and chunked rows)', async () => {
    const want = toXGBoostJsonString(await gpuTrain(5))
    const first = fromXGBoostJson(toXGBoostJsonString(await gpuTrain(3)))
    expect(toXGBoostJsonString(await gpuTrain(2, first))).toBe(want)
    expect(toXGBoostJsonString(await gpuTrain(2, first, { maxBindingBytes: 2048 }))).toBe(want)
  })
})
