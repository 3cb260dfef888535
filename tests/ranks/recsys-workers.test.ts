/**
 * The recommender across real rank workers (each with its own GPUDevice, collectives over
 * MessageChannels): R = 2 with per-rank batch B matches one GpuModel with batch 2B after 10
 * steps, with no worker left running. (The whole `--ranks` run through the 'recsys' rank job
 * reads a table, which the vitest dev server cannot serve to workers — its SPA fallback answers
 * missing Delta files with index.html — so that path runs through the CLI: `snaptrain train
 * --ranks 2` and `snaptrain bench --suite scaleout`.)
 */
import { afterEach, describe, expect, test } from 'vitest'
import { liveRankWorkers, runRanks } from '../../src/ranks/index.ts'
import type { RecsysStepsConfig, RecsysStepsResult } from '../../src/models/recsys/dist-steps.ts'
import { GpuModel } from '../../src/models/recsys/model-gpu.ts'
import { parseRecsysParams } from '../../src/models/recsys/params.ts'
import { Rng } from '../../src/util/rng.ts'
import { checked, gpuCache } from '../kernels/bench/setup.ts'
import { DIST_SHAPE, maxStateDiff, randomBatch, startState, stateMismatches } from '../unit/recsys-dist.fixtures.ts'

/** As the in-thread GPU test: regrouped sums plus the GPU's ulps over 10 Adam steps. */
const ATOL = 1e-6,
  RTOL = 1e-4

afterEach(() => expect(liveRankWorkers()).toBe(0))

describe('recommender across rank workers', () => {
  test('R = 2 workers with B = 8 match one GpuModel with batch 16 after 10 steps', async () => {
    const p = parseRecsysParams({
      batch_size: 8,
      layers: [8, 4],
      embedding_dim: 4,
      lr: 0.01,
      embedding_lr: 0.1,
      eval_every: 10,
    })
    const rng = new Rng(21)
    const batches = [...Array.from({ length: 9 }, () => randomBatch(rng, 16)), randomBatch(rng, 11)]
    const lrs = batches.map((_, k) => ({ dense: p.lr * Math.min(1, (k + 1) / 4), embedding: p.embedding_lr }))
    const config: RecsysStepsConfig = { shape: DIST_SHAPE, params: p, state: startState(p, 9), batches, lrs }
    const run = await runRanks<RecsysStepsResult, RecsysStepsConfig>(2, 'recsys-steps', config)
    const cache = await gpuCache()
    const single = await GpuModel.create(cache, DIST_SHAPE, p, startState(p, 9), { maxBatch: 16 })
    try {
      for (const [k, b] of batches.entries()) await checked(cache.device, () => single.step(b, lrs[k]))
      const want = await single.exportState(),
        got = run.results[0].state!
      console.log(
        `recsys workers vs single: max |Δstate| ${maxStateDiff(got, want).toExponential(2)}; collectives ${JSON.stringify(run.stats[0])}`,
      )
      expect(stateMismatches(got, want, ATOL, RTOL)).toEqual([])
      const losses = await single.takeLosses()
      run.results[0].losses.forEach((l, k) => expect(l).toBeCloseTo(losses[k], 4))
      expect(run.results[1].losses).toEqual(run.results[0].losses)
      expect(run.stats[0].find(s => s.op === 'allreduce')?.calls).toBe(10)
    } finally {
      single.destroy()
    }
  })
})
