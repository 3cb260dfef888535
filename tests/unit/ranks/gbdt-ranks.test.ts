/**
 * GBDT across in-thread ranks (localGroup + the CPU reference backend): the merged cuts equal
 * buildCuts on all rows (one sketch chunk and several), and the XGBoost JSON model from R = 2, 3,
 * 4 ranks is byte-identical to R = 1's — with missing values, subsample and colsample < 1, a
 * validation set on rank 0 and early stopping, and with fractional row weights and base margins.
 */
import { expect, it } from 'vitest'
import { localGroup } from '../../../src/ranks/local-group.ts'
import { buildCuts } from '../../../src/models/gbdt/cuts.ts'
import { distCuts } from '../../../src/models/gbdt/ranks.ts'
import { sketchPlan } from '../../../src/models/gbdt/sketch.ts'
import { shardOf, shardRange, trainShard } from '../../../src/models/gbdt/ranks.ts'
import { createCpuBackend } from '../../../src/models/gbdt/cpu-backend.ts'
import { train } from '../../../src/models/gbdt/driver.ts'
import type { TrainData } from '../../../src/eval/dataset.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { toXGBoostJsonString } from '../../../src/models/gbdt/xgboost-json.ts'
import { combineStats } from '../../../src/ranks/stats.ts'
import { makeBinary, makeMulticlass, sliceColumns } from '../gbdt/synthetic.ts'
import { Rng } from '../../../src/util/rng.ts'

it('shardRange covers every row once, contiguously', () => {
  for (const [n, world] of [
    [0, 1],
    [1, 4],
    [10, 3],
    [1001, 4],
  ]) {
    const ranges = Array.from({ length: world }, (_, r) => shardRange(n, world, r))
    expect(ranges[0][0]).toBe(0)
    expect(ranges[world - 1][1]).toBe(n)
    ranges.slice(1).forEach(([lo], r) => expect(lo).toBe(ranges[r][1]))
  }
})

it('cuts merged over ranks equal buildCuts on all rows, for one sketch chunk and for several', async () => {
  for (const n of [1500, 20_000]) {
    const { columns } = makeBinary(n, 4, 17, 0.1)
    columns[2] = columns[2].map(v => Math.round(v * 4)) // many ties
    for (const maxBin of [16, 256]) {
      // One sketch chunk (1500 rows at 256 bins) and several (every other case).
      const chunks = Math.ceil(n / sketchPlan(n, maxBin).chunkRows)
      expect(chunks === 1).toBe(n === 1500 && maxBin === 256)
      const want = buildCuts(columns, maxBin)
      for (const world of [2, 3]) {
        const group = localGroup(world)
        const got = await Promise.all(
          group.map((c, r) => {
            const [lo, hi] = shardRange(n, world, r)
            return distCuts(sliceColumns(columns, lo, hi), undefined, lo, n, maxBin, c)
          }),
        )
        for (const cuts of got) expect(cuts).toEqual(want)
      }
    }
  }
})

function dataset(): TrainData {
  const all = makeBinary(1500, 6, 3, 0.2)
  const valid = makeBinary(300, 6, 4, 0.2)
  return { columns: all.columns, labels: all.labels, valid }
}

it('the model from R = 2, 3, 4 ranks is byte-identical to R = 1 (subsample, colsample, missing values, early stopping)', async () => {
  for (const extra of [{}, { grow_policy: 'lossguide', max_leaves: 8, max_depth: 0 }]) {
    const p = parseParams({
      max_depth: 4,
      eta: 0.3,
      num_round: 6,
      subsample: 0.8,
      colsample_bytree: 0.8,
      colsample_bynode: 0.9,
      max_bin: 32,
      seed: 9,
      eval_metric: ['auc', 'logloss'],
      early_stopping_rounds: 3,
      ...extra,
    })
    const data = dataset()
    const want = toXGBoostJsonString(await train(data, p, createCpuBackend))
    for (const world of [2, 3, 4]) {
      const group = localGroup(world)
      const boosters = await Promise.all(
        group.map(c => trainShard(shardOf(data, world, c.rank), p, c, createCpuBackend)),
      )
      for (const b of boosters) expect(toXGBoostJsonString(b)).toBe(want)
      const stats = combineStats(group.map(c => c.stats()))
      expect(stats.find(s => s.op === 'allreduce')!.calls).toBeGreaterThan(6 * 3)
      expect(stats.find(s => s.op === 'broadcast')!.calls).toBe(boosters[0].trees.length)
    }
  }
})

