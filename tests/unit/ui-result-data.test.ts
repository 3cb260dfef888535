/**
 * The page's per-task results: which view a run gets (the registry's task of its parameters, from
 * the objective table), and the numbers (src/ui/result-data.ts) against plain per-row counts — the
 * seeded scatter sample, residuals' histogram and R², the multiclass confusion matrix (rows = true
 * class) and per-class precision / recall / F1 / support, also on a multiclass model trained here —
 * and what a kept run stores per task.
 */
import { describe, expect, it } from 'vitest'
import {
  classCount,
  classScores,
  confusionMatrix,
  histogram,
  histogramOutline,
  predictedClasses,
  residuals,
  rSquared,
  sampleRows,
  SAMPLE_ROWS,
  storedValidation,
} from '../../src/ui/result-data.ts'
import { Rng } from '../../src/util/rng.ts'
import { familyOf } from '../../src/models/registry.ts'
import { OBJECTIVE_NAMES } from '../../src/models/gbdt/objective.ts'
import { train } from '../../src/models/gbdt/driver.ts'
import { parseParams } from '../../src/models/gbdt/params.ts'

describe('which results a run shows: the task of its parameters (registry → objective table)', () => {
  it('follows the objective for the XGBoost families; the recommender is binary', () => {
    const gbdt = familyOf('gbdt')
    const task = (objective: string) => gbdt.task({ objective })
    // Every objective has one, from its prefix's family of tasks.
    const kinds: Record<string, string> = { binary: 'binary', reg: 'regression', count: 'regression' }
    Object.assign(kinds, { multi: 'multiclass', rank: 'ranking' })
    for (const o of OBJECTIVE_NAMES) {
      const want = o === 'reg:logistic' ? 'regression' : kinds[o.split(':')[0]]
      expect([o, task(o)]).toEqual([o, want])
    }
    expect(gbdt.task({})).toBe('binary')
    expect(familyOf('gblinear').task({ objective: 'reg:squarederror' })).toBe('regression')
    expect(familyOf('recsys').task({})).toBe('binary')
    expect(() => task('survival:cox')).toThrow('objective: survival:cox is not supported')
  })
})

describe('scatter sample', () => {
  it('keeps every row up to the limit, else that many distinct rows, ascending, the same for a seed', () => {
    expect(Array.from(sampleRows(5, 10))).toEqual([0, 1, 2, 3, 4])
    const s = sampleRows(10_000)
    expect(s.length).toBe(SAMPLE_ROWS)
    expect(new Set(s).size).toBe(SAMPLE_ROWS)
    expect(s.every((r, i) => r < 10_000 && (i === 0 || r > s[i - 1]))).toBe(true)
    expect(sampleRows(10_000)).toEqual(s)
    expect(sampleRows(10_000, SAMPLE_ROWS, 7)).not.toEqual(s)
    // Spread over the rows, not a prefix: about a fifth of the sample in each fifth of the rows.
    for (let q = 0; q < 5; q++) {
      const inQ = s.filter(r => r >= q * 2000 && r < (q + 1) * 2000).length
      expect(Math.abs(inQ - SAMPLE_ROWS / 5)).toBeLessThan(100)
    }
  })
})

describe('residuals', () => {
  const rng = new Rng(3)
  const actual = Float32Array.from({ length: 997 }, () => rng.uniform(0, 10))
  const predicted = actual.map(y => y + rng.normal())

  it('histogram: every finite residual in its bin, the counts sum to the rows', () => {
    const r = residuals(actual, predicted)
    const withNaN = Float64Array.from([...r, Number.NaN])
    const h = histogram(withNaN, 30)
    expect(h.counts).toHaveLength(30)
    expect(h.edges).toHaveLength(31)
    expect(h.counts.reduce((a, b) => a + b, 0)).toBe(997)
    // Reference: count each bin's rows directly (the last bin includes its upper edge).
    const want = h.counts.map(
      (_, b) => r.filter(v => v >= h.edges[b] && (b === 29 ? v <= h.edges[30] : v < h.edges[b + 1])).length,
    )
    expect(h.counts).toEqual(want)
    expect(histogram([2, 2, 2]).counts).toEqual([3])
    expect(histogram([Number.NaN]).counts).toEqual([])
  })

  it('the histogram outline steps over each bin', () => {
    expect(histogramOutline({ edges: [0, 1, 2], counts: [3, 5] })).toEqual({
      xs: [0, 0, 1, 1, 2, 2],
      ys: [0, 3, 3, 5, 5, 0],
    })
  })

  it('R² is 1 − SSE / SST: 1 when exact, 0 for the mean, NaN for a constant label', () => {
    expect(rSquared(actual, actual)).toBe(1)
    const mean = actual.reduce((a, b) => a + b, 0) / actual.length
    expect(rSquared(actual, new Float32Array(actual.length).fill(mean))).toBeCloseTo(0, 6)
    let sse = 0,
      sst = 0
    for (let i = 0; i < actual.length; i++) {
      sse += (actual[i] - predicted[i]) ** 2
      sst += (actual[i] - mean) ** 2
    }
    expect(rSquared(actual, predicted)).toBeCloseTo(1 - sse / sst, 10)
    expect(rSquared([1, 1], [1, 2])).toBeNaN()
    expect(() => residuals([1], [1, 2])).toThrow('lengths differ')
  })
})

