/**
 * Determinism of GPU training: histogram sums are exact fixed-point integers, so the
 * same seed gives a byte-identical XGBoost JSON model whatever the atomics' order — across runs,
 * across the two histogram kernels and across chunkings of the data.
 */
import { describe, expect, test } from 'vitest'
import { train } from '../../../src/models/gbdt/driver.ts'
import { createGpuBackend, type GpuBackendOptions } from '../../../src/models/gbdt/gpu-backend.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { toXGBoostJsonString } from '../../../src/models/gbdt/xgboost-json.ts'
import { checked, gpuCache } from './setup.ts'
import { gbdtData } from './gpu-backend-data.ts'

const data = gbdtData(2000, 6, 21, 0.1, 'binary')
const params = {
  max_depth: 4,
  num_round: 5,
  subsample: 0.8,
  colsample_bytree: 0.8,
  colsample_bynode: 0.8,
  eval_metric: ['auc', 'logloss'],
}

async function modelJson(seed: number, opts: GpuBackendOptions = {}): Promise<string> {
  const cache = await gpuCache()
  const b = await checked(cache.device, () =>
    train(data, parseParams({ ...params, seed }), createGpuBackend(cache.device, cache, opts)),
  )
  return toXGBoostJsonString(b)
}

describe('GPU training is deterministic', () => {
  test('same seed ⇒ byte-identical model file; another seed ⇒ another model', async () => {
    const a = await modelJson(5)
    expect(await modelJson(5)).toBe(a)
    expect(await modelJson(6)).not.toBe(a)
  })

  test('same bytes with the workgroup histogram kernel, chunked data, a growing histogram buffer', async () => {
    const a = await modelJson(7, { histogramKernel: 'storage' })
    expect(await modelJson(7, { histogramKernel: 'workgroup' })).toBe(a)
    expect(await modelJson(7, { maxBindingBytes: 2048 })).toBe(a)
    // One slot to start with: the histogram buffer grows (GPU copy) while trees grow.
    expect(await modelJson(7, { initialSlots: 1 })).toBe(a)
  })
})
