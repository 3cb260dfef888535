/**
 * The recommender's validation metrics beside auc/logloss: grouped AUC (per-group AUC, groups of
 * one class skipped, weighted by rows) and calibration, as computed on hand-made rows; gauc
 * through a CPU-reference run (metrics.csv rows, summary, early stopping on it); and the bad inputs.
 */
import { describe, expect, test } from 'vitest'
import { auc } from '../../../src/eval/metrics.ts'
import { openRecsysData } from '../../../src/models/recsys/data.ts'
import { calibration, groupedAuc } from '../../../src/models/recsys/metrics.ts'
import { parseRecsysParams } from '../../../src/models/recsys/params.ts'
import { recsysFamily, type RecsysTrainResult } from '../../../src/models/recsys/family.ts'
import { loadRecsysTable } from '../../../src/models/recsys/memory.ts'
import { trainLoop } from '../../../src/models/recsys/train-loop.ts'
import type { RecsysBackend } from '../../../src/models/recsys/backend.ts'
import type { ModelBatch } from '../../../src/models/recsys/types.ts'
import { runTraining } from '../../../src/run/pipeline.ts'
import { planSweep } from '../../../src/sweep/plan.ts'
import { openSnapshot } from '../../../src/table/index.ts'
import type { SweepConfig } from '../../../src/tune/types.ts'
import { clicksFixture } from './clicks-fixture.ts'

describe('grouped AUC and calibration on hand-made rows', () => {
  // Group 1: 4 rows ranked perfectly (AUC 1); group 2: 2 rows ranked backwards (AUC 0);
  // group 3: 3 rows, all negatives (no AUC: skipped); group 4: 1 positive (skipped).
  const pred = [0.9, 0.8, 0.2, 0.1, 0.3, 0.7, 0.5, 0.6, 0.4, 0.99]
  const labels = [1, 1, 0, 0, 1, 0, 0, 0, 0, 1]
  const groups = [1, 1, 1, 1, 2, 2, 3, 3, 3, 4]

  test('per-group AUC weighted by the group rows, one-class groups skipped', () => {
    expect(auc(pred.slice(0, 4), labels.slice(0, 4))).toBe(1)
    expect(auc(pred.slice(4, 6), labels.slice(4, 6))).toBe(0)
    // (4·1 + 2·0) / 6, not the unweighted mean ½ and not counting groups 3 and 4.
    expect(groupedAuc(pred, labels, groups)).toBeCloseTo(4 / 6, 12)
    // Group order does not matter; ties inside a group count ½ as in auc.
    const rev = (a: number[]) => [...a].reverse()
    expect(groupedAuc(rev(pred), rev(labels), rev(groups))).toBeCloseTo(4 / 6, 12)
    expect(groupedAuc([0.5, 0.5, 0.1], [1, 0, 0], [7, 7, 8])).toBe(0.5)
  })

  test('one group is plain AUC; every group of one class gives NaN', () => {
    expect(groupedAuc(pred, labels, new Array(pred.length).fill(0))).toBe(auc(pred, labels))
    expect(groupedAuc([0.1, 0.2, 0.3], [0, 0, 1], [1, 1, 2])).toBeNaN()
    expect(groupedAuc([], [], [])).toBeNaN()
  })

  test('calibration is mean prediction over the positive rate', () => {
    // mean prediction 0.3, positive rate 0.25 → 1.2
    expect(calibration([0.1, 0.2, 0.4, 0.5], [0, 1, 0, 0])).toBeCloseTo(1.2, 12)
    expect(calibration([0.25, 0.25, 0.25, 0.25], [0, 1, 0, 0])).toBeCloseTo(1, 12)
    expect(calibration([0.1, 0.2], [0, 0])).toBeNaN()
  })
})

