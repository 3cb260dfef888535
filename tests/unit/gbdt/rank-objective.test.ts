/**
 * Learning to rank (rank-objective.ts, XGBoost 2.0's LambdaMART): ΔNDCG and ΔMAP of a swap against
 * the metric recomputed on the swapped list; one group's gradient pairs against the formulas
 * written out by hand; pair making (topk truncation, mean sampling keyed by the group's global
 * row, not its rank); the refusals (labels, groups, weights, parameters); rows gathered by query
 * group with the split keeping groups whole (dataset.ts on marketing, qid = day); rank shards on
 * group boundaries; and rank:ndcg training on the CPU backend raising validation NDCG.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import {
  checkRankData,
  checkRankLabels,
  deltaMap,
  deltaNdcg,
  invIdcg,
  rankGradients,
  type RankParams,
} from '../../../src/models/gbdt/rank-objective.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { objectiveJson, objectiveParamsFromJson } from '../../../src/models/gbdt/objective.ts'
import { toXGBoostJsonString } from '../../../src/models/gbdt/xgboost-json.ts'
import { train } from '../../../src/models/gbdt/driver.ts'
import { groupShardRange, shardOf } from '../../../src/models/gbdt/ranks.ts'
import { groupRows, loadDataset } from '../../../src/eval/dataset.ts'
import { readLabels } from '../../../src/eval/labels.ts'
import { serveDirectory, type ServedDirectory } from '../../../src/serve/server.ts'
import { PROJECT_ROOT } from '../../../src/serve/page-server.ts'
import { openSnapshot, readRows } from '../../../src/table/index.ts'
import { makeRanking } from './ranking-data.ts'

const P = (o: Partial<RankParams> = {}): RankParams => ({
  objective: 'rank:ndcg',
  lambdarank_pair_method: 'topk',
  ndcg_exp_gain: true,
  seed: 0,
  ...o,
})

/** NDCG of labels in list order (all positions), exponential gain. */
function ndcg(list: number[], exp = true): number {
  const gain = (y: number) => (exp ? 2 ** y - 1 : y)
  const dcg = (l: number[]) => l.reduce((s, y, i) => s + gain(y) / Math.log2(i + 2), 0)
  return dcg(list) / dcg([...list].sort((a, b) => b - a))
}

/** Average precision of 0/1 labels in list order. */
function ap(list: number[]): number {
  let hits = 0,
    s = 0
  list.forEach((y, i) => {
    if (y === 1) s += ++hits / (i + 1)
  })
  return s / hits
}

const swapped = (l: number[], i: number, j: number) => {
  const c = [...l]
  ;[c[i], c[j]] = [c[j], c[i]]
  return c
}

describe('ΔNDCG and ΔMAP of a swap', () => {
  it('ΔNDCG = |NDCG(swapped) − NDCG| on every pair of a tiny list, both gains', () => {
    const list = [1, 3, 0, 2, 0]
    for (const exp of [true, false]) {
      const inv = invIdcg(Float32Array.from(list), 0, list.length, Infinity, exp)
      for (let i = 0; i < list.length; i++)
        for (let j = i + 1; j < list.length; j++) {
          const d = deltaNdcg(list[i], list[j], i, j, inv, exp)
          expect(Math.abs(d)).toBeCloseTo(Math.abs(ndcg(swapped(list, i, j), exp) - ndcg(list, exp)), 12)
        }
    }
    // By hand: labels [1, 0], exp gain: IDCG = 1, swapping loses 1 − 1/log2(3).
    expect(deltaNdcg(1, 0, 0, 1, 1, true)).toBeCloseTo(1 - 1 / Math.log2(3), 15)
  })

  it('ΔMAP = |AP(swapped) − AP| for pairs of different labels (2.0 MAPStat caches)', () => {
    const list = [0, 1, 0, 1, 1, 0]
    const nRel: number[] = [],
      acc: number[] = []
    list.forEach((y, k) => {
      nRel.push((nRel[k - 1] ?? 0) + y)
      acc.push((acc[k - 1] ?? 0) + y / (k + 1))
    })
    let checked = 0
    for (let i = 0; i < list.length; i++)
      for (let j = i + 1; j < list.length; j++) {
        if (list[i] === list[j]) continue
        const d = deltaMap(list[i], list[j], i, j, nRel, acc)
        expect(Math.abs(d)).toBeCloseTo(Math.abs(ap(swapped(list, i, j)) - ap(list)), 12)
        checked++
      }
    expect(checked).toBe(9)
  })
})

