/**
 * Row weights and base margins (XGBoost's DMatrix weight= and base_margin=) in the GBDT: the
 * weighted quantile sketch against a brute-force weighted rank on random and tied input, with
 * rows of weight 0 taking no place; parts of any row split (ranks, loader workers) merging to
 * the one-pass sketch for fractional weights; weighted validation metrics; base margins as each
 * row's starting margin in training, evaluation and predict; the row columns' refusals.
 */
import { describe, expect, it } from 'vitest'
import {
  chunkParts,
  mergeParts,
  sketchColumn,
  sketchPlaces,
  sketchPlan,
  summarise,
} from '../../../src/models/gbdt/sketch.ts'
import { buildCuts, featureBins } from '../../../src/models/gbdt/cuts.ts'
import { train } from '../../../src/models/gbdt/driver.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { predict, predictMargins } from '../../../src/models/gbdt/predict.ts'
import { createCpuBackend } from '../../../src/models/gbdt/cpu-backend.ts'
import { evaluate } from '../../../src/eval/metrics.ts'
import { selectFeatures } from '../../../src/eval/features.ts'
import { checkRowValues, pickRowValues } from '../../../src/eval/row-columns.ts'
import type { StructType } from '../../../src/table/types.ts'
import { Rng } from '../../../src/util/rng.ts'
import { makeBinary, sliceColumns } from './synthetic.ts'

/** Brute force: [weight strictly below v, weight up to and including v]. */
function weightedRank(values: ArrayLike<number>, weights: ArrayLike<number>, v: number): [number, number] {
  let below = 0,
    upTo = 0
  for (let i = 0; i < values.length; i++) {
    if (Number.isNaN(values[i])) continue
    if (values[i] < v) below += weights[i]
    if (values[i] <= v) upTo += weights[i]
  }
  return [below, upTo]
}

/** A column with ties (rounded), missing values, and weights in (0, 3) with some 0. */
function weightedColumn(
  n: number,
  seed: number,
  step = 0.25,
  wide = false,
): { values: Float32Array; weights: Float32Array } {
  const rng = new Rng(seed)
  const values = Float32Array.from({ length: n }, () =>
    rng.next() < 0.05 ? NaN : Math.round(rng.normal() / step) * step,
  )
  // `wide`: weights over many orders of magnitude, whose float sums depend on the order of adding.
  const weights = Float32Array.from({ length: n }, () =>
    rng.next() < 0.15 ? 0 : wide ? Math.exp(6 * rng.normal()) : 3 * rng.next(),
  )
  return { values, weights }
}

