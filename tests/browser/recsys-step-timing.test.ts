/** The GPU model's step counters (uploads, GPU waits, timestamp-query GPU time) and its default matmul kernels. */
import { describe, expect, test } from 'vitest'
import { initOptimizerState, initWeights } from '../../src/models/recsys/init.ts'
import { defaultMatmul, GpuModel } from '../../src/models/recsys/model-gpu.ts'
import { parseRecsysParams } from '../../src/models/recsys/params.ts'
import type { ModelBatch, ModelShape } from '../../src/models/recsys/types.ts'
import { Rng } from '../../src/util/rng.ts'
import { checked, gpuCache } from '../kernels/bench/setup.ts'

const SHAPE: ModelShape = { sparse: 2, dim: 4, totalRows: 20, dense: 3, layers: [8, 4] }

function batch(rng: Rng, n: number): ModelBatch {
  return {
    n,
    rows: Uint32Array.from({ length: 2 * n }, (_, k) => (k % 2 ? 7 + rng.int(13) : rng.int(7))),
    dense: rng.floats(3 * n),
    labels: Float32Array.from({ length: n }, () => rng.int(2)),
  }
}

describe('GpuModel step timing', () => {
  test('counters grow with the steps; GPU time is read back with the losses (timestamp queries)', async () => {
    const cache = await gpuCache()
    const p = parseRecsysParams({ batch_size: 16, layers: [8, 4], embedding_dim: 4, eval_every: 4 })
    const gpu = await GpuModel.create(cache, SHAPE, p, {
      weights: initWeights(SHAPE, 1),
      opt: initOptimizerState(SHAPE, p),
    })
    try {
      const rng = new Rng(2)
      const before = gpu.timing()
      await checked(cache.device, async () => {
        for (let i = 0; i < 6; i++) await gpu.step(batch(rng, 16), { dense: 1e-3, embedding: 1e-2 })
      })
      const mid = gpu.timing()
      expect(mid.uploadMs).toBeGreaterThan(before.uploadMs)
      expect(mid.waitMs).toBeGreaterThanOrEqual(before.waitMs)
      expect(await checked(cache.device, () => gpu.takeLosses())).toHaveLength(6)
      const after = gpu.timing()
      if (cache.device.features.has('timestamp-query')) {
        // Slots fill up at eval_every = 4 (a drain inside step 5) and the rest at takeLosses: all 6 steps timed.
        expect(after.gpuMs).toBeGreaterThan(before.gpuMs ?? 0)
      } else expect(after.gpuMs).toBeUndefined()
    } finally {
      gpu.destroy()
    }
  })

  test('the default matmul kernels: naive on a software adapter, tiled on a GPU and where the adapter is unknown', () => {
    const device = (info: Partial<GPUAdapterInfo> & { isFallbackAdapter?: boolean }): GPUDevice =>
      ({ adapterInfo: { vendor: '', architecture: '', description: '', ...info } }) as unknown as GPUDevice
    expect(defaultMatmul(device({ vendor: 'google', architecture: 'swiftshader' }))).toBe('naive')
    expect(defaultMatmul(device({ vendor: 'mesa', description: 'llvmpipe (LLVM 15.0.6, 256 bits)' }))).toBe('naive')
    expect(defaultMatmul(device({ vendor: 'x', isFallbackAdapter: true }))).toBe('naive')
    expect(defaultMatmul(device({ vendor: 'nvidia', architecture: 'hopper' }))).toBe('tiled')
    expect(defaultMatmul({} as GPUDevice)).toBe('tiled') // no adapterInfo: as before
  })
})