describe('rankGradients', () => {
  const two = { margins: Float32Array.of(0, 0), labels: Float32Array.of(1, 0), groups: Uint32Array.of(0, 2) }
  const run = (p: RankParams, d = two, round = 0, offset = 0) =>
    rankGradients(p, d.margins, d.labels, d.groups, round, new Float32Array(2 * d.labels.length), offset)

  it('one pair at equal scores, by hand: pairwise λ = σ(0) − 1, h = 2σ(1 − σ), normalised by log2(1 + Σ)/Σ', () => {
    // pairwise: Δ = 1, λ = −0.5, h = 0.5, Σλ = 1 → norm = log2(2)/1 = 1.
    expect(Array.from(run(P({ objective: 'rank:pairwise' })))).toEqual([-0.5, 0.5, 0.5, 0.5])
    // ndcg: Δ = 1 − 1/log2 3; λ = −Δ/2, h = Δ/2, Σ = Δ → norm = log2(1 + Δ)/Δ.
    const d = 1 - 1 / Math.log2(3),
      norm = Math.log2(1 + d) / d
    const g = run(P())
    const want = [-0.5 * d * norm, 0.5 * d * norm, 0.5 * d * norm, 0.5 * d * norm]
    want.forEach((w, i) => expect(g[i]).toBeCloseTo(w, 6))
  })

  it('apart scores divide Δ by |s_i − s_j| + 0.01 and use σ(s_high − s_low)', () => {
    const d = { ...two, margins: Float32Array.of(-1, 1) } // the relevant document is ranked second
    const g = run(P({ objective: 'rank:pairwise' }), d)
    const sig = 1 / (1 + Math.exp(2)),
      dm = 1 / 2.01
    const lambda = (sig - 1) * dm,
      hess = 2 * sig * (1 - sig) * dm
    const norm = Math.log2(1 - 2 * lambda) / (-2 * lambda)
    ;[lambda * norm, hess * norm, -lambda * norm, hess * norm].forEach((w, i) => expect(g[i]).toBeCloseTo(w, 6))
  })

  it('each group: gradients sum to 0, hessians ≥ 0; a one-document group gets (0, 0)', () => {
    const { data } = makeRanking(30, 3, 7)
    const margins = Float32Array.from(data.labels, (_, i) => Math.sin(i))
    for (const objective of ['rank:ndcg', 'rank:pairwise'] as const) {
      const g = rankGradients(
        P({ objective }),
        margins,
        data.labels,
        data.groups!,
        0,
        new Float32Array(2 * margins.length),
      )
      for (let k = 0; k + 1 < data.groups!.length; k++) {
        let s = 0
        for (let i = data.groups![k]; i < data.groups![k + 1]; i++) {
          s += g[2 * i]
          expect(g[2 * i + 1]).toBeGreaterThanOrEqual(0)
        }
        expect(Math.abs(s)).toBeLessThan(1e-5)
      }
    }
    const single = rankGradients(
      P(),
      Float32Array.of(3),
      Float32Array.of(2),
      Uint32Array.of(0, 1),
      0,
      new Float32Array(2),
    )
    expect(Array.from(single)).toEqual([0, 0])
  })

  it('topk with k = 1 pairs only the top-scored document: the others get no pair among themselves', () => {
    const d = { margins: Float32Array.of(3, 2, 1), labels: Float32Array.of(0, 1, 2), groups: Uint32Array.of(0, 3) }
    const k1 = run(P({ objective: 'rank:pairwise', lambdarank_num_pair_per_sample: 1 }), d)
    // Pairs (0,1) and (0,2) only: document 1 and 2 are never paired, so doc 1's λ is one pair's.
    const all = run(P({ objective: 'rank:pairwise' }), d)
    expect(k1[2]).not.toBeCloseTo(all[2], 3)
    // Without the pair (1, 2) the sum over docs 1 and 2 equals −doc 0's.
    expect(k1[2] + k1[4]).toBeCloseTo(-k1[0], 6)
  })

  it('mean: seeded by (seed, round, first global row): a group gives the same pairs at any rank offset; rounds differ', () => {
    const { data } = makeRanking(20, 2, 3, 20)
    const margins = Float32Array.from(data.labels, (_, i) => Math.cos(i))
    const p = P({ lambdarank_pair_method: 'mean', lambdarank_num_pair_per_sample: 2 })
    const full = rankGradients(p, margins, data.labels, data.groups!, 4, new Float32Array(2 * margins.length))
    const [lo, hi] = [data.groups![5], data.groups![9]]
    const part = rankGradients(
      p,
      margins.slice(lo, hi),
      data.labels.slice(lo, hi),
      data.groups!.slice(5, 10).map(b => b - lo),
      4,
      new Float32Array(2 * (hi - lo)),
      lo,
    )
    expect(Array.from(part)).toEqual(Array.from(full.slice(2 * lo, 2 * hi)))
    const other = rankGradients(p, margins, data.labels, data.groups!, 5, new Float32Array(2 * margins.length))
    expect(Array.from(other)).not.toEqual(Array.from(full))
  })
})