it('with row weights (fractional, over many orders of magnitude, some 0) and base margins, R = 2, 3, 4 equal R = 1', async () => {
  const rng = new Rng(5)
  const all = dataset()
  const wide = (n: number) =>
    Float32Array.from({ length: n }, () => (rng.next() < 0.1 ? 0 : Math.exp(5 * rng.normal())))
  const margins = (n: number) => Float32Array.from({ length: n }, () => rng.normal())
  const data: TrainData = {
    ...all,
    weights: wide(1500),
    baseMargin: margins(1500),
    valid: { ...all.valid!, weights: wide(300), baseMargin: margins(300) },
  }
  // max_bin 8: the 1500 rows make several sketch chunks, cut between ranks.
  const p = parseParams({ max_depth: 4, eta: 0.3, num_round: 4, max_bin: 8, eval_metric: ['logloss'] })
  const want = toXGBoostJsonString(await train(data, p, createCpuBackend))
  expect(want).not.toBe(toXGBoostJsonString(await train({ ...data, weights: undefined }, p, createCpuBackend)))
  for (const world of [2, 3, 4]) {
    const group = localGroup(world)
    const boosters = await Promise.all(group.map(c => trainShard(shardOf(data, world, c.rank), p, c, createCpuBackend)))
    for (const b of boosters) expect(toXGBoostJsonString(b)).toBe(want)
  }
})

it('multiclass (K = 3, num_class inferred over the ranks; lossguide, K = 7 with N × K base margins): R = 2, 3, 4 equal R = 1', async () => {
  const rng = new Rng(8)
  for (const [K, extra] of [
    [3, { subsample: 0.7, colsample_bynode: 0.8, early_stopping_rounds: 2 }],
    [7, { grow_policy: 'lossguide', max_leaves: 6, max_depth: 0 }],
  ] as const) {
    const all = makeMulticlass(900, 5, K, K)
    const v = makeMulticlass(150, 5, K, K + 1)
    const data: TrainData = {
      ...all,
      ...(K === 7 ? { baseMargin: Float32Array.from({ length: 900 * K }, () => rng.normal()) } : {}),
      valid: { ...v, ...(K === 7 ? { baseMargin: Float32Array.from({ length: 150 * K }, () => rng.normal()) } : {}) },
    }
    const p = parseParams({ objective: 'multi:softprob', max_depth: 3, num_round: 4, max_bin: 16, seed: 3, ...extra })
    const want = toXGBoostJsonString(await train(data, p, createCpuBackend))
    expect(want).toContain(`"num_class":"${K}"`)
    for (const world of [2, 3, 4]) {
      const group = localGroup(world)
      const boosters = await Promise.all(
        group.map(c => trainShard(shardOf(data, world, c.rank), p, c, createCpuBackend)),
      )
      for (const b of boosters) expect(toXGBoostJsonString(b)).toBe(want)
    }
  }
})

it('the identity test can fail: a shard missing its row offset changes the model', async () => {
  const p = parseParams({ max_depth: 3, num_round: 3, subsample: 0.5, seed: 2 })
  const data = dataset()
  const want = toXGBoostJsonString(await train(data, p, createCpuBackend))
  const group = localGroup(2)
  const wrong = await Promise.all(
    group.map(c => trainShard({ ...shardOf(data, 2, c.rank), lo: 0 }, p, c, createCpuBackend)),
  )
  expect(toXGBoostJsonString(wrong[0])).not.toBe(want)
})

it('a rank with no rows is refused naming it', async () => {
  const p = parseParams({ num_round: 1 })
  const data = { columns: [Float32Array.of(1, 2)], labels: Float32Array.of(0, 1) }
  const group = localGroup(3)
  await expect(trainShard(shardOf(data, 3, 0), p, group[0], createCpuBackend)).rejects.toThrow(
    /rank 0 holds no training rows \(2 rows over 3 ranks\)/,
  )
})
