/**
 * Pipelines compiled ahead (PipelineCache.prepare, what the driver's warm-up does while a table
 * loads): the GBDT backend's list (backendPipelines) is exactly what a training run then uses, so
 * the run compiles nothing more and nothing warmed goes unused, with and without validation rows;
 * on a fallback adapter (this machine's SwiftShader) the histogram choice compiles nothing and no
 * histogram_build_wg pipeline is ever made. A multiclass run (K = 3, trained on a fresh cache) compiles
 * exactly its own list (softmax_gradient, histogram_build_classes; no gradient, binary builds or
 * predict), which its warm-up then finds compiled. N = 600 rows, F = 6, 2 rounds of depth 3. The
 * recommender's (warmGpuModel, from the columns' kinds alone) are exactly what its steps,
 * evaluations and divergence scan use: an MLP, and a DCN with a bag feature and rowwise Adam.
 */
import { describe, expect, test } from 'vitest'
import { requestDevice } from '../../src/gpu/device.ts'
import { PipelineCache, pipelineKey } from '../../src/gpu/pipeline-cache.ts'
import { chooseHistogramKernel, fallbackAdapter } from '../../src/kernels/gbdt/histogram_choice.ts'
import { train } from '../../src/models/gbdt/driver.ts'
import { backendPipelines, createGpuBackend, warmGpuBackend } from '../../src/models/gbdt/gpu-backend.ts'
import { mergeConstants } from '../../src/kernels/runner.ts'
import { parseParams } from '../../src/models/gbdt/params.ts'
import { warmGpuModel } from '../../src/models/recsys/gpu-warm.ts'
import { initOptimizerState, initWeights } from '../../src/models/recsys/init.ts'
import { modelShapeOf } from '../../src/models/recsys/layout.ts'
import { GpuModel } from '../../src/models/recsys/model-gpu.ts'
import { parseRecsysParams } from '../../src/models/recsys/params.ts'
import type { ModelBatch } from '../../src/models/recsys/types.ts'
import { Rng } from '../../src/util/rng.ts'
import { checked } from '../kernels/bench/setup.ts'
import { gbdtData } from '../kernels/gbdt/gpu-backend-data.ts'

const DATA = gbdtData(600, 6, 4, 0.1, 'binary')
const PARAMS = parseParams({ num_round: 2, max_depth: 3, eval_metric: ['auc'] })

/** A fresh device and an empty cache on it. */
async function freshCache(): Promise<PipelineCache> {
  const { device } = await requestDevice()
  return new PipelineCache(device)
}