describe('refusals', () => {
  it('labels: exp-gain NDCG needs integers 0…31, MAP 0/1, others ≥ 0 — naming the column and row', () => {
    expect(() => checkRankLabels(P(), [0, 32], 'rel')).toThrow(
      /label column rel: rank:ndcg needs integer .*got 32 at row 1/,
    )
    expect(() => checkRankLabels(P(), [2.5], 'rel')).toThrow(/got 2.5 at row 0/)
    expect(() => checkRankLabels(P({ ndcg_exp_gain: false }), [2.5, 40])).not.toThrow()
    expect(() => checkRankLabels(P({ objective: 'rank:map' }), [0, 1, 2])).toThrow(/rank:map needs labels 0 or 1/)
    expect(() => checkRankLabels(P({ objective: 'rank:pairwise' }), [-1])).toThrow(/≥ 0/)
  })

  it('data: no groups (no --qid), bad group_ptr, row weights, validation without groups', () => {
    const { data } = makeRanking(5, 2, 1, 6, 3)
    const p = P()
    expect(() => checkRankData({ ...data, groups: undefined }, p)).toThrow(/rank:ndcg needs query groups \(--qid COL/)
    expect(() => checkRankData({ ...data, groups: Uint32Array.of(0, 2) }, p)).toThrow(/group_ptr must run from 0/)
    expect(() => checkRankData({ ...data, weights: new Float32Array(data.labels.length).fill(1) }, p)).toThrow(
      /row weights are not supported for ranking/,
    )
    expect(() => checkRankData({ ...data, valid: { ...data.valid!, groups: undefined } }, p)).toThrow(
      /validation rows: rank:ndcg needs query groups/,
    )
    expect(() => checkRankData(data, p)).not.toThrow()
  })

  it('parameters: XGBoost 2.0 defaults and metrics; unbiased and the NDCG gain off ndcg refused', () => {
    const p = parseParams({ objective: 'rank:ndcg' })
    expect([p.lambdarank_pair_method, p.lambdarank_num_pair_per_sample, p.ndcg_exp_gain]).toEqual([
      'topk',
      undefined,
      true,
    ])
    expect(p.eval_metric).toEqual(['ndcg@32'])
    expect(parseParams({ objective: 'rank:map', lambdarank_num_pair_per_sample: 8 }).eval_metric).toEqual(['map@8'])
    expect(parseParams({ objective: 'rank:pairwise', lambdarank_pair_method: 'mean' }).eval_metric).toEqual(['ndcg'])
    expect(() => parseParams({ objective: 'rank:ndcg', lambdarank_unbiased: true })).toThrow(
      /lambdarank_unbiased: unbiased LambdaMART .* not supported/,
    )
    expect(parseParams({ objective: 'rank:ndcg', lambdarank_unbiased: false }).objective).toBe('rank:ndcg')
    expect(() => parseParams({ objective: 'rank:map', ndcg_exp_gain: false })).toThrow(/ndcg_exp_gain/)
    expect(() => parseParams({ lambdarank_pair_method: 'all' })).toThrow(/lambdarank_pair_method/)
    expect(() => parseParams({ lambdarank_num_pair_per_sample: 0 })).toThrow(/lambdarank_num_pair_per_sample/)
  })

  it('the model file carries 1.7.4 lambda_rank_param (it needs it to load) and 2.0 lambdarank_param', () => {
    const json = objectiveJson(parseParams({ objective: 'rank:ndcg', lambdarank_pair_method: 'mean' }))
    expect(json).toEqual({
      name: 'rank:ndcg',
      lambda_rank_param: { fix_list_weight: '0', num_pairsample: '1' },
      lambdarank_param: {
        lambdarank_bias_norm: '1',
        lambdarank_num_pair_per_sample: '1',
        lambdarank_pair_method: 'mean',
        lambdarank_unbiased: '0',
        ndcg_exp_gain: '1',
      },
    })
  })

  it("a model file's pair config reads back: 2.0's lambdarank_param first, else 1.7.4's num_pairsample as mean", () => {
    const objective = (o: Record<string, unknown>) => objectiveParamsFromJson(o)
    const ours = objectiveJson(
      parseParams({ objective: 'rank:map', lambdarank_pair_method: 'mean', lambdarank_num_pair_per_sample: 5 }),
    )
    expect(objective(ours)).toMatchObject({
      objective: 'rank:map',
      lambdarank_pair_method: 'mean',
      lambdarank_num_pair_per_sample: 5,
      ndcg_exp_gain: true,
    })
    const linear = objectiveJson(parseParams({ objective: 'rank:ndcg', ndcg_exp_gain: false }))
    expect(objective(linear)).toMatchObject({
      lambdarank_pair_method: 'topk',
      lambdarank_num_pair_per_sample: 32,
      ndcg_exp_gain: false,
    })
    // XGBoost 1.7.4's file: random pairs per document = 2.0's mean method.
    const old = { name: 'rank:pairwise', lambda_rank_param: { fix_list_weight: '0', num_pairsample: '4' } }
    expect(objective(old)).toEqual({
      objective: 'rank:pairwise',
      lambdarank_pair_method: 'mean',
      lambdarank_num_pair_per_sample: 4,
    })
    expect(objective({ name: 'rank:ndcg' })).toEqual({ objective: 'rank:ndcg' })
    expect(() => objective({ name: 'rank:ndcg', lambdarank_param: { lambdarank_pair_method: 'all' } })).toThrow(
      /rank:ndcg: lambdarank_pair_method = all is not topk or mean/,
    )
    expect(() => objective({ name: 'rank:ndcg', lambda_rank_param: { num_pairsample: '0' } })).toThrow(
      /num_pairsample = 0/,
    )
  })
})

describe('query groups in the data', () => {
  it('groupRows gathers rows by query, groups in order of first appearance, rows stable', () => {
    const qid = Float32Array.of(7, 3, 7, 9, 3, 7)
    const got = groupRows({
      columns: [Float32Array.of(0, 1, 2, 3, 4, 5)],
      labels: Float32Array.of(0, 1, 2, 3, 4, 5),
      qid,
    })
    expect(Array.from(got.columns[0])).toEqual([0, 2, 5, 1, 4, 3])
    expect(Array.from(got.groups!)).toEqual([0, 3, 5, 6])
    expect('qid' in got).toBe(false)
  })

  it('rank shards end on group boundaries, cover every row once, and carry their own group_ptr', () => {
    const { data } = makeRanking(11, 2, 5, 9)
    for (const world of [2, 3, 4]) {
      let next = 0
      for (let r = 0; r < world; r++) {
        const [lo, hi] = groupShardRange(data.groups!, world, r)
        expect(lo).toBe(next)
        expect(data.groups!.includes(hi)).toBe(true)
        const s = shardOf(data, world, r)
        expect(s.lo).toBe(lo)
        expect(s.data.groups![0]).toBe(0)
        expect(s.data.groups!.at(-1)).toBe(hi - lo)
        next = hi
      }
      expect(next).toBe(data.labels.length)
    }
  })

  describe('loadDataset with qid (marketing, qid = day)', () => {
    let server: ServedDirectory
    let url: string
    beforeAll(async () => {
      server = await serveDirectory(join(PROJECT_ROOT, 'public', 'tables'))
      url = `${server.url}marketing/`
    })
    afterAll(async () => {
      await server?.close()
    })

    it('every day is one group, whole on one side of the split; qid is no feature; a bad qid is named', async () => {
      const rows = await readRows(await openSnapshot(url), { columns: ['day', 'balance'] })
      const ds = await loadDataset({ tableUrl: url, label: 'y', qid: 'day', validFraction: 0.3, seed: 2, workers: 0 })
      expect(ds.features.map(f => f.name)).not.toContain('day')
      const days = new Set(rows.map(r => Number(r.day)))
      const t = ds.data.groups!,
        v = ds.data.valid!.groups!
      expect(t.length - 1 + v.length - 1).toBe(days.size)
      expect(t.at(-1)).toBe(ds.rowsTrain)
      expect(v.at(-1)).toBe(ds.rowsValid)
      // Gathered: within a training group every row has one day (balance per day matches the table's).
      const bal = ds.features.findIndex(f => f.name === 'balance')
      const byDay = new Map<number, number[]>()
      for (const r of rows) byDay.set(Number(r.day), [...(byDay.get(Number(r.day)) ?? []), Number(r.balance)])
      const first = Array.from(ds.data.columns[bal].slice(t[0], t[1]))
      const day = [...byDay].find(
        ([, b]) => b.length === first.length && b.every((x, i) => Math.fround(x) === first[i]),
      )
      expect(day).toBeDefined()
      await expect(loadDataset({ tableUrl: url, label: 'y', qid: 'nope', seed: 0, workers: 0 })).rejects.toThrow(
        /query id column nope: not in the table/,
      )
      await expect(
        loadDataset({
          tableUrl: url,
          label: 'y',
          qid: 'day',
          validFraction: 0.3,
          splitKey: ['age'],
          seed: 0,
          workers: 0,
        }),
      ).rejects.toThrow(/--split-key: a ranking run splits by query group/)
    })

    it('a string query id (month): one group per value, in order of first appearance; a null one is named', async () => {
      const rows = await readRows(await openSnapshot(url), { columns: ['month', 'contact'] })
      const ds = await loadDataset({ tableUrl: url, label: 'y', qid: 'month', seed: 2, workers: 0 })
      expect(ds.features.map(f => f.name)).not.toContain('month')
      const months = [...new Set(rows.map(r => String(r.month)))]
      const t = ds.data.groups!
      expect(Array.from(t.subarray(1), (b, g) => b - t[g])).toEqual(
        months.map(m => rows.filter(r => r.month === m).length),
      )
      expect(rows.some(r => r.contact === null)).toBe(true)
      await expect(loadDataset({ tableUrl: url, label: 'y', qid: 'contact', seed: 0, workers: 0 })).rejects.toThrow(
        /query id column contact: null at .+ row \d+/,
      )
      // The CLI's label precheck (in Node) reads a string query id too, and names a null one alike.
      const snapshot = await openSnapshot(url)
      expect((await readLabels(snapshot, { table: url, label: 'y', qid: 'month' })).length).toBe(rows.length)
      await expect(readLabels(snapshot, { table: url, label: 'y', qid: 'contact' })).rejects.toThrow(
        /query id column contact: null at .+ row \d+/,
      )
    })
  })
})

describe('training', () => {
  it('rank:ndcg and rank:map on the CPU backend raise validation NDCG / MAP above round 1; same seed ⇒ same model', async () => {
    const { data } = makeRanking(60, 4, 11, 12, 30)
    for (const objective of ['rank:ndcg', 'rank:pairwise'] as const) {
      const p = parseParams({ objective, num_round: 8, eval_metric: 'ndcg@5', max_depth: 3 })
      const b = await train(data, p)
      const h = b.history.map(m => m['ndcg@5'])
      expect(h.at(-1)).toBeGreaterThan(h[0])
      const again = await train(data, p)
      expect(again.trees).toEqual(b.trees)
    }
    const binary = { ...data, labels: data.labels.map(y => (y >= 3 ? 1 : 0)) }
    binary.valid = { ...data.valid!, labels: data.valid!.labels.map(y => (y >= 3 ? 1 : 0)) }
    const m = await train(binary, parseParams({ objective: 'rank:map', num_round: 8, max_depth: 3 }))
    expect(m.history.at(-1)!['map@32']).toBeGreaterThan(m.history[0]['map@32'])
  })

  it('--init-model continues a ranking model: 3 + 2 rounds = the 5-round model (topk pairs are deterministic)', async () => {
    const { data } = makeRanking(40, 3, 13, 10, 10)
    const p = (num_round: number) => parseParams({ objective: 'rank:ndcg', num_round, max_depth: 3 })
    const five = await train(data, p(5))
    const more = await train(data, p(2), undefined, { initModel: await train(data, p(3)) })
    expect(more.trees.length).toBe(5)
    expect(toXGBoostJsonString(more)).toBe(toXGBoostJsonString(five))
  })
})