describe('early stopping follows the chosen metric', () => {
  // Two groups (rows 0–2, rows 3–4). The second script improves AUC (1/3 → 1/2) but worsens gauc
  // (0.4 → 0.3), so the two metrics stop at different evaluations.
  const valid: ModelBatch = {
    n: 5,
    rows: new Uint32Array(0),
    dense: new Float32Array(0),
    labels: Float32Array.of(1, 0, 0, 1, 0),
    groups: Float64Array.of(0, 0, 0, 1, 1),
  }
  const script = [Float32Array.of(0.1, 0.2, 0.5, 0.4, 0.3), Float32Array.of(0.2, 0.1, 0.3, 0.4, 0.5)]
  /** A backend whose evaluation k predicts script[min(k, last)]; training steps do nothing. */
  function scripted(): RecsysBackend {
    let calls = 0
    const state = { weights: { embeddings: new Float32Array(0), dense: [] }, opt: { step: 0, m: [], v: [] } }
    return {
      shape: { sparse: 0, dim: 1, totalRows: 0, dense: 0, layers: [] },
      maxBatch: 1024,
      step: async () => {},
      takeLosses: async () => [0.5],
      predict: async () => script[Math.min(calls++, script.length - 1)],
      firstNonFinite: async () => undefined,
      exportState: async () => state,
      importState: async () => {},
      destroy: () => {},
    }
  }
  const source = {
    stepsPerEpoch: 1,
    open: () => ({
      async *batches() {
        yield { ...valid, groups: undefined }
      },
      cursor: () => ({}) as never,
      close: async () => {},
    }),
  }
  const run = (metric: 'auc' | 'gauc' | 'logloss') =>
    trainLoop({
      params: parseRecsysParams({
        epochs: 10,
        eval_every: 1,
        early_stopping_rounds: 1,
        early_stopping_metric: metric,
        gauc_group: 'g',
        restore_best: false,
      }),
      backend: scripted(),
      source,
      valid,
    })

  test('gauc stops where AUC would go on, and the other way round', async () => {
    const g = await run('gauc')
    expect(g.metrics.map(m => m.validGauc)).toEqual([0.4, expect.closeTo(0.3, 12)])
    expect(g.stoppedEarly).toBe(true)
    expect([g.state.bestStep, g.state.bestAuc]).toEqual([1, 0.4])
    const a = await run('auc')
    expect(a.metrics.map(m => m.validAuc)).toEqual([expect.closeTo(1 / 3, 12), 0.5, 0.5])
    expect([a.state.bestStep, a.state.bestAuc]).toEqual([2, 0.5])
  })

  test('logloss is minimised', async () => {
    const l = await run('logloss')
    const losses = l.metrics.map(m => m.validLogloss!)
    expect(l.state.bestAuc).toBe(Math.min(...losses))
    expect(losses[1]).toBeLessThan(losses[0])
    expect(l.state.bestStep).toBe(2)
  })
})

describe('gauc in a CPU-reference run', () => {
  test('metrics rows and the summary carry gauc and calibration; early stopping follows gauc', {
    timeout: 30_000,
  }, async () => {
    const fx = await clicksFixture()
    // 'country' groups the rows but is no feature: the run must read it for the validation rows only.
    const r = await runTraining<RecsysTrainResult>({
      model: 'recsys',
      table: 'http://table.test/',
      label: 'label',
      features: ['item_id', 'device', 'dense_0', 'dense_1'],
      validFraction: 0.3,
      params: {
        epochs: 50,
        batch_size: 256,
        embedding_dim: 4,
        layers: [8],
        lr: 0.05,
        eval_every: 2,
        gauc_group: 'country',
        early_stopping_metric: 'gauc',
        early_stopping_rounds: 1,
        restore_best: false,
      },
      backend: 'cpu',
      workers: 0,
      http: { fetch: fx.fetch },
    })
    const rows = r.metrics
    const gaucs = rows.map(m => m.gauc)
    console.log(
      `gauc per evaluation: ${gaucs.map(g => g.toFixed(4)).join(' ')}; auc ${rows.map(m => m.auc.toFixed(4)).join(' ')}`,
    )
    for (const m of rows) {
      expect(m.gauc).toBeGreaterThan(0)
      expect(m.gauc).toBeLessThan(1)
      expect(m.calibration).toBeGreaterThan(0)
      expect(m.gauc).not.toBe(m.auc)
    }
    // early_stopping_rounds 1: every evaluation but the last improved gauc; the last did not.
    expect(rows.length).toBeGreaterThan(1)
    for (let i = 1; i < rows.length - 1; i++) expect(gaucs[i]).toBeGreaterThan(gaucs[i - 1])
    expect(gaucs.at(-1)!).toBeLessThanOrEqual(Math.max(...gaucs.slice(0, -1)))
    const s = r.summary as { gauc: number; calibration: number; steps: number; best_iteration: number }
    expect(s.steps).toBe(rows.at(-1)!.step)
    expect(s.gauc).toBe(gaucs.at(-1))
    expect(s.calibration).toBe(rows.at(-1)!.calibration)
    expect(s.best_iteration).toBe(gaucs.indexOf(Math.max(...gaucs)))
    expect((r.manifest as { metrics: Array<Record<string, number>> }).metrics[0].gauc).toBe(gaucs[0])
  })
})