describe('GBDT pipelines compiled ahead', () => {
  for (const valid of [true, false]) {
    test(`a run ${valid ? 'with' : 'without'} validation rows uses exactly the warmed pipelines`, async () => {
      const cache = await freshCache()
      try {
        await checked(cache.device, () => warmGpuBackend(cache, valid))
        expect(cache.pending).toBe(0)
        const warmed = cache.keys()
        expect(warmed.length).toBeGreaterThan(0)
        const data = valid ? DATA : { ...DATA, valid: undefined }
        await checked(cache.device, () => train(data, PARAMS, createGpuBackend(cache.device, cache)))
        expect(cache.keys().sort()).toEqual([...warmed].sort())
        expect(warmed.some(k => k.startsWith('predict:'))).toBe(valid)
        if (fallbackAdapter(cache.device)) expect(warmed.filter(k => k.startsWith('histogram_build_wg'))).toEqual([])
      } finally {
        cache.device.destroy()
      }
    }, 60_000)
  }

  test('a multiclass run (K = 3) compiles exactly its list: softmax_gradient, histogram_build_classes, no predict', async () => {
    const cache = await freshCache()
    try {
      // Three classes from the regression score's thirds.
      const reg = gbdtData(600, 6, 4, 0.1, 'regression')
      const classOf = (y: number) => (y < -0.3 ? 0 : y < 0.6 ? 1 : 2)
      const data = {
        ...reg,
        labels: reg.labels.map(classOf),
        valid: { ...reg.valid!, labels: reg.valid!.labels.map(classOf) },
      }
      const params = parseParams({ objective: 'multi:softprob', num_class: 3, num_round: 2, max_depth: 3 })
      // The histogram choice first (a real adapter compiles and times its candidates; a fallback one nothing),
      // then the run without warm-up: what it adds to the cache is what it compiles, no more.
      const kernel = await chooseHistogramKernel(cache)
      const chosen = cache.keys()
      const booster = await checked(cache.device, () => train(data, params, createGpuBackend(cache.device, cache)))
      expect(booster.trees).toHaveLength(6)
      const used = cache.keys().sort()
      const listed = [...backendPipelines(undefined, true, true), ...backendPipelines(kernel, true, true)]
      const keys = listed.map(([spec, c]) => pipelineKey(spec, mergeConstants(spec.overrides, c)))
      expect(used).toEqual([...new Set([...chosen, ...keys])].sort())
      // The warm-up compiles that list: nothing the run did not.
      await checked(cache.device, () => warmGpuBackend(cache, true, true))
      expect(cache.keys().sort()).toEqual(used)
      const names = new Set(used.filter(k => !chosen.includes(k)).map(k => k.split(':')[0]))
      expect(names.has('softmax_gradient') && names.has('histogram_build_classes')).toBe(true)
      expect(['gradient', 'histogram_build', 'histogram_build_rows', 'predict'].some(n => names.has(n))).toBe(false)
    } finally {
      cache.device.destroy()
    }
  }, 60_000)

  test("on this machine's (fallback) adapter the histogram choice compiles and times nothing", async () => {
    const cache = await freshCache()
    try {
      expect(fallbackAdapter(cache.device)).toBe(true)
      expect(await chooseHistogramKernel(cache)).toBe('storage')
      expect(cache.size).toBe(0)
    } finally {
      cache.device.destroy()
    }
  }, 60_000)
})

describe('recommender pipelines compiled ahead', () => {
  const cases = [
    { name: 'an MLP', params: {}, bags: 0 },
    {
      name: 'a DCN with a bag feature and rowwise Adam',
      params: { architecture: 'dcn', cross_rank: 2, embedding_optimizer: 'rowwise_adam' },
      bags: 1,
    },
  ]
  for (const c of cases) {
    test(`${c.name}: steps, evaluation and the divergence scan use exactly the warmed pipelines`, async () => {
      const cache = await freshCache()
      const p = parseRecsysParams({ batch_size: 16, layers: [8, 4], embedding_dim: 4, ...c.params })
      const kinds = { sparse: ['a', 'b'], dense: ['x', 'y', 'z'], lists: [], bags: c.bags ? ['tags'] : [] }
      const shape = modelShapeOf(
        { sparse: kinds.sparse, bags: c.bags ? [{ pooling: 'sum' }] : [], totalRows: 20 + 10 * c.bags, denseInputs: 3 },
        p,
      )
      try {
        await checked(cache.device, () => warmGpuModel(cache, kinds, p))
        const warmed = cache.keys()
        const gpu = await GpuModel.create(cache, shape, p, {
          weights: initWeights(shape, 1),
          opt: initOptimizerState(shape, p),
        })
        const rng = new Rng(2)
        const batch = (n: number): ModelBatch => ({
          n,
          rows: Uint32Array.from({ length: 2 * n }, (_, k) => (k % 2 ? 7 + rng.int(13) : rng.int(7))),
          dense: rng.floats(3 * n),
          labels: Float32Array.from({ length: n }, () => rng.int(2)),
          ...(c.bags
            ? {
                bagRows: Uint32Array.from({ length: n }, () => 20 + rng.int(10)),
                bagOffsets: Uint32Array.from({ length: n + 1 }, (_, i) => i),
              }
            : {}),
        })
        await checked(cache.device, async () => {
          for (let i = 0; i < 2; i++) await gpu.step(batch(16), { dense: 1e-3, embedding: 1e-2 })
          await gpu.takeLosses()
          await gpu.predict(batch(5))
          expect(await gpu.nonFiniteTensors()).toEqual([])
        })
        gpu.destroy()
        expect(cache.keys().sort()).toEqual([...warmed].sort())
      } finally {
        cache.device.destroy()
      }
    }, 60_000)
  }
})
