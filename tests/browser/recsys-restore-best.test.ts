/**
 * The GPU model's restore_best (on-device shadow copies, model-gpu.ts WeightShadow) and on-device divergence
 * scan (nonfinite_count, model-gpu.ts) through trainLoop, on tiny shapes.
 */
import { describe, expect, test } from 'vitest'
import { auc } from '../../src/eval/metrics.ts'
import type { ModelState } from '../../src/models/recsys/backend.ts'
import { initOptimizerState, initWeights } from '../../src/models/recsys/init.ts'
import { GpuModel } from '../../src/models/recsys/model-gpu.ts'
import { parseRecsysParams } from '../../src/models/recsys/params.ts'
import { predictAll, trainLoop } from '../../src/models/recsys/train-loop.ts'
import type { ModelBatch, ModelShape, RecsysParams } from '../../src/models/recsys/types.ts'
import { Rng } from '../../src/util/rng.ts'
import { checked, gpuCache } from '../kernels/bench/setup.ts'
import { memorySource } from '../support/memory-source.ts'

/** S = 2, D = 4, R = 20 (tables of 7 and 13 rows), 3 dense inputs, layers [8, 4]. */
const SHAPE: ModelShape = { sparse: 2, dim: 4, totalRows: 20, dense: 3, layers: [8, 4] }

/** Rows whose label depends weakly on the first table's row (learnable, noisy). */
function batchOf(rng: Rng, n: number): ModelBatch {
  const rows = new Uint32Array(n * 2),
    labels = new Float32Array(n)
  for (let b = 0; b < n; b++) {
    rows[2 * b] = rng.int(7)
    rows[2 * b + 1] = 7 + rng.int(13)
    labels[b] = rng.next() < 0.2 + 0.08 * rows[2 * b] ? 1 : 0
  }
  return { n, rows, dense: rng.floats(n * 3), labels }
}

function startState(p: RecsysParams, shape = SHAPE): ModelState {
  return { weights: initWeights(shape, 4), opt: initOptimizerState(shape, p) }
}

describe('GPU recommender: restore_best and the on-device divergence scan', () => {
  test("early stopping ends on the best evaluation's weights: validation AUC of the returned model = best AUC", async () => {
    // A high lr makes validation AUC move around, so a later evaluation is worse than the best.
    const p = parseRecsysParams({
      epochs: 8,
      batch_size: 16,
      layers: [8, 4],
      embedding_dim: 4,
      eval_every: 1,
      early_stopping_rounds: 3,
      lr: 0.05,
      embedding_lr: 0.5,
    })
    const rng = new Rng(8)
    const source = memorySource(
      Array.from({ length: 6 }, () => batchOf(rng, 16)),
      SHAPE,
    )
    const valid = batchOf(rng, 200)
    const cache = await gpuCache()
    const gpu = await GpuModel.create(cache, SHAPE, p, startState(p))
    try {
      const r = await checked(cache.device, () => trainLoop({ params: p, backend: gpu, source, valid }))
      const aucs = r.metrics.map(m => m.validAuc!)
      console.log(
        `GPU restore_best: AUCs ${aucs.map(a => a.toFixed(4)).join(' ')}; best ${r.state.bestAuc} at step ${r.state.bestStep}`,
      )
      expect(r.stoppedEarly).toBe(true)
      expect(aucs.at(-1)!).toBeLessThan(r.state.bestAuc!)
      expect(r.restored?.step).toBe(r.state.bestStep)
      expect(auc(await predictAll(gpu, valid), valid.labels)).toBe(r.state.bestAuc)
      // The checkpoint-side copy holds the same weights the model now has.
      const kept = (await gpu.keptWeights())!,
        now = (await gpu.exportState()).weights
      expect([...kept.embeddings]).toEqual([...now.embeddings])
      now.dense.forEach((t, i) => expect([...kept.dense[i]], `dense ${i}`).toEqual([...t]))
    } finally {
      gpu.destroy()
    }
  })

  test.each(['adagrad', 'rowwise_adam'] as const)(
    'a diverging embedding_lr (%s, 3e38) stops naming the embedding table',
    async opt => {
      const p = parseRecsysParams({
        epochs: 1,
        batch_size: 16,
        layers: [8, 4],
        embedding_dim: 4,
        eval_every: 4,
        embedding_optimizer: opt,
        embedding_lr: 3e38,
      })
      const rng = new Rng(9)
      const source = memorySource(
        Array.from({ length: 8 }, () => batchOf(rng, 16)),
        SHAPE,
      )
      const cache = await gpuCache()
      const gpu = await GpuModel.create(cache, SHAPE, p, startState(p))
      try {
        await expect(trainLoop({ params: p, backend: gpu, source })).rejects.toThrow(
          /diverged: .*embedding table 'embeddings' has NaN\/infinite values \(checked at step 4\).*embedding_lr = 3e\+38/,
        )
      } finally {
        gpu.destroy()
      }
    },
  )

  test('cost on a clicks-sized table (R = 193 186 × D = 16, 12.4 MB): shadow copy vs read-back; scan finds one NaN', async () => {
    const shape: ModelShape = { sparse: 8, dim: 16, totalRows: 193_186, dense: 19, layers: [64, 32] }
    const p = parseRecsysParams({ batch_size: 64, layers: [64, 32], embedding_dim: 16 })
    const cache = await gpuCache()
    const state = startState(p, shape)
    const gpu = await GpuModel.create(cache, shape, p, state)
    try {
      expect(await gpu.firstNonFinite()).toBeUndefined()
      const ms = async (f: () => Promise<unknown>): Promise<number> => {
        const t = performance.now()
        await f()
        return performance.now() - t
      }
      await gpu.keepWeights() // allocation + first copy
      const save = await ms(async () => {
        await gpu.keepWeights()
        await cache.device.queue.onSubmittedWorkDone()
      })
      const readBack = await ms(() => gpu.exportState())
      const scan = await ms(() => gpu.firstNonFinite()) // the first call above compiled the pipeline
      console.log(
        `restore_best cost, R·D = ${shape.totalRows * 16} floats: on-device save ${save.toFixed(1)} ms; exportState read-back ${readBack.toFixed(1)} ms; nonfinite scan of all weights ${scan.toFixed(1)} ms`,
      )
      state.weights.embeddings[shape.totalRows * 16 - 1] = Number.NaN
      await gpu.importState(state)
      expect(await gpu.firstNonFinite()).toBe('embeddings')
      expect(await gpu.restoreKeptWeights()).toBe(true)
      expect(await gpu.firstNonFinite()).toBeUndefined()
    } finally {
      gpu.destroy()
    }
  })
})