describe('weighted sketch', () => {
  it('an exact summary holds the brute-force weighted ranks of every distinct value (ties, zeros, missing)', () => {
    const { values, weights } = weightedColumn(3000, 1)
    const s = summarise(values, weights)
    const distinct = new Set(Array.from(values).filter((v, i) => !Number.isNaN(v) && weights[i] > 0))
    expect(s.values.length).toBe(distinct.size)
    expect(s.values.length).toBeLessThan(100) // ties collapsed
    for (let k = 0; k < s.values.length; k++) {
      const [below, upTo] = weightedRank(values, weights, s.values[k])
      expect(s.rmin[k]).toBeCloseTo(below, 6)
      expect(s.rmax[k]).toBeCloseTo(upTo, 6)
      expect(s.wmin[k]).toBeCloseTo(upTo - below, 6)
    }
  })

  it('the merged sketch over several chunks keeps valid rank bounds; cuts sit near weighted quantiles', () => {
    for (const [seed, step] of [
      [2, 0.001],
      [3, 0.25],
    ]) {
      const n = 40_000,
        maxBin = 16
      const { values, weights } = weightedColumn(n, seed, step)
      expect(Math.ceil(n / sketchPlan(n, maxBin).chunkRows)).toBeGreaterThan(3)
      const s = sketchColumn(values, weights, maxBin)
      const total = weights.reduce((a, w, i) => (Number.isNaN(values[i]) ? a : a + w), 0)
      expect(s.rmax[s.values.length - 1]).toBeCloseTo(total, 1)
      const eps = total / maxBin
      for (let k = 0; k < s.values.length; k++) {
        const [below, upTo] = weightedRank(values, weights, s.values[k])
        expect(s.rmin[k]).toBeLessThanOrEqual(below + 1e-3)
        expect(s.rmax[k]).toBeGreaterThanOrEqual(upTo - 1e-3)
        expect(s.rmax[k] - s.rmin[k] - (upTo - below)).toBeLessThanOrEqual(eps)
      }
      // Cut b's weighted rank is within one bin's weight of the quantile b / B (B = bins).
      const cuts = buildCuts([values], maxBin, weights)
      const bins = featureBins(cuts, 0)
      expect(bins).toBeGreaterThan(4)
      for (let b = 0; b + 1 < bins; b++) {
        const [below] = weightedRank(values, weights, cuts.cutValues[b])
        expect(Math.abs(below / total - (b + 1) / bins)).toBeLessThanOrEqual(1.5 / bins)
      }
    }
  })

  it('weight-0 rows take no place: the sketch equals the one of the rows without them', () => {
    const n = 30_000,
      maxBin = 16
    const { values, weights } = weightedColumn(n, 4, 0.01)
    const keep = Array.from(weights, w => w > 0)
    const vKept = values.filter((_, i) => keep[i]),
      wKept = weights.filter((_, i) => keep[i])
    expect(sketchPlaces(weights)).toBe(vKept.length)
    // Same plan (it counts rows, weight 0 or not), same places: equal summaries.
    const places = vKept.length
    const fromKept = mergeParts([chunkParts(vKept, wKept, 0, n, maxBin, places)], n, maxBin, places)
    expect(sketchColumn(values, weights, maxBin)).toEqual(fromKept)
    // …which a row-count chunking (zeros holding places) would not give.
    const byRows = mergeParts(
      [
        chunkParts(
          values,
          Float32Array.from(weights, w => w || 1e-30),
          0,
          n,
          maxBin,
        ),
      ],
      n,
      maxBin,
    )
    expect(byRows).not.toEqual(fromKept)
  })

  it('parts of any contiguous row split merge to the one-pass sketch, for fractional weights too', () => {
    const n = 25_000,
      maxBin = 16
    const { values, weights } = weightedColumn(n, 5, 0.003, true)
    const want = sketchColumn(values, weights, maxBin)
    const places = sketchPlaces(weights)
    const rng = new Rng(6)
    for (let trial = 0; trial < 4; trial++) {
      const cut = [0, ...Array.from(rng.floats(4, 0, n), Math.floor).sort((a, b) => a - b), n]
      const parts = cut
        .slice(1)
        .map((hi, u) =>
          chunkParts(
            values.subarray(cut[u], hi),
            weights.subarray(cut[u], hi),
            sketchPlaces(weights, 0, cut[u]),
            n,
            maxBin,
            places,
          ),
        )
      expect(mergeParts(parts, n, maxBin, places)).toEqual(want)
    }
  })
})

describe('weights and base margins in training', () => {
  const d = makeBinary(1400, 5, 8, 0.1)
  const rng = new Rng(12)
  const w = Float32Array.from({ length: 1400 }, () => rng.next() * 2)
  const m = Float32Array.from({ length: 1400 }, () => rng.normal() * 0.5)
  const data = {
    columns: sliceColumns(d.columns, 0, 1000),
    labels: d.labels.slice(0, 1000),
    weights: w.slice(0, 1000),
    baseMargin: m.slice(0, 1000),
    valid: {
      columns: sliceColumns(d.columns, 1000, 1400),
      labels: d.labels.slice(1000, 1400),
      weights: w.slice(1000, 1400),
      baseMargin: m.slice(1000, 1400),
    },
  }
  const p = parseParams({ max_depth: 3, eta: 0.3, num_round: 4, base_score: 0.5, eval_metric: ['logloss', 'auc'] })

  it('validation metrics are weighted and start from the rows’ base margins', async () => {
    const b = await train(data, p)
    const margins = predictMargins(b, data.valid.columns, undefined, data.valid.baseMargin)
    const probs = predict(b, data.valid.columns).map((_, i) => 1 / (1 + Math.exp(-margins[i])))
    for (const metric of ['logloss', 'auc'] as const) {
      const want = evaluate(metric, probs, data.valid.labels, data.valid.weights)
      expect(b.history[3][metric]).toBeCloseTo(want, 5)
      expect(b.history[3][metric]).not.toBeCloseTo(evaluate(metric, probs, data.valid.labels), 5)
    }
  })

  it('training margins start at the base margin (not base_score); predict adds the trees to it', async () => {
    const b = await train(data, p)
    let trainMargins: Float32Array | undefined
    await train(data, p, async setup => {
      const inner = await createCpuBackend(setup)
      const finish = inner.finishTrees.bind(inner)
      inner.finishTrees = async (trees, values) => {
        await finish(trees, values)
        trainMargins = (await inner.trainMargins()).slice()
      }
      return inner
    })
    expect(Array.from(trainMargins!)).toEqual(Array.from(predictMargins(b, data.columns, undefined, data.baseMargin)))
    const plain = await train({ ...data, baseMargin: undefined, valid: { ...data.valid, baseMargin: undefined } }, p)
    expect(plain.trees[0]).not.toEqual(b.trees[0])
  })

  it('a base margin of the model’s own base margin everywhere trains the same model as none', async () => {
    const zero = new Float32Array(1000),
      zeroV = new Float32Array(400)
    const a = await train({ ...data, baseMargin: zero, valid: { ...data.valid, baseMargin: zeroV } }, p)
    const b = await train({ ...data, baseMargin: undefined, valid: { ...data.valid, baseMargin: undefined } }, p)
    expect(a.trees).toEqual(b.trees) // base_score 0.5: margin 0
    expect(a.history).toEqual(b.history)
  })
})