describe('the group column in a sweep', () => {
  test("a sweep's in-memory validation rows carry the same groups as a training run's", {
    timeout: 30_000,
  }, async () => {
    const fx = await clicksFixture()
    const params = parseRecsysParams({ batch_size: 512, gauc_group: 'country', seed: 3 })
    const config = {
      table: 'http://table.test/',
      label: 'label',
      features: ['item_id', 'dense_0'],
      validFraction: 0.2,
      workers: 0,
      http: { fetch: fx.fetch },
    }
    const snapshot = await openSnapshot(config.table, { fetch: fx.fetch })
    const table = await loadRecsysTable({ config, snapshot }, () => {}, 'country')
    const inMemory = table.data(params).valid
    const run = await openRecsysData({ ...config, plan: fx.plan }, params)
    expect(inMemory.n).toBeGreaterThan(0)
    expect(inMemory.groups).toEqual(run.valid.groups)
    expect(new Set(inMemory.groups).size).toBeGreaterThan(1)
    expect(() => table.data(parseRecsysParams({ gauc_group: 'device' }))).toThrow(/gauc_group 'device' differs/)
  })
})

describe('bad input', () => {
  test('gauc early stopping without a group column; calibration as a target', () => {
    expect(() => parseRecsysParams({ early_stopping_metric: 'gauc' })).toThrow(
      /early_stopping_metric 'gauc' needs gauc_group/,
    )
    expect(() => parseRecsysParams({ early_stopping_metric: 'calibration' })).toThrow(
      /early_stopping_metric: calibration is reported, not optimised/,
    )
    expect(() => parseRecsysParams({ early_stopping_metric: 'ndcg' })).toThrow(/early_stopping_metric must be one of/)
    expect(() => parseRecsysParams({ gauc_group: 3 })).toThrow(/gauc_group must be a column name, got 3/)
  })

  test('a group column not in the table is named, before training (precheck and data)', async () => {
    const fx = await clicksFixture()
    const params = parseRecsysParams({ gauc_group: 'user' })
    const snapshot = await openSnapshot('http://table.test/', { fetch: fx.fetch })
    const config = { table: 'http://table.test/', label: 'label', http: { fetch: fx.fetch } }
    await expect(recsysFamily.precheck(snapshot, config, params)).rejects.toThrow(
      /--params: gauc_group: column 'user' does not exist \(columns: .*user_id/,
    )
    await expect(
      openRecsysData(
        { plan: fx.plan, label: 'label', validFraction: 0.2, workers: 0, http: { fetch: fx.fetch } },
        params,
      ),
    ).rejects.toThrow(/gauc_group: column 'user' does not exist/)
    await expect(recsysFamily.precheck(snapshot, config, parseRecsysParams({ gauc_group: 'emb' }))).rejects.toThrow(
      /gauc_group: column 'emb' of type .* cannot group rows/,
    )
  })

  test('a sweep metric: gauc needs recsys and a fixed group column; calibration is refused', () => {
    const base: SweepConfig = { model: 'recsys', table: 't', label: 'label', strategy: 'random', trials: 2 }
    const errors = (c: Partial<SweepConfig>) => planSweep({ ...base, ...c } as SweepConfig).errors.join('; ')
    expect(errors({ metric: 'gauc' })).toMatch(/metric 'gauc' needs a gauc_group column/)
    expect(errors({ metric: 'gauc', fixed: { gauc_group: 'user_id' } })).toBe('')
    expect(errors({ metric: 'gauc', space: { gauc_group: 'user_id', lr: 0.01 } })).toBe('')
    expect(errors({ metric: 'gauc', model: 'gbdt' })).toMatch(/'gauc' is a recommender metric/)
    expect(errors({ metric: 'calibration' as SweepConfig['metric'] })).toMatch(/calibration is reported, not optimised/)
  })
})
