import { describe, expect, test } from 'vitest'
import { localGroup } from '../../src/ranks/local-group.ts'
import { RanksBackend } from '../../src/models/recsys/ranks.ts'
import { RefRank } from '../../src/models/recsys/ranks.ts'
import { GpuModel } from '../../src/models/recsys/model-gpu.ts'
import { parseRecsysParams } from '../../src/models/recsys/params.ts'
import { Rng } from '../../src/util/rng.ts'
import { checked, gpuCache } from '../kernels/bench/setup.ts'
import {
  DIST_SHAPE,
  maxStateDiff,
  randomBatch,
  startState,
  stateMismatches,
  trainBoth,
} from '../unit/recsys-dist.fixtures.ts'

/**
 * GPU tolerance: the regrouped sums of the rank path (see the Node test) plus the GPU's ulps
 * (sqrt, division, exp, FMA contraction) on both sides, over 10 Adam steps.
 */
const ATOL = 1e-6,
  RTOL = 1e-4

describe('recommender across ranks on the GPU (in-thread group)', () => {
  test.each([
    ['adagrad + adam', { embedding_optimizer: 'adagrad', lr: 0.01, embedding_lr: 0.1 }],
    ['rowwise_adam + adamw', { embedding_optimizer: 'rowwise_adam', optimizer: 'adamw', weight_decay: 0.1, lr: 0.01 }],
  ] as const)('R = 2 with B = 8 matches one GpuModel with batch 16 after 10 steps (%s)', async (_, extra) => {
    const p = parseRecsysParams({ batch_size: 8, layers: [8, 4], embedding_dim: 4, eval_every: 5, ...extra })
    const rng = new Rng(11)
    const batches = [...Array.from({ length: 9 }, () => randomBatch(rng, 16)), randomBatch(rng, 13)]
    const cache = await gpuCache()
    const single = await GpuModel.create(cache, DIST_SHAPE, p, startState(p, 2), { maxBatch: 16 })
    const ranks = await Promise.all([0, 1].map(() => GpuModel.create(cache, DIST_SHAPE, p, startState(p, 2))))
    const backend = new RanksBackend(ranks, localGroup(2))
    try {
      const r = await checked(cache.device, () => trainBoth(single, backend, batches, p))
      console.log(
        `recsys GPU ranks vs single: max |Δstate| ${maxStateDiff(r.ranks, r.single).toExponential(2)}, losses ${r.ranksLoss.slice(-2).map(x => x.toFixed(6))} vs ${r.singleLoss.slice(-2).map(x => x.toFixed(6))}`,
      )
      expect(stateMismatches(r.ranks, r.single, ATOL, RTOL)).toEqual([])
      r.ranksLoss.forEach((l, k) => expect(l).toBeCloseTo(r.singleLoss[k], 4))
      const second = await ranks[1].exportState()
      expect(stateMismatches(second, r.ranks, 0, 0)).toEqual([]) // every rank applied the same update
    } finally {
      backend.destroy()
      single.destroy()
    }
  })

  test('dcn (2 low-rank cross layers): R = 2 GPU ranks match one GpuModel with batch 16 after 10 steps', async () => {
    const p = parseRecsysParams({
      batch_size: 8,
      layers: [8, 4],
      embedding_dim: 4,
      eval_every: 5,
      lr: 0.01,
      architecture: 'dcn',
      cross_layers: 2,
      cross_rank: 3,
    })
    const shape = { ...DIST_SHAPE, cross: { layers: 2, rank: 3 } }
    const rng = new Rng(13)
    const batches = [...Array.from({ length: 9 }, () => randomBatch(rng, 16)), randomBatch(rng, 13)]
    const cache = await gpuCache()
    const single = await GpuModel.create(cache, shape, p, startState(p, 2, shape), { maxBatch: 16 })
    const ranks = await Promise.all([0, 1].map(() => GpuModel.create(cache, shape, p, startState(p, 2, shape))))
    const backend = new RanksBackend(ranks, localGroup(2))
    try {
      const r = await checked(cache.device, () => trainBoth(single, backend, batches, p))
      console.log(
        `recsys dcn GPU ranks vs single: max |Δstate| ${maxStateDiff(r.ranks, r.single, shape).toExponential(2)}`,
      )
      expect(stateMismatches(r.ranks, r.single, ATOL, RTOL, shape)).toEqual([])
    } finally {
      backend.destroy()
      single.destroy()
    }
  })

  test('GPU ranks match CPU reference ranks (R = 2, 10 steps)', async () => {
    const p = parseRecsysParams({ batch_size: 8, layers: [8, 4], embedding_dim: 4, lr: 0.01, embedding_lr: 0.1 })
    const rng = new Rng(12)
    const batches = Array.from({ length: 10 }, () => randomBatch(rng, 16))
    const cache = await gpuCache()
    const gpu = new RanksBackend(
      await Promise.all([0, 1].map(() => GpuModel.create(cache, DIST_SHAPE, p, startState(p, 5)))),
      localGroup(2),
    )
    const cpu = new RanksBackend(
      [0, 1].map(() => new RefRank(DIST_SHAPE, p, startState(p, 5))),
      localGroup(2),
    )
    try {
      const r = await checked(cache.device, () => trainBoth(cpu, gpu, batches, p))
      expect(stateMismatches(r.ranks, r.single, ATOL, RTOL)).toEqual([])
    } finally {
      gpu.destroy()
    }
  })
})
