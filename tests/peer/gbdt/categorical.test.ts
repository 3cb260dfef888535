/**
 * Native categorical splits in training (XGBoost 1.7 `hist` with enable_categorical): the
 * parameters and their refusals, categorical cuts (a bin per code), trees with split type 1 whose
 * sets route rows as the binned partition did, and validation AUC against real XGBoost 1.7.
 */
import { describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { train } from '../../../src/models/gbdt/driver.ts'
import type { TrainData } from '../../../src/eval/dataset.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { buildCuts, featureBins, searchBin } from '../../../src/models/gbdt/cuts.ts'
import { binAt, binMatrix } from '../../../src/models/gbdt/binned.ts'
import { categoricalFlags } from '../../../src/models/gbdt/features.ts'
import { leafByBins } from '../../../src/models/gbdt/tree.ts'
import { leafOf, predict } from '../../../src/models/gbdt/predict.ts'
import { auc } from '../../../src/eval/metrics.ts'
import { PYTHON, requireXgboost, runXgboostTests } from '../../support/peers.ts'
import { categoricalData } from '../../unit/gbdt/categorical-data.ts'
import { localGroup } from '../../../src/ranks/local-group.ts'
import { shardOf, trainShard } from '../../../src/models/gbdt/ranks.ts'
import { createCpuBackend } from '../../../src/models/gbdt/cpu-backend.ts'

const names = ['c12', 'c3', 'x0', 'x1'],
  types = ['c', 'int', 'float', 'float']

describe('categorical parameters', () => {
  it('defaults are XGBoost 1.7’s and enable_categorical accepts the usual spellings', () => {
    const p = parseParams({})
    expect([p.enable_categorical, p.max_cat_to_onehot, p.max_cat_threshold, p.categorical]).toEqual([false, 4, 64, []])
    expect(parseParams({ enable_categorical: 'true' }).enable_categorical).toBe(true)
    expect(parseParams({ enable_categorical: 0 }).enable_categorical).toBe(false)
    expect(parseParams({ enable_categorical: true, categorical: 'c3, x9' }).categorical).toEqual(['c3', 'x9'])
  })

  it.each([
    [{ max_cat_to_onehot: 0 }, 'max_cat_to_onehot: must be an integer in [1, 2147483647], got 0'],
    [{ max_cat_to_onehot: 2.5 }, 'max_cat_to_onehot: must be an integer'],
    [{ max_cat_threshold: 0 }, 'max_cat_threshold: must be an integer in [1, 2147483647], got 0'],
    [{ max_cat_threshold: -3 }, 'max_cat_threshold: must be an integer'],
    [{ enable_categorical: 'yes' }, 'enable_categorical: must be true or false, got "yes"'],
    [{ enable_categorical: true, categorical: [3] }, 'categorical: must list column names'],
    [{ categorical: ['c3'] }, 'categorical: splitting c3 as categories needs enable_categorical=true'],
  ])('refuses %j', (raw, message) => {
    expect(() => parseParams(raw)).toThrow(RangeError)
    expect(() => parseParams(raw)).toThrow(message)
  })

  it('flags string features and listed integer columns; refuses unknown and float columns by name', () => {
    const on = parseParams({ enable_categorical: true, categorical: ['c3'] })
    expect(Array.from(categoricalFlags(names, types, on))).toEqual([1, 1, 0, 0])
    expect(Array.from(categoricalFlags(names, types, parseParams({})))).toEqual([0, 0, 0, 0])
    expect(() => categoricalFlags(names, types, { ...on, categorical: ['x0'] })).toThrow(
      'categorical: column x0 is a float feature; only integer, boolean and string columns can be categorical',
    )
    expect(() => categoricalFlags(names, types, { ...on, categorical: ['nope'] })).toThrow(
      /categorical: no feature column nope \(features: c12, c3, x0, x1\)/,
    )
  })
})

describe('categorical cuts', () => {
  const flags = { flags: Uint8Array.of(1), names: ['job'] }

  it('one bin per code 0 … max (codes not seen included, as XGBoost), whatever max_bin says', () => {
    const col = Float32Array.from([5, 0, 2, NaN, 5, 2])
    const cuts = buildCuts([col], 2, undefined, flags)
    expect(featureBins(cuts, 0)).toBe(6)
    expect(Array.from(cuts.cutValues)).toEqual([1, 2, 3, 4, 5, 6])
    expect(Array.from(cuts.categorical!)).toEqual([1])
    // The numeric bin search finds each code's own bin, so binning needs no categorical branch.
    expect([0, 2, 5].map(v => searchBin(cuts, 0, v))).toEqual([0, 2, 5])
    const m = binMatrix([col], cuts)
    expect(Array.from({ length: 6 }, (_, i) => binAt(m, i, 0))).toEqual([5, 0, 2, -1, 5, 2])
    // Without enable_categorical nothing changes: quantile cuts, no flags.
    expect(buildCuts([col], 2).categorical).toBeUndefined()
  })

  it('keeps the maximum code when the sketch prunes many rows', () => {
    const col = Float32Array.from({ length: 200_000 }, (_, i) => (i * 7919) % 251)
    const cuts = buildCuts([col], 16, undefined, flags)
    expect(featureBins(cuts, 0)).toBe(251)
  })

  it('refuses non-integer or negative codes, naming the column and row', () => {
    expect(() => buildCuts([Float32Array.from([0, 1.5])], 256, undefined, flags)).toThrow(
      'feature job: a categorical column must hold non-negative integer codes, got 1.5 at row 1',
    )
    expect(() => buildCuts([Float32Array.from([-1, 2])], 256, undefined, flags)).toThrow(/got -1 at row 0/)
  })

  it('refuses more categories than a feature’s byte holds, saying what to change', () => {
    const wide = Float32Array.from({ length: 300 }, (_, i) => i)
    expect(() => buildCuts([wide], 256, undefined, flags)).toThrow(
      /feature job: categorical codes up to 299 need 300 bins, more than the 256 a feature holds: merge rare categories/,
    )
    // 256 codes fit, but not beside missing values (byte 0 marks missing).
    const full = Float32Array.from({ length: 257 }, (_, i) => (i === 256 ? NaN : i))
    expect(featureBins(buildCuts([full.slice(0, 256)], 256, undefined, flags), 0)).toBe(256)
    expect(() => buildCuts([full], 256, undefined, flags)).toThrow(
      /need 256 bins, more than the 255 .* beside its missing/,
    )
  })

  it('train refuses too many categories naming the column', async () => {
    const n = 400
    const data: TrainData = {
      columns: [Float32Array.from({ length: n }, (_, i) => i % 300)],
      labels: Float32Array.from({ length: n }, (_, i) => i % 2),
      featureNames: ['zip'],
      featureTypes: ['int'],
    }
    await expect(train(data, parseParams({ enable_categorical: true, categorical: ['zip'] }))).rejects.toThrow(
      /feature zip: categorical codes up to 299 need 300 bins/,
    )
  })
})

describe('training with categorical splits (CPU reference)', () => {
  const data = categoricalData(3000, 7)
  const raw = { max_depth: 4, num_round: 12, eta: 0.3, eval_metric: ['auc'] }

  it('enable_categorical false splits codes as numbers and records string features as int', async () => {
    const b = await train(data, parseParams(raw))
    expect(b.featureTypes).toEqual(['int', 'int', 'float', 'float'])
    expect(b.trees.every(t => t.splitType.every(x => x === 0))).toBe(true)
  })

  it('grows one-hot and partition splits whose sets route rows as the binned partition did', async () => {
    const p = parseParams({ ...raw, enable_categorical: true, categorical: ['c3'] })
    const b = await train(data, p)
    expect(b.featureTypes).toEqual(['c', 'c', 'float', 'float'])
    const cat = b.trees.flatMap(t =>
      Array.from(t.splitType.keys())
        .filter(k => t.splitType[k] === 1)
        .map(k => [t, k] as const),
    )
    expect(cat.length).toBeGreaterThan(0)
    // c3 (3 codes < max_cat_to_onehot 4): one-hot sets of one code; c12: partitions, some larger.
    for (const [t, k] of cat) {
      const set = Array.from(t.categories.subarray(t.catBegin[k], t.catBegin[k] + t.catSize[k]))
      expect(t.splitBin[k]).toBe(-1)
      expect(set).toEqual([...set].sort((x, y) => x - y))
      if (t.splitIndex[k] === 1) expect(set).toHaveLength(1)
      else expect(t.splitIndex[k]).toBe(0)
    }
    expect(cat.some(([t, k]) => t.splitIndex[k] === 0 && t.catSize[k] > 1)).toBe(true)
    // Raw-value walks (nextNode) and the bins (leafByBins) reach the same leaf for every training row.
    const cuts = buildCuts(data.columns, p.max_bin, undefined, { flags: Uint8Array.of(1, 1, 0, 0), names })
    const m = binMatrix(data.columns, cuts)
    for (const t of b.trees)
      for (let i = 0; i < data.labels.length; i += 7)
        expect(leafByBins(t, f => binAt(m, i, f))).toBe(leafOf(t, data.columns, i))
    // Native splits beat ordinal codes on codes whose order carries nothing.
    const ordinal = await train(data, parseParams(raw))
    expect(b.history[11].auc).toBeGreaterThan(ordinal.history[11].auc)
  })

  it('max_cat_to_onehot 1 makes c3 a partition feature; max_cat_threshold 1 leaves no categorical split', async () => {
    const part = await train(data, parseParams({ ...raw, enable_categorical: true, max_cat_to_onehot: 1 }))
    expect(part.trees.some(t => t.splitType.some(x => x === 1))).toBe(true)
    const none = await train(
      data,
      parseParams({ ...raw, num_round: 3, enable_categorical: true, max_cat_to_onehot: 1, max_cat_threshold: 1 }),
    )
    expect(none.trees.every(t => t.splitType.every(x => x === 0))).toBe(true)
  })
})

describe('categorical splits across ranks', () => {
  it('R = 2, 3 ranks grow the trees R = 1 grows, sets included', async () => {
    const data = categoricalData(1200, 5)
    const p = parseParams({ max_depth: 3, num_round: 3, enable_categorical: true, categorical: ['c3'] })
    const want = await train(data, p)
    expect(want.trees.some(t => t.splitType.some(x => x === 1))).toBe(true)
    for (const world of [2, 3]) {
      const group = localGroup(world)
      const got = await Promise.all(group.map(c => trainShard(shardOf(data, world, c.rank), p, c, createCpuBackend)))
      for (const b of got) {
        expect(b.featureTypes).toEqual(want.featureTypes)
        b.trees.forEach((t, k) => expect(t).toEqual(want.trees[k]))
      }
    }
  })
})

/** XGBoost 1.7 hist with enable_categorical on the same rows: validation probabilities, one per line. */
const XGB = `
import sys, json, numpy as np, xgboost as xgb
d = json.load(open(sys.argv[1]))
def mat(cols): return np.array([[np.nan if v is None else v for v in c] for c in cols], dtype=np.float32).T
kw = dict(enable_categorical=True, feature_types=d['types'])
dt = xgb.DMatrix(mat(d['train']), d['y'], **kw)
dv = xgb.DMatrix(mat(d['valid']), **kw)
b = xgb.train(d['params'], dt, d['rounds'])
print(json.dumps(b.predict(dv).tolist()))
`

describe.skipIf(!runXgboostTests)('validation AUC against XGBoost 1.7 enable_categorical', () => {
  it('within 0.003 on a 12-level and a 3-level categorical column', async () => {
    requireXgboost()
    const data = categoricalData(5000, 11)
    const shared = { max_depth: 4, eta: 0.3, min_child_weight: 1, lambda: 1, max_bin: 256, base_score: 0.5 }
    const p = parseParams({
      ...shared,
      num_round: 30,
      enable_categorical: true,
      categorical: ['c3'],
      eval_metric: ['auc'],
    })
    const ours = await train(data, p)
    const dir = mkdtempSync(join(tmpdir(), 'snaptrain-cat-'))
    const nulls = (c: Float32Array): Array<number | null> => Array.from(c, v => (Number.isNaN(v) ? null : v))
    writeFileSync(
      join(dir, 'data.json'),
      JSON.stringify({
        train: data.columns.map(nulls),
        valid: data.valid!.columns.map(nulls),
        y: Array.from(data.labels),
        types: ['c', 'c', 'q', 'q'],
        params: {
          ...shared,
          tree_method: 'hist',
          objective: 'binary:logistic',
          max_cat_to_onehot: 4,
          max_cat_threshold: 64,
        },
        rounds: 30,
      }),
    )
    const r = spawnSync(PYTHON, ['-c', XGB, join(dir, 'data.json')], { encoding: 'utf8', timeout: 120_000 })
    expect(r.stderr).toBe('')
    const theirs = auc(Float32Array.from(JSON.parse(r.stdout) as number[]), data.valid!.labels)
    const mine = auc(predict(ours, data.valid!.columns), data.valid!.labels)
    expect(mine).toBeCloseTo(ours.history[29].auc, 6)
    console.log(`categorical validation AUC: snaptrain ${mine.toFixed(5)}, XGBoost 1.7 ${theirs.toFixed(5)}`)
    expect(Math.abs(mine - theirs)).toBeLessThanOrEqual(0.003)
  })
})
