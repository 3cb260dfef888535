/**
 * Threshold curves (src/run/roc.ts): the ROC's trapezoid area equals the project's one AUC
 * (src/eval/metrics.ts) on random scores with many ties, the PR curve and the confusion
 * matrix follow the counts, and the edge cases (all positive, all negative, empty) are defined.
 */
import { describe, expect, it } from 'vitest'
import { confusionAt, thinCurve, thresholdCurves, trapezoidArea } from '../../../src/run/roc.ts'
import { auc } from '../../../src/eval/metrics.ts'
import { Rng } from '../../../src/util/rng.ts'

function randomRun(n: number, seed: number, levels: number): { scores: Float32Array; labels: Float32Array } {
  const rng = new Rng(seed)
  const rand = () => rng.next()
  const scores = new Float32Array(n),
    labels = new Float32Array(n)
  for (let i = 0; i < n; i++) {
    // Coarse scores make many ties; labels lean positive with the score, so the AUC is not ½.
    scores[i] = Math.floor(rand() * levels) / levels
    labels[i] = rand() < 0.2 + 0.6 * scores[i] ? 1 : 0
  }
  return { scores, labels }
}

describe('thresholdCurves', () => {
  it.each([
    [500, 1, 7],
    [2000, 2, 1000],
    [50, 3, 2],
  ])('trapezoid area = the run AUC (n %i, seed %i, %i score levels)', (n, seed, levels) => {
    const { scores, labels } = randomRun(n, seed, levels)
    const c = thresholdCurves(scores, labels)
    expect(c.auc).toBeCloseTo(auc(scores, labels), 12)
    expect(c.auc).not.toBeCloseTo(0.5, 2)
    expect(c.roc.fpr[0]).toBe(0)
    expect(c.roc.tpr.at(-1)).toBe(1)
    expect(c.roc.fpr.at(-1)).toBe(1)
  })

  it('ties are one point: the tied group moves the curve diagonally', () => {
    const c = thresholdCurves([0.9, 0.5, 0.5, 0.1], [1, 1, 0, 0])
    expect(c.roc.fpr).toEqual([0, 0, 0.5, 1])
    expect(c.roc.tpr).toEqual([0, 0.5, 1, 1])
    expect(c.thresholds).toEqual([Number.POSITIVE_INFINITY, 0.9, 0.5, 0.1])
    expect(c.auc).toBe(0.875)
    expect(auc([0.9, 0.5, 0.5, 0.1], [1, 1, 0, 0])).toBe(0.875)
    expect(c.pr.recall).toEqual([0, 0.5, 1, 1])
    expect(c.pr.precision).toEqual([1, 1, 2 / 3, 0.5])
  })

  it('all positive: no ROC (AUC NaN, as the run reports), precision 1 everywhere', () => {
    const c = thresholdCurves([0.2, 0.7, 0.7], [1, 1, 1])
    expect(c.roc.fpr).toEqual([])
    expect(c.auc).toBeNaN()
    expect(auc([0.2, 0.7, 0.7], [1, 1, 1])).toBeNaN()
    expect(c.pr.precision).toEqual([1, 1, 1])
    expect(c.pr.recall).toEqual([0, 2 / 3, 1])
  })

  it('all negative: no ROC, no PR curve', () => {
    const c = thresholdCurves([0.2, 0.7], [0, 0])
    expect([c.roc.fpr, c.pr.recall, c.thresholds]).toEqual([[], [], []])
    expect(c.auc).toBeNaN()
  })

  it('empty: nothing, AUC NaN; unequal lengths name both', () => {
    const c = thresholdCurves([], [])
    expect([c.positives, c.negatives, c.roc.tpr.length, c.pr.precision.length]).toEqual([0, 0, 0, 0])
    expect(c.auc).toBeNaN()
    expect(() => thresholdCurves([1], [])).toThrow(/scores \(1\) and labels \(0\)/)
  })
})

describe('confusionAt', () => {
  it('score ≥ threshold is positive; the counts add up to the rows', () => {
    const scores = [0.9, 0.5, 0.5, 0.1],
      labels = [1, 1, 0, 0]
    expect(confusionAt(scores, labels, 0.5)).toEqual({ tp: 2, fp: 1, tn: 1, fn: 0 })
    expect(confusionAt(scores, labels, 0.51)).toEqual({ tp: 1, fp: 0, tn: 2, fn: 1 })
    expect(confusionAt(scores, labels, 0)).toEqual({ tp: 2, fp: 2, tn: 0, fn: 0 })
    expect(confusionAt([], [], 0.5)).toEqual({ tp: 0, fp: 0, tn: 0, fn: 0 })
  })

  it('matches the ROC point of the same threshold', () => {
    const { scores, labels } = randomRun(300, 9, 20)
    const c = thresholdCurves(scores, labels)
    const i = 7
    const m = confusionAt(scores, labels, c.thresholds[i])
    expect(m.tp / c.positives).toBe(c.roc.tpr[i])
    expect(m.fp / c.negatives).toBe(c.roc.fpr[i])
  })
})

describe('trapezoidArea / thinCurve', () => {
  it('integrates a polyline; thinning keeps the ends and at most max points (+1)', () => {
    expect(trapezoidArea([0, 1], [0, 1])).toBe(0.5)
    const xs = Array.from({ length: 1001 }, (_, i) => i / 1000)
    const t = thinCurve(xs, xs, 100)
    expect(t.xs.length).toBeLessThanOrEqual(101)
    expect([t.xs[0], t.xs.at(-1)]).toEqual([0, 1])
    expect(thinCurve([0, 1], [0, 1], 100)).toEqual({ xs: [0, 1], ys: [0, 1] })
  })
})
