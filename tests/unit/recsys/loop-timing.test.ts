/** The training loop's time split (train-loop.ts LoopTiming) on the CPU reference with a slow, in-memory source. */
import { describe, expect, test } from 'vitest'
import type { Cursor } from '../../../src/data/types.ts'
import { createRefBackend, RefBackend, type BackendTiming } from '../../../src/models/recsys/backend.ts'
import { initOptimizerState, initWeights } from '../../../src/models/recsys/init.ts'
import type { EpochStream } from '../../../src/models/recsys/data.ts'
import { parseRecsysParams } from '../../../src/models/recsys/params.ts'
import { addTiming, trainLoop, zeroTiming } from '../../../src/models/recsys/train-loop.ts'
import type { ModelBatch, ModelShape, StepLr } from '../../../src/models/recsys/types.ts'
import { Rng } from '../../../src/util/rng.ts'

const SHAPE: ModelShape = { sparse: 2, dim: 4, totalRows: 20, dense: 3, layers: [8] }

function batch(rng: Rng, n: number): ModelBatch {
  return {
    n,
    rows: Uint32Array.from({ length: 2 * n }, (_, k) => (k % 2 ? 7 + rng.int(13) : rng.int(7))),
    dense: rng.floats(3 * n),
    labels: Float32Array.from({ length: n }, () => rng.int(2)),
  }
}

/** `steps` batches, each delivered `delayMs` late, reporting `featurizeMs` of featurize per batch. */
function slowSource(steps: number, delayMs: number, featurizeMs: number) {
  const rng = new Rng(5)
  const batches = Array.from({ length: steps }, () => batch(rng, 16))
  return {
    stepsPerEpoch: steps,
    open: (): EpochStream => {
      let taken = 0
      return {
        batches: async function* () {
          for (const b of batches) {
            await new Promise(r => setTimeout(r, delayMs))
            taken++
            yield b
          }
        },
        cursor: () => ({}) as Cursor,
        close: async () => {},
        featurizeMs: () => taken * featurizeMs,
      }
    },
  }
}

/** The CPU reference with GPU-like step counters: each step adds 2 ms upload, 5 ms wait, 7 ms GPU. */
class CountingBackend extends RefBackend {
  private readonly counters: Required<BackendTiming> = { uploadMs: 100, waitMs: 50, gpuMs: 1000 }

  timing(): BackendTiming {
    return { ...this.counters }
  }

  async step(b: ModelBatch, lr: StepLr): Promise<void> {
    this.counters.uploadMs += 2
    this.counters.waitMs += 5
    this.counters.gpuMs += 7
    await super.step(b, lr)
  }
}

describe('recsys training loop: time split', () => {
  test('input wait, featurize, steps and evaluation are timed and fit in the loop wall time', async () => {
    const params = parseRecsysParams({ epochs: 1, batch_size: 16, embedding_dim: 4, layers: [8], eval_every: 2 })
    const backend = createRefBackend(SHAPE, params)
    const valid = batch(new Rng(9), 64)
    const r = await trainLoop({ params, backend, source: slowSource(6, 20, 3), valid })
    const t = r.timing
    expect(r.metrics).toHaveLength(3)
    // 6 batches, each 20 ms late (timers may fire a little early or late): most of it is input wait.
    expect(t.input_wait_s).toBeGreaterThan(0.09)
    expect(t.featurize_s).toBeCloseTo(6 * 0.003, 9)
    expect(t.step_s).toBeGreaterThan(0)
    expect(t.eval_s).toBeGreaterThan(0)
    expect(t.readback_s).toBeGreaterThanOrEqual(0)
    expect(t.input_wait_s + t.step_s + t.eval_s + t.readback_s).toBeLessThanOrEqual(t.loop_s + 1e-9)
    // The CPU reference has no step counters: no uploads, no GPU.
    expect(t.upload_s).toBe(0)
    expect(t.gpu_wait_s).toBe(0)
    expect(t.gpu_s).toBeUndefined()
  })

  test("a backend's counters are taken as differences over the loop; without validation rows eval_s is 0", async () => {
    const params = parseRecsysParams({ epochs: 1, batch_size: 16, embedding_dim: 4, layers: [8], eval_every: 3 })
    const backend = new CountingBackend(SHAPE, params, {
      weights: initWeights(SHAPE, 1),
      opt: initOptimizerState(SHAPE, params),
    })
    const r = await trainLoop({ params, backend, source: slowSource(3, 0, 0) })
    expect(r.timing.upload_s).toBeCloseTo(0.006, 9)
    expect(r.timing.gpu_wait_s).toBeCloseTo(0.015, 9)
    expect(r.timing.gpu_s).toBeCloseTo(0.021, 9)
    expect(r.timing.eval_s).toBe(0)
  })

  test('addTiming sums field by field, gpu_s only where a side has it', () => {
    const a = { ...zeroTiming(), loop_s: 1, eval_s: 0.5 }
    const b = { ...zeroTiming(), loop_s: 2, step_s: 1, gpu_s: 0.25 }
    expect(addTiming(a, b)).toMatchObject({ loop_s: 3, eval_s: 0.5, step_s: 1, gpu_s: 0.25 })
    expect(addTiming(a, a).gpu_s).toBeUndefined()
  })
})