describe('multiclass', () => {
  const K = 5,
    V = 800
  const rng = new Rng(11)
  const labels = Float32Array.from({ length: V }, () => rng.int(K))
  const probs = new Float32Array(V * K)
  for (let i = 0; i < V; i++) {
    // Leaning towards the true class so the diagonal is not empty.
    for (let k = 0; k < K; k++) probs[i * K + k] = rng.next() + (k === labels[i] ? 0.4 : 0)
  }

  it('classCount is probabilities per row; argmax ties go to the lowest class', () => {
    expect(classCount({ labels, scores: probs })).toBe(K)
    expect(() => classCount({ labels, scores: labels })).toThrow('not K ≥ 2 per row')
    expect(() => classCount({ labels, scores: probs.subarray(1) })).toThrow('not K ≥ 2')
    expect(Array.from(predictedClasses([0.2, 0.4, 0.4, 0.5, 0.5, 0], 3))).toEqual([1, 0])
  })

  it('the confusion matrix counts (true, predicted) pairs: cells sum to V, the diagonal is the correct rows', () => {
    const predicted = predictedClasses(probs, K)
    const m = confusionMatrix(labels, predicted, K)
    const pairs = new Map<string, number>()
    let correct = 0
    for (let i = 0; i < V; i++) {
      let best = 0
      for (let k = 1; k < K; k++) if (probs[i * K + k] > probs[i * K + best]) best = k
      pairs.set(`${labels[i]},${best}`, (pairs.get(`${labels[i]},${best}`) ?? 0) + 1)
      if (best === labels[i]) correct++
    }
    for (let t = 0; t < K; t++) for (let p = 0; p < K; p++) expect(m[t][p]).toBe(pairs.get(`${t},${p}`) ?? 0)
    expect(m.flat().reduce((a, b) => a + b, 0)).toBe(V)
    expect(m.reduce((a, row, t) => a + row[t], 0)).toBe(correct)
    expect(correct).toBeGreaterThan(V / K)
    expect(() => confusionMatrix([0, 5], [0, 0], K)).toThrow('validation row 1 has label 5, not a class in 0…4')
  })

  it('per-class precision, recall, F1 and support match counting the rows directly', () => {
    const predicted = predictedClasses(probs, K)
    const scores = classScores(confusionMatrix(labels, predicted, K))
    for (let k = 0; k < K; k++) {
      let tp = 0,
        called = 0,
        actual = 0
      for (let i = 0; i < V; i++) {
        if (predicted[i] === k) called++
        if (labels[i] === k) actual++
        if (predicted[i] === k && labels[i] === k) tp++
      }
      const p = tp / called,
        r = tp / actual
      expect(scores[k].support).toBe(actual)
      expect(scores[k].precision).toBeCloseTo(p, 12)
      expect(scores[k].recall).toBeCloseTo(r, 12)
      expect(scores[k].f1).toBeCloseTo((2 * p * r) / (p + r), 12)
    }
    // A class never predicted and never seen has no precision, recall or F1.
    expect(
      classScores([
        [2, 0],
        [1, 0],
      ])[1],
    ).toEqual({ precision: Number.NaN, recall: 0, f1: Number.NaN, support: 1 })
  })
})

describe('a multiclass model trained here (CPU reference) gives the rows the view reads', () => {
  it('V × K probabilities: K, the matrix over every validation row, the diagonal its correct rows', async () => {
    const rng = new Rng(8)
    const rows = (n: number) => {
      const columns = [0, 1].map(() => Float32Array.from({ length: n }, () => rng.uniform(-1, 1)))
      const labels = Float32Array.from(
        { length: n },
        (_, i) => Number(columns[0][i] > 0) + 2 * Number(columns[1][i] > 0),
      )
      return { columns, labels }
    }
    const valid = rows(300)
    let scores: Float32Array | undefined
    const params = parseParams({ objective: 'multi:softprob', num_class: 4, num_round: 3, max_depth: 3 })
    const b = await train({ ...rows(1200), valid }, params, undefined, {
      onValidScores: p => {
        scores = p
      },
    })
    expect(b.numClass).toBe(4)
    expect(classCount({ labels: valid.labels, scores: scores! })).toBe(4)
    const predicted = predictedClasses(scores!, 4)
    const m = confusionMatrix(valid.labels, predicted, 4)
    expect(m.flat().reduce((a, x) => a + x, 0)).toBe(300)
    expect(m.reduce((a, row, t) => a + row[t], 0)).toBe(predicted.filter((p, i) => p === valid.labels[i]).length)
    expect(classScores(m).every(c => c.f1 > 0.8)).toBe(true)
  })
})

describe('what a kept run stores', () => {
  const rng = new Rng(5)
  const V = 5000
  const labels = Float32Array.from({ length: V }, () => rng.int(3))
  const scores = rng.floats(V * 3, 0, 1)

  it('binary: every row; ranking: none; regression and multiclass: a seeded sample with each row whole', () => {
    const binary = { labels, scores: scores.subarray(0, V) }
    expect(storedValidation('binary', binary)).toBe(binary)
    expect(storedValidation('ranking', binary)).toBeUndefined()
    const small = { labels: labels.subarray(0, 10), scores: scores.subarray(0, 10) }
    expect(storedValidation('regression', small)).toBe(small)
    const kept = storedValidation('multiclass', { labels, scores, labelValues: ['a', 'b', 'c'] })!
    expect(kept.labels.length).toBe(SAMPLE_ROWS)
    expect(kept.scores.length).toBe(SAMPLE_ROWS * 3)
    expect(kept.labelValues).toEqual(['a', 'b', 'c'])
    const rows = sampleRows(V)
    rows.forEach((r, i) => {
      expect(kept.labels[i]).toBe(labels[r])
      expect(Array.from(kept.scores.subarray(i * 3, i * 3 + 3))).toEqual(Array.from(scores.subarray(r * 3, r * 3 + 3)))
    })
  })
})
