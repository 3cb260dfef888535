import { describe, expect, it } from 'vitest'
import { train } from '../../../src/models/gbdt/driver.ts'
import type { TrainData } from '../../../src/eval/dataset.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { fromXGBoostJson, toXGBoostJson, toXGBoostJsonString } from '../../../src/models/gbdt/xgboost-json.ts'
import { predict, predictMargins } from '../../../src/models/gbdt/predict.ts'
import { auc } from '../../../src/eval/metrics.ts'
import { rowSampled } from '../../../src/models/gbdt/sampling.ts'
import type { Tree } from '../../../src/models/gbdt/types.ts'
import { Rng } from '../../../src/util/rng.ts'
import { makeBinary, sliceColumns } from './synthetic.ts'

function split(n: number, f: number, seed: number, missing = 0): TrainData {
  const d = makeBinary(n, f, seed, missing)
  const cut = Math.floor(n * 0.7)
  return {
    columns: sliceColumns(d.columns, 0, cut),
    labels: d.labels.slice(0, cut),
    valid: { columns: sliceColumns(d.columns, cut, n), labels: d.labels.slice(cut) },
  }
}

function depthOf(t: Tree, nid: number): number {
  let d = 0
  for (let n = nid; t.parent[n] >= 0 && t.parent[n] !== 2147483647; n = t.parent[n]) d++
  return d
}

const leaves = (t: Tree): number => t.left.filter(c => c === -1).length
const data = split(2400, 6, 11, 0.1)

