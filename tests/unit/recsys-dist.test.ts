import { describe, expect, test } from 'vitest'
import { localGroup } from '../../src/ranks/local-group.ts'
import { RefBackend } from '../../src/models/recsys/backend.ts'
import { RanksBackend, splitBatch } from '../../src/models/recsys/ranks.ts'
import { combineGradients, mergeRowGradients } from '../../src/models/recsys/ranks.ts'
import { RefRank } from '../../src/models/recsys/ranks.ts'
import { parseRecsysParams } from '../../src/models/recsys/params.ts'
import { Rng } from '../../src/util/rng.ts'
import {
  DIST_SHAPE,
  maxStateDiff,
  randomBatch,
  startState,
  stateMismatches,
  trainBoth,
} from './recsys-dist.fixtures.ts'

/**
 * Tolerance of R ranks vs one model with the R-times batch: the same f32 maths, but sums over
 * the global batch are regrouped (per rank, then across ranks in rank order), so values differ
 * by rounding, which Adam's normalisation amplifies somewhat over 10 steps.
 */
const ATOL = 1e-6,
  RTOL = 1e-4

describe('mergeRowGradients', () => {
  test('unions the touched rows and sums each row in rank order; untouched rows absent', () => {
    const parts = [
      { rows: new Uint32Array([1, 4]), dRows: new Float32Array([1, 2, 3, 4]) },
      { rows: new Uint32Array([0, 4, 9]), dRows: new Float32Array([10, 20, 30, 40, 50, 60]) },
      { rows: new Uint32Array([]), dRows: new Float32Array([]) },
    ]
    const m = mergeRowGradients(parts, 2)
    expect([...m.rows]).toEqual([0, 1, 4, 9])
    expect([...m.dRows]).toEqual([10, 20, 1, 2, 33, 44, 50, 60])
  })

  test('a part whose dRows is not U × D is refused, naming the rank', () => {
    expect(() => mergeRowGradients([{ rows: new Uint32Array([1]), dRows: new Float32Array(3) }], 2)).toThrow(
      /rank 0: dRows has 3 values/,
    )
  })
})

describe('combineGradients', () => {
  test('dense sums and row gradients are divided by the global rows; loss is the global mean', async () => {
    const [c0, c1] = localGroup(2)
    const g0 = {
      n: 3,
      lossSum: 1.5,
      dense: new Float32Array([3, 6]),
      rows: new Uint32Array([2]),
      dRows: new Float32Array([6]),
    }
    const g1 = {
      n: 1,
      lossSum: 0.5,
      dense: new Float32Array([1, 2]),
      rows: new Uint32Array([2, 5]),
      dRows: new Float32Array([2, 4]),
    }
    const [a, b] = await Promise.all([combineGradients(c0, g0, 1), combineGradients(c1, g1, 1)])
    expect(a).toEqual(b)
    expect(a.n).toBe(4)
    expect(a.loss).toBeCloseTo(0.5, 12)
    expect([...a.dense]).toEqual([1, 2])
    expect([...a.rows]).toEqual([2, 5])
    expect([...a.dRows]).toEqual([2, 1])
    expect(c0.stats().find(s => s.op === 'allreduce')?.calls).toBe(1)
  })
})

describe('splitBatch', () => {
  test('contiguous slices of ⌈N/R⌉ rows; trailing ranks may be empty', () => {
    const b = randomBatch(new Rng(1), 4)
    const parts = splitBatch(b, 3, DIST_SHAPE)
    expect(parts.map(p => p.n)).toEqual([2, 2, 0])
    expect([...parts[1].rows]).toEqual([...b.rows.slice(4, 8)])
    expect([...parts[1].labels]).toEqual([...b.labels.slice(2, 4)])
  })
})

describe('recommender across ranks (CPU reference, in-thread group) = one model with the R-times batch', () => {
  test.each([
    [
      'R = 2, adagrad + adam, global batches of 2B = 16',
      2,
      16,
      { embedding_optimizer: 'adagrad', lr: 0.01, embedding_lr: 0.1 },
    ],
    [
      'R = 2, rowwise_adam + adamw, odd global batches (ranks hold 8 and 7 rows)',
      2,
      15,
      { embedding_optimizer: 'rowwise_adam', optimizer: 'adamw', weight_decay: 0.1, lr: 0.01 },
    ],
    ['R = 3, last rank empty on a 4-row batch', 3, 4, { embedding_optimizer: 'adagrad', lr: 0.01, embedding_lr: 0.1 }],
  ] as const)('%s: all weights and optimizer state after 10 steps', async (_, world, n, extra) => {
    const p = parseRecsysParams({ batch_size: 16, layers: [8, 4], embedding_dim: 4, ...extra })
    const rng = new Rng(7)
    const batches = Array.from({ length: 10 }, () => randomBatch(rng, n))
    const single = new RefBackend(DIST_SHAPE, p, startState(p, 3))
    const group = localGroup(world)
    const ranks = new RanksBackend(
      group.map(() => new RefRank(DIST_SHAPE, p, startState(p, 3))),
      group,
    )
    const r = await trainBoth(single, ranks, batches, p)
    console.log(
      `recsys ranks vs single (${world} ranks, N = ${n}): max |Δstate| ${maxStateDiff(r.ranks, r.single).toExponential(2)}`,
    )
    expect(stateMismatches(r.ranks, r.single, ATOL, RTOL)).toEqual([])
    expect(r.ranksLoss).toHaveLength(10)
    r.ranksLoss.forEach((l, k) => expect(l).toBeCloseTo(r.singleLoss[k], 5))
    expect(ranks.collectives().find(s => s.op === 'allreduce')?.calls).toBe(10)
  })

  test('R = 2 with a low-rank cross network (dcn): the cross tensors combine like the MLP tensors', async () => {
    const p = parseRecsysParams({
      batch_size: 16,
      layers: [8, 4],
      embedding_dim: 4,
      lr: 0.01,
      architecture: 'dcn',
      cross_layers: 2,
      cross_rank: 3,
    })
    const shape = { ...DIST_SHAPE, cross: { layers: 2, rank: 3 } }
    const rng = new Rng(8)
    const batches = Array.from({ length: 10 }, () => randomBatch(rng, 15))
    const group = localGroup(2)
    const ranks = new RanksBackend(
      group.map(() => new RefRank(shape, p, startState(p, 3, shape))),
      group,
    )
    const r = await trainBoth(new RefBackend(shape, p, startState(p, 3, shape)), ranks, batches, p)
    console.log(
      `recsys ranks vs single (dcn, 2 ranks): max |Δstate| ${maxStateDiff(r.ranks, r.single, shape).toExponential(2)}`,
    )
    expect(stateMismatches(r.ranks, r.single, ATOL, RTOL, shape)).toEqual([])
    expect(r.single.weights.dense).toHaveLength(6 + 6)
  })

  test('ranks whose weights differ diverge from the single model (the check can fail)', async () => {
    const p = parseRecsysParams({ batch_size: 16, layers: [8, 4], embedding_dim: 4, lr: 0.01 })
    const rng = new Rng(7)
    const batches = Array.from({ length: 3 }, () => randomBatch(rng, 16))
    const group = localGroup(2)
    const ranks = new RanksBackend(
      [new RefRank(DIST_SHAPE, p, startState(p, 3)), new RefRank(DIST_SHAPE, p, startState(p, 4))],
      group,
    )
    const r = await trainBoth(new RefBackend(DIST_SHAPE, p, startState(p, 3)), ranks, batches, p)
    expect(stateMismatches(r.ranks, r.single, ATOL, RTOL).length).toBeGreaterThan(0)
  })
})