describe('row columns: refusals name the column', () => {
  const SCHEMA: StructType = {
    type: 'struct',
    fields: [
      { name: 'x', type: 'double', nullable: true, metadata: {} },
      { name: 'w', type: 'float', nullable: true, metadata: {} },
      { name: 'm', type: 'double', nullable: true, metadata: {} },
      { name: 's', type: 'string', nullable: true, metadata: {} },
      { name: 'y', type: 'integer', nullable: false, metadata: {} },
    ],
  }

  it('schema: missing, non-numeric, the label, the other row column, a requested feature; never a default feature', () => {
    expect(selectFeatures(SCHEMA, 'y', undefined, { weight: 'w', baseMargin: 'm' }).features.map(f => f.name)).toEqual([
      'x',
      's',
    ])
    expect(() => selectFeatures(SCHEMA, 'y', undefined, { weight: 'nope' })).toThrow(
      /^weight column nope: not in the table/,
    )
    expect(() => selectFeatures(SCHEMA, 'y', undefined, { weight: 's' })).toThrow(/^weight column s: must be numeric/)
    expect(() => selectFeatures(SCHEMA, 'y', undefined, { baseMargin: 'y' })).toThrow(
      /^base margin column y: it is the label column/,
    )
    expect(() => selectFeatures(SCHEMA, 'y', undefined, { weight: 'w', baseMargin: 'w' })).toThrow(
      /^base margin column w: it is the weight column/,
    )
    expect(() => selectFeatures(SCHEMA, 'y', ['x', 'w'], { weight: 'w' })).toThrow(/--features: w is the weight column/)
  })

  it('values: null, negative, infinite weights; all-zero weights; null or infinite base margins — file and row named', () => {
    const t = (weights?: number[], baseMargin?: number[]) => ({
      rowValues: {
        weights: weights && Float32Array.from(weights),
        baseMargin: baseMargin && Float32Array.from(baseMargin),
      },
      paths: ['a.parquet', 'a.parquet', 'b.parquet'],
      rows: Uint32Array.of(0, 1, 7),
    })
    const w = { weight: 'w' },
      m = { baseMargin: 'm' }
    expect(checkRowValues(w, t([1, 0, 2.5]), 'training').weights).toEqual(Float32Array.of(1, 0, 2.5))
    expect(() => checkRowValues(w, t([1, 0, NaN]))).toThrow('weight column w: null at b.parquet row 7')
    expect(() => checkRowValues(w, t([1, -1, 2]))).toThrow('weight column w: negative weight -1 at a.parquet row 1')
    expect(() => checkRowValues(w, t([Infinity, 1, 2]))).toThrow(
      /weight column w: weight Infinity is not finite at a.parquet row 0/,
    )
    expect(() => checkRowValues(w, t([0, 0, 0]), 'training')).toThrow(
      'weight column w: every training row has weight 0',
    )
    expect(checkRowValues(w, t([0, 0, 0])).weights).toHaveLength(3) // a part of a table: the sum is checked elsewhere
    expect(checkRowValues(m, t(undefined, [-3, 0, 1e30])).baseMargin).toHaveLength(3)
    expect(() => checkRowValues(m, t(undefined, [0, NaN, 1]))).toThrow('base margin column m: null at a.parquet row 1')
    expect(() => checkRowValues(m, t(undefined, [0, 1, -Infinity]))).toThrow(
      'base margin column m: -Infinity is not finite at b.parquet row 7',
    )
  })

  it('the validation split takes each row’s weight and base margin with it', () => {
    const v = { weights: Float32Array.of(1, 2, 3, 4), baseMargin: Float32Array.of(-1, -2, -3, -4) }
    const side = Uint8Array.of(0, 1, 1, 0)
    const pick = (want: number) => (a: Float32Array) => a.filter((_, i) => side[i] === want)
    expect(pickRowValues(v, pick(0))).toEqual({ weights: Float32Array.of(1, 4), baseMargin: Float32Array.of(-1, -4) })
    expect(pickRowValues(v, pick(1))).toEqual({ weights: Float32Array.of(2, 3), baseMargin: Float32Array.of(-2, -3) })
    expect(pickRowValues({}, pick(0))).toEqual({})
  })
})