describe('train (CPU backend)', () => {
  it('reaches a high validation AUC, metrics every round', async () => {
    const b = await train(data, parseParams({ max_depth: 4, num_round: 15, eval_metric: ['logloss', 'auc'] }))
    expect(b.trees).toHaveLength(15)
    expect(b.history).toHaveLength(15)
    expect(b.history[14].auc).toBeGreaterThan(0.93)
    expect(b.history[14].logloss).toBeLessThan(b.history[0].logloss)
    // Metrics in history agree with predicting the exported model from scratch.
    expect(auc(predict(b, data.valid!.columns), data.valid!.labels)).toBeCloseTo(b.history[14].auc, 6)
    for (const t of b.trees) for (let n = 0; n < t.left.length; n++) expect(depthOf(t, n)).toBeLessThanOrEqual(4)
  })

  it('is deterministic: same seed ⇒ byte-identical model JSON (with sampling)', async () => {
    const p = parseParams({
      max_depth: 3,
      num_round: 6,
      subsample: 0.7,
      colsample_bytree: 0.8,
      colsample_bynode: 0.7,
      seed: 5,
    })
    const a = toXGBoostJsonString(await train(data, p))
    const b = toXGBoostJsonString(await train(data, p))
    expect(a).toBe(b)
    const c = toXGBoostJsonString(await train(data, { ...p, seed: 6 }))
    expect(c).not.toBe(a)
  })

  it('lossguide grows at most max_leaves leaves per tree and learns', async () => {
    const b = await train(
      data,
      parseParams({ grow_policy: 'lossguide', max_leaves: 6, max_depth: 0, num_round: 10, eval_metric: 'auc' }),
    )
    for (const t of b.trees) expect(leaves(t)).toBeLessThanOrEqual(6)
    expect(b.trees.some(t => leaves(t) === 6)).toBe(true)
    expect(b.history[9].auc).toBeGreaterThan(0.9)
  })

  it('learns a default direction for missing values', async () => {
    // Feature 0 is missing exactly for positives-heavy rows; feature 1 is noise.
    const rng = new Rng(4),
      n = 1000
    const x0 = new Float32Array(n),
      x1 = new Float32Array(n),
      y = new Float32Array(n)
    for (let i = 0; i < n; i++) {
      y[i] = rng.next() < 0.5 ? 1 : 0
      x0[i] = (y[i] === 1) === rng.next() < 0.9 ? NaN : rng.normal()
      x1[i] = rng.normal()
    }
    const b = await train({ columns: [x0, x1], labels: y }, parseParams({ max_depth: 1, num_round: 1 }))
    const t = b.trees[0]
    expect(t.splitIndex[0]).toBe(0)
    const pMissing = predict(b, [Float32Array.of(NaN), Float32Array.of(0)])[0]
    const pPresent = predict(b, [Float32Array.of(0.1), Float32Array.of(0)])[0]
    expect(pMissing).toBeGreaterThan(0.5)
    expect(pPresent).toBeLessThan(0.5)
  })

  it('stops early on the last metric and reports best_iteration', async () => {
    // Pure-noise labels: validation logloss stops improving after a few rounds.
    const rng = new Rng(8),
      n = 600
    const cols = [0, 1, 2].map(() => rng.floats(n))
    const labels = Float32Array.from({ length: n }, () => (rng.next() < 0.5 ? 1 : 0))
    const noisy: TrainData = {
      columns: cols.map(c => c.slice(0, 400)),
      labels: labels.slice(0, 400),
      valid: { columns: cols.map(c => c.slice(400)), labels: labels.slice(400) },
    }
    const b = await train(
      noisy,
      parseParams({ num_round: 100, max_depth: 6, early_stopping_rounds: 3, eval_metric: ['auc', 'logloss'] }),
    )
    expect(b.trees.length).toBeLessThan(100)
    expect(b.trees.length).toBe(b.bestIteration + 4)
    const ll = b.history.map(h => h.logloss)
    expect(Math.min(...ll)).toBe(ll[b.bestIteration])
    expect((toXGBoostJson(b).learner as { attributes: Record<string, string> }).attributes.best_iteration).toBe(
      String(b.bestIteration),
    )
  })

  it('row subsampling is a pure function of (seed, round, row): chunking does not change it', () => {
    const whole = Array.from({ length: 1000 }, (_, i) => rowSampled(3, 2, i, 0.6))
    const chunks = [
      [0, 337],
      [337, 1000],
    ].flatMap(([s, e]) => Array.from({ length: e - s }, (_, k) => rowSampled(3, 2, s + k, 0.6)))
    expect(chunks).toEqual(whole)
    const rate = whole.filter(Boolean).length / 1000
    expect(rate).toBeGreaterThan(0.55)
    expect(rate).toBeLessThan(0.65)
    expect(Array.from({ length: 1000 }, (_, i) => rowSampled(3, 3, i, 0.6))).not.toEqual(whole)
  })

  it('reg:squarederror fits a regression target', async () => {
    const rng = new Rng(1),
      n = 800
    const x = rng.floats(n, -2, 2),
      y = x.map(v => v * v + 0.1 * rng.normal())
    const b = await train(
      { columns: [x], labels: y, valid: { columns: [x], labels: y } },
      parseParams({ objective: 'reg:squarederror', num_round: 20, max_depth: 3 }),
    )
    expect(b.baseScore).toBeCloseTo(y.reduce((s, v) => s + v, 0) / n, 5)
    expect(b.history[19].rmse).toBeLessThan(0.2)
  })

  it('edge sizes: one row, one feature, constant and all-missing features', async () => {
    const one = await train(
      { columns: [Float32Array.of(3)], labels: Float32Array.of(1) },
      parseParams({ num_round: 2, min_child_weight: 0 }),
    )
    expect(one.trees.every(t => t.left.length === 1)).toBe(true)
    const n = 300,
      rng = new Rng(12)
    const x = rng.floats(n),
      constant = new Float32Array(n).fill(2),
      allNaN = new Float32Array(n).fill(NaN)
    const y = x.map(v => (v > 0.2 ? 1 : 0))
    const b = await train({ columns: [constant, allNaN, x], labels: y }, parseParams({ num_round: 3, max_depth: 2 }))
    for (const t of b.trees)
      for (let k = 0; k < t.left.length; k++) if (t.left[k] !== -1) expect(t.splitIndex[k]).toBe(2)
    expect(b.trees[0].splitCondition[0]).toBeCloseTo(0.2, 1)
  })

  it('row weights: weight-0 rows change nothing, unit weights equal no weights', async () => {
    const d = makeBinary(900, 4, 31)
    const p = parseParams({ num_round: 4, max_depth: 3 })
    const keep = Array.from({ length: 900 }, (_, i) => i % 3 !== 0)
    const w = Float32Array.from(keep, k => (k ? 1 : 0))
    const weighted = await train({ columns: d.columns, labels: d.labels, weights: w }, p)
    const idx = keep.flatMap((k, i) => (k ? [i] : []))
    const dropped = await train(
      {
        columns: d.columns.map(c => Float32Array.from(idx, i => c[i])),
        labels: Float32Array.from(idx, i => d.labels[i]),
      },
      p,
    )
    expect(toXGBoostJsonString(weighted)).toBe(toXGBoostJsonString(dropped))
    const unit = await train({ columns: d.columns, labels: d.labels, weights: new Float32Array(900).fill(1) }, p)
    expect(toXGBoostJsonString(unit)).toBe(
      toXGBoostJsonString(await train({ columns: d.columns, labels: d.labels }, p)),
    )
  })

  it('refuses bad input naming it', async () => {
    await expect(
      train({ columns: [new Float32Array(0)], labels: new Float32Array(0) }, parseParams({})),
    ).rejects.toThrow(/no rows/)
    await expect(
      train({ columns: [Float32Array.of(1, 2)], labels: Float32Array.of(0, 2), labelName: 'clicked' }, parseParams({})),
    ).rejects.toThrow(/label column clicked/)
    await expect(
      train(
        { columns: [Float32Array.of(1, 2)], labels: Float32Array.of(0, 1) },
        parseParams({ early_stopping_rounds: 2 }),
      ),
    ).rejects.toThrow(/early_stopping_rounds/)
    await expect(train({ columns: [], labels: Float32Array.of(0, 1) }, parseParams({}))).rejects.toThrow(
      /no feature columns/,
    )
  })
})

describe('XGBoost JSON', () => {
  it('exports the schema and imports back to the same margins', async () => {
    const b = await train(data, parseParams({ max_depth: 3, num_round: 5 }))
    const json = toXGBoostJson(b) as any
    expect(json.version).toEqual([2, 0, 0])
    const tree0 = json.learner.gradient_booster.model.trees[0]
    expect(tree0.parents[0]).toBe(2147483647)
    expect(tree0.tree_param.num_nodes).toBe(String(b.trees[0].left.length))
    expect(json.learner.learner_model_param.num_feature).toBe('6')
    expect(json.learner.gradient_booster.model.gbtree_model_param.num_trees).toBe('5')
    // Float arrays are written as float tokens even for integral values (XGBoost's reader needs it).
    expect(toXGBoostJsonString(b)).toMatch(/"sum_hessian":\[\d+\.\d+/)
    const back = fromXGBoostJson(toXGBoostJsonString(b))
    expect(Array.from(predictMargins(back, data.valid!.columns))).toEqual(
      Array.from(predictMargins(b, data.valid!.columns)),
    )
  })

  it('refuses unsupported models naming the reason', () => {
    expect(() => fromXGBoostJson({ learner: {} })).toThrow(/missing learner.gradient_booster/)
  })
})
