/**
 * Ranks reading their own share of a table (marketing over a loopback server, filtered): the
 * shards put together are exactly loadDataset's training rows in table order, the categorical
 * dictionaries are the same, rank 0 holds the same validation set — and the model trained over
 * 3 in-thread ranks (CPU reference backend) is byte-identical to R = 1's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { serveDirectory, type ServedDirectory } from '../../../src/serve/server.ts'
import { PROJECT_ROOT } from '../../../src/serve/page-server.ts'
import { loadDataset, type DatasetConfig } from '../../../src/eval/dataset.ts'
import { loadRankDataset, unitSpan } from '../../../src/models/gbdt/ranks.ts'
import { trainShard } from '../../../src/models/gbdt/ranks.ts'
import { createCpuBackend } from '../../../src/models/gbdt/cpu-backend.ts'
import { train } from '../../../src/models/gbdt/driver.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { toXGBoostJsonString } from '../../../src/models/gbdt/xgboost-json.ts'
import { localGroup } from '../../../src/ranks/local-group.ts'

let server: ServedDirectory
let cfg: DatasetConfig
beforeAll(async () => {
  server = await serveDirectory(join(PROJECT_ROOT, 'public', 'tables'))
  cfg = {
    tableUrl: `${server.url}marketing/`,
    label: 'y',
    filter: 'age < 32 AND balance > 100',
    validFraction: 0.25,
    seed: 3,
    workers: 0,
  }
})
afterAll(async () => {
  await server?.close()
})

it('unitSpan finds the units holding a range of positions', () => {
  const before = Float64Array.of(0, 10, 10, 25, 30)
  expect(unitSpan(before, 0, 10)).toEqual([0, 1])
  expect(unitSpan(before, 9, 11)).toEqual([0, 3])
  expect(unitSpan(before, 10, 30)).toEqual([2, 4])
  expect(unitSpan(before, 5, 5)).toEqual([0, 0])
})

it("rank shards put together are loadDataset's rows; dictionaries and validation set agree; the model is identical", async () => {
  const ds = await loadDataset(cfg)
  const p = parseParams({
    max_depth: 3,
    num_round: 3,
    subsample: 0.8,
    colsample_bytree: 0.8,
    max_bin: 32,
    seed: 1,
    eval_metric: ['auc'],
  })
  const want = toXGBoostJsonString(await train(ds.data, p, createCpuBackend))
  for (const world of [2, 3]) {
    const group = localGroup(world)
    const ranks = await Promise.all(group.map(c => loadRankDataset(cfg, c)))
    for (let f = 0; f < ds.data.columns.length; f++) {
      const joined = ranks.flatMap(r => Array.from(r.shard.data.columns[f]))
      expect(joined).toEqual(Array.from(ds.data.columns[f]))
    }
    expect(ranks.flatMap(r => Array.from(r.shard.data.labels))).toEqual(Array.from(ds.data.labels))
    ranks.forEach(r => expect(r.dataset.dictionaries).toEqual(ds.dictionaries))
    expect(ranks[0].shard.data.valid).toEqual(ds.data.valid)
    expect(ranks[1].shard.data.valid).toBeUndefined()
    expect(ranks[0].dataset.rowsTrain).toBe(ds.rowsTrain)
    expect(ranks[0].dataset.rowsValid).toBe(ds.rowsValid)
    expect(ranks[0].dataset.plan.digest).toBe(ds.plan.digest)
    if (world === 3) {
      const models = await Promise.all(group.map((c, r) => trainShard(ranks[r].shard, p, c, createCpuBackend)))
      models.forEach(m => expect(toXGBoostJsonString(m)).toBe(want))
    }
  }
})

it('with --weight and --base-margin columns, rank shards carry their rows’ weights and margins; the model is identical', async () => {
  // duration (seconds, ≥ 0) as row weights, previous (small counts) as base margins.
  const rowCfg = { ...cfg, weight: 'duration', baseMargin: 'previous' }
  const ds = await loadDataset(rowCfg)
  expect(ds.features.map(f => f.name)).not.toContain('duration')
  expect(ds.data.weights!.some(w => w !== ds.data.weights![0])).toBe(true)
  const p = parseParams({ max_depth: 3, num_round: 3, max_bin: 16, eval_metric: ['logloss'] })
  const want = toXGBoostJsonString(await train(ds.data, p, createCpuBackend))
  const group = localGroup(3)
  const ranks = await Promise.all(group.map(c => loadRankDataset(rowCfg, c)))
  expect(ranks.flatMap(r => Array.from(r.shard.data.weights!))).toEqual(Array.from(ds.data.weights!))
  expect(ranks.flatMap(r => Array.from(r.shard.data.baseMargin!))).toEqual(Array.from(ds.data.baseMargin!))
  expect(ranks[0].shard.data.valid).toEqual(ds.data.valid)
  const models = await Promise.all(group.map((c, r) => trainShard(ranks[r].shard, p, c, createCpuBackend)))
  models.forEach(m => expect(toXGBoostJsonString(m)).toBe(want))
})

it("a string label (multi:*): every rank codes it with R = 1's sorted classes; the multiclass model is identical", async () => {
  const classCfg: DatasetConfig = { ...cfg, label: 'marital', classLabels: true }
  const ds = await loadDataset(classCfg)
  expect(ds.data.labelValues).toEqual(['divorced', 'married', 'single'])
  const p = parseParams({ objective: 'multi:softprob', num_class: 3, max_depth: 3, num_round: 2, max_bin: 32 })
  const want = toXGBoostJsonString(await train(ds.data, p, createCpuBackend))
  for (const world of [2, 3]) {
    const group = localGroup(world)
    const ranks = await Promise.all(group.map(c => loadRankDataset(classCfg, c)))
    ranks.forEach(r => expect(r.shard.data.labelValues).toEqual(ds.data.labelValues))
    expect(ranks.flatMap(r => Array.from(r.shard.data.labels))).toEqual(Array.from(ds.data.labels))
    expect(ranks[0].shard.data.valid).toEqual(ds.data.valid)
    if (world === 3) {
      const models = await Promise.all(group.map((c, r) => trainShard(ranks[r].shard, p, c, createCpuBackend)))
      models.forEach(m => expect(toXGBoostJsonString(m)).toBe(want))
    }
  }
})

describe('ranking (--qid): a query group is never split across ranks; R = 1…4 give the same model', () => {
  // day (integer, 31 groups; with the validation split) and month (string, 12 groups, one holding
  // over a third of the rows, so R ≤ 2; no validation: only the query ids are read first) as query
  // ids; their rows are spread over the table.
  for (const [qid, worlds, validFraction] of [
    ['day', [1, 2, 3, 4], 0.25],
    ['month', [1, 2], undefined],
  ] as const) {
    it(`rank:ndcg with --qid ${qid}: ranks hold whole groups, R = 1's rows in R = 1's order; the models are byte-identical`, async () => {
      const rankCfg: DatasetConfig = { ...cfg, qid, validFraction }
      const ds = await loadDataset(rankCfg)
      const G = ds.data.groups!.length - 1
      expect(G).toBeGreaterThan(4)
      const p = parseParams({
        objective: 'rank:ndcg',
        max_depth: 3,
        num_round: 2,
        max_bin: 16,
        eval_metric: ['ndcg@5'],
      })
      const want = toXGBoostJsonString(await train(ds.data, p, createCpuBackend))
      for (const world of worlds) {
        const group = localGroup(world)
        const ranks = await Promise.all(group.map(c => loadRankDataset(rankCfg, c)))
        // Each rank's groups are whole: its group_ptr, shifted by its first row, is a run of R = 1's.
        const joined = ranks.flatMap(r => Array.from(r.shard.data.groups!.subarray(1), b => b + r.shard.lo))
        expect([0, ...joined]).toEqual(Array.from(ds.data.groups!))
        ranks.forEach((r, k) =>
          expect(r.shard.lo).toBe(k === 0 ? 0 : ranks[k - 1].shard.lo + ranks[k - 1].shard.data.labels.length),
        )
        expect(ranks.flatMap(r => Array.from(r.shard.data.labels))).toEqual(Array.from(ds.data.labels))
        for (const f of [0, ds.data.columns.length - 1])
          expect(ranks.flatMap(r => Array.from(r.shard.data.columns[f]))).toEqual(Array.from(ds.data.columns[f]))
        expect(ranks[0].shard.data.valid).toEqual(ds.data.valid)
        const models = await Promise.all(group.map((c, r) => trainShard(ranks[r].shard, p, c, createCpuBackend)))
        models.forEach(m => expect(toXGBoostJsonString(m)).toBe(want))
      }
    })
  }
})
