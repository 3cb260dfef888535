/**
 * XGBoost's evaluation metrics (src/eval/metrics.ts): each against a hand-computed value on a tiny
 * case and against a reference written here from the published formula on random weighted input;
 * the empty / zero-weight / NaN edges as XGBoost 1.7.4 handles them; the `@` names (parsing,
 * XGBoost's printed form, refusals naming eval_metric); which way each is optimised.
 */
import { cFloat } from '../../../src/util/float32.ts'
import { describe, expect, it } from 'vitest'
import {
  auc,
  aucpr,
  evaluate,
  logGamma,
  maximize,
  METRICS,
  type MetricName,
  parseMetric,
} from '../../../src/eval/metrics.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { train } from '../../../src/models/gbdt/driver.ts'
import { predict } from '../../../src/models/gbdt/predict.ts'
import { Rng } from '../../../src/util/rng.ts'

/** Σ w·f / Σ w, written plainly. */
function weightedMean(f: (p: number, y: number) => number, p: number[], y: number[], w: number[]): number {
  let s = 0,
    sw = 0
  for (let i = 0; i < p.length; i++) {
    s += w[i] * f(p[i], y[i])
    sw += w[i]
  }
  return s / sw
}

/** ln k! as a plain sum (the Poisson reference's lgamma(y + 1) for whole y). */
const logFactorial = (k: number): number => {
  let s = 0
  for (let j = 2; j <= k; j++) s += Math.log(j)
  return s
}

/** Relative closeness: |a − b| ≤ tol · max(1, |b|). */
function close(a: number, b: number, tol = 1e-12): void {
  expect(Math.abs(a - b)).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(b)))
}

describe('elementwise metrics: hand-computed', () => {
  it('mae, mape, rmsle, rmse, weighted', () => {
    close(evaluate('mae', [1, 2, 4], [1, 3, 1]), 4 / 3)
    close(evaluate('mae', [1, 2, 4], [1, 3, 1], [1, 2, 1]), 5 / 4)
    close(evaluate('mape', [2, 3], [1, 4]), (1 + 0.25) / 2)
    close(evaluate('rmsle', [Math.E - 1, 0], [0, Math.E ** 2 - 1]), Math.sqrt((1 + 4) / 2))
    close(evaluate('rmse', [1, 3], [0, 0], [3, 1]), Math.sqrt(12 / 4))
  })

  it('mphe: δ²(√(1 + (a/δ)²) − 1), δ = huber_slope (default 1)', () => {
    // a = 0 → 0; a = √3 → √4 − 1 = 1.
    close(evaluate('mphe', [0, 0], [0, Math.sqrt(3)]), 0.5)
    // δ = 2, a = 2√3: 4(√4 − 1) = 4.
    close(evaluate('mphe', [0], [2 * Math.sqrt(3)], undefined, { huber_slope: 2 }), 4)
    expect(() => evaluate('mphe', [0], [1], undefined, { huber_slope: 0 })).toThrow(/huber_slope/)
  })

  it('poisson-nloglik, gamma-nloglik, gamma-deviance, tweedie-nloglik@1.5', () => {
    // y = 2, p = 1: ln 2! + 1 − 0; y = 0, p = 0 → p = 1e-16: 0 + 1e-16.
    close(evaluate('poisson-nloglik', [1, 0], [2, 0]), (Math.LN2 + 1 + 1e-16) / 2)
    // p = 2, y = 1: θ = −½, −(yθ + ln(−θ)) = ½ + ln 2.
    close(evaluate('gamma-nloglik', [2], [1]), 0.5 + Math.LN2)
    // y = 1, p = e: 2(ln e + 1/e − 1) (kRtEps 1e-6 moves it by ~1e-6).
    close(evaluate('gamma-deviance', [Math.E], [1]), 2 / Math.E, 1e-5)
    // y = 1, p = 1: −(1/(−½)) + 1/½ = 4; y = 0, p = 4: √4/½ = 4.
    close(evaluate('tweedie-nloglik@1.5', [1, 4], [1, 0]), 4, 1e-12)
  })

  it('error@t: p > t counts as 1 (t an f32, as XGBoost)', () => {
    expect(evaluate('error', [0.6, 0.4, 0.5, 0.7], [1, 1, 0, 0])).toBe(0.5)
    expect(evaluate('error@0.3', [0.35, 0.25, 0.2], [0, 1, 0])).toBe(2 / 3)
    // Exactly the f32 threshold is not above it.
    expect(evaluate('error@0.3', [Math.fround(0.3)], [1])).toBe(1)
  })

  it('logloss as 1.7.4: max(p, 1e-16) and max(1 − p, 1e-16), a zero label term dropped', () => {
    close(evaluate('logloss', [0.9, 0.2], [1, 0]), -(Math.log(0.9) + Math.log(0.8)) / 2)
    close(evaluate('logloss', [1, 0], [0, 1]), -Math.log(1e-16))
    expect(evaluate('logloss', [0, 1], [0, 1])).toBe(0)
  })

  it('quantile (XGBoost ≥ 2.0 only; its formula): pinball loss per α, N × K predictions', () => {
    const [a1, a9] = [Math.fround(0.1), Math.fround(0.9)] // α as f32, as XGBoost
    // α = 0.9: y − p = 2 → 2α (1.8); y − p = −1 → 1 − α (0.1).
    close(evaluate('quantile', [0, 2], [2, 1], undefined, { quantile_alpha: 0.9 }), (2 * a9 + (1 - a9)) / 2)
    // Two quantiles, one row: α 0.1 with d = 1 → 0.1, α 0.9 with d = 1 → 0.9.
    close(evaluate('quantile', [0, 0], [1], undefined, { quantile_alpha: [0.1, 0.9] }), (a1 + a9) / 2)
    expect(() => evaluate('quantile', [0], [1])).toThrow(/quantile_alpha/)
    expect(() => evaluate('quantile', [0], [1], undefined, { quantile_alpha: [0.1, 0.5] })).toThrow(/2 quantiles/)
  })
})

describe('elementwise metrics: random weighted input vs the published formulas', () => {
  const rng = new Rng(29)
  const n = 500
  const y = Array.from({ length: n }, () => Math.floor(rng.next() * 8)) // counts ≥ 0
  const yPos = y.map(v => v + 0.5)
  const p = Array.from({ length: n }, () => 0.05 + rng.next() * 6)
  const w = Array.from({ length: n }, () => rng.next() * 3)
  const yBin = Array.from({ length: n }, () => (rng.next() < 0.4 ? 1 : 0))
  const prob = Array.from({ length: n }, () => rng.next())
  const R12 = Math.fround(1.2) // ρ as the f32 XGBoost parses
  const cases: Array<[MetricName, number[], number[], (p: number, y: number) => number, ((m: number) => number)?]> = [
    ['rmse', p, yPos, (a, b) => (b - a) ** 2, Math.sqrt],
    ['mae', p, yPos, (a, b) => Math.abs(b - a)],
    ['mape', p, yPos, (a, b) => Math.abs((b - a) / b)],
    ['rmsle', p, yPos, (a, b) => (Math.log(1 + b) - Math.log(1 + a)) ** 2, Math.sqrt],
    ['mphe', p, yPos, (a, b) => Math.sqrt(1 + (b - a) ** 2) - 1],
    ['poisson-nloglik', p, y, (a, b) => logFactorial(b) + a - b * Math.log(a)],
    ['gamma-nloglik', p, yPos, (a, b) => b / a + Math.log(a)],
    ['gamma-deviance', p, yPos, (a, b) => 2 * (Math.log(a / b) + b / a - 1)],
    ['tweedie-nloglik@1.2', p, y, (a, b) => (-b * a ** (1 - R12)) / (1 - R12) + a ** (2 - R12) / (2 - R12)],
    ['error@0.7', prob, yBin, (a, b) => (a > Math.fround(0.7) ? 1 - b : b)],
    ['logloss', prob, yBin, (a, b) => -(b * Math.log(a) + (1 - b) * Math.log(1 - a))],
  ]
  for (const [name, pred, labels, row, final] of cases) {
    it(name, () => {
      const want = (final ?? (m => m))(weightedMean(row, pred, labels, w))
      // gamma-deviance adds kRtEps (1e-6) to both: the plain formula agrees to ~1e-6.
      close(evaluate(name, pred, labels, w), want, name === 'gamma-deviance' ? 1e-5 : 1e-9)
    })
  }

  it('tweedie-nloglik@ρ uses ρ as an f32', () => {
    const rho = Math.fround(1.1)
    const want = weightedMean((a, b) => (-b * a ** (1 - rho)) / (1 - rho) + a ** (2 - rho) / (2 - rho), p, y, w)
    close(evaluate('tweedie-nloglik@1.1', p, y, w), want, 1e-12)
  })

  it('quantile with weights', () => {
    const a = Math.fround(0.3)
    const want = weightedMean((q, t) => (t - q >= 0 ? a * (t - q) : (a - 1) * (t - q)), p, yPos, w)
    close(evaluate('quantile', p, yPos, w, { quantile_alpha: 0.3 }), want, 1e-12)
  })
})

describe('auc', () => {
  it('a label y counts y·w positive and (1 − y)·w negative, as XGBoost (reg:logistic takes labels in [0, 1])', () => {
    // Rows (0.1, y ¼) and (0.9, y ¾): ¾·¾ + ¾·¼·½ + ¼·¾·½ = ¾ over 1 · 1.
    close(auc([0.1, 0.9], [0.25, 0.75]), 0.75)
    close(auc([0.1, 0.9], [0.25, 0.75], [2, 2]), 0.75)
  })
})

describe('aucpr', () => {
  it('hand-computed: Davis–Goadrich interpolation between tied-score groups', () => {
    // Scores 0.9+ 0.8− 0.7+ 0.6−: precision 1 up to recall ½, then ∫½¹ 2r/(2r + 1) dr = ½ − ½ ln 1.5.
    close(aucpr([0.9, 0.8, 0.7, 0.6], [1, 0, 1, 0]), 1 - 0.5 * Math.log(1.5))
    close(aucpr([0.9, 0.8], [1, 0]), 1)
    // All tied: one step from (0, 0) to (tp 1, fp 1): ∫₀¹ r/(r + r) dr = ½.
    close(aucpr([0.5, 0.5], [1, 0]), 0.5)
    expect(aucpr([0.1, 0.2], [1, 1])).toBeNaN()
    expect(aucpr([], [])).toBeNaN()
    expect(evaluate('aucpr', [0.9, 0.8], [1, 0])).toBe(1)
  })

  it('random weighted input with ties vs numerical integration of the interpolated curve', () => {
    const rng = new Rng(7)
    const n = 200
    const pred = Array.from({ length: n }, () => Math.round(rng.next() * 40) / 40) // many ties
    const labels = pred.map(s => (rng.next() < 0.2 + 0.6 * s ? 1 : 0))
    const w = Array.from({ length: n }, () => 0.2 + rng.next())
    close(aucpr(pred, labels, w), referencePrAuc(pred, labels, w), 1e-7)
    // Unit weights are no weights.
    close(aucpr(pred, labels, new Array(n).fill(1)), aucpr(pred, labels), 1e-12)
  })
})

/**
 * PR AUC from its definition: thresholds at each distinct score (descending) give points
 * (TP, FP); between two points TP rises by x and FP by h·x (linear in TP, Davis & Goadrich), and
 * the area is ∫ precision d(recall) over each step, here by Simpson's rule.
 */
function referencePrAuc(pred: number[], labels: number[], w: number[]): number {
  const P = labels.reduce((s, y, i) => s + y * w[i], 0)
  const scores = [...new Set(pred)].sort((a, b) => b - a)
  let tp0 = 0,
    fp0 = 0,
    area = 0
  for (const s of scores) {
    let tp1 = tp0,
      fp1 = fp0
    pred.forEach((q, i) => {
      if (q === s) {
        tp1 += labels[i] * w[i]
        fp1 += (1 - labels[i]) * w[i]
      }
    })
    if (tp1 > tp0) {
      const h = (fp1 - fp0) / (tp1 - tp0)
      const precision = (x: number) => (tp0 + x === 0 ? 1 : (tp0 + x) / (tp0 + x + fp0 + h * x))
      const m = 2000,
        d = (tp1 - tp0) / m
      let sum = precision(0) + precision(tp1 - tp0)
      for (let k = 1; k < m; k++) sum += (k % 2 ? 4 : 2) * precision(k * d)
      area += (sum * d) / 3 / P
    }
    tp0 = tp1
    fp0 = fp1
  }
  return area
}

describe('edges as XGBoost 1.7.4', () => {
  // The elementwise means (the multiclass and ranking ones: tests/unit/eval/metrics-multiclass-rank.test.ts).
  const others = ['auc', 'aucpr', 'quantile', 'tweedie-nloglik', 'mlogloss', 'merror', 'ndcg', 'map', 'pre']
  const mean = METRICS.filter(m => !others.includes(m)) as MetricName[]
  it('no rows or zero total weight: the weighted sum itself (0), as XGBoost’s wsum == 0 ? esum : esum / wsum', () => {
    for (const m of mean) {
      expect(evaluate(m, [], []), m).toBe(0)
      expect(evaluate(m, [0.5, 0.7], [1, 0.5], [0, 0]), m).toBe(0)
    }
    expect(evaluate('tweedie-nloglik@1.5', [], [])).toBe(0)
    expect(evaluate('auc', [], [])).toBeNaN()
    expect(evaluate('aucpr', [0.5], [1], [0])).toBeNaN()
    expect(evaluate('quantile', [], [], undefined, { quantile_alpha: 0.5 })).toBeNaN()
  })

  it('a zero weight drops its row; NaN in a prediction gives NaN (error: its label)', () => {
    close(evaluate('mae', [1, 100], [0, 0], [1, 0]), 1)
    for (const m of mean.filter(m => m !== 'error')) expect(evaluate(m, [Number.NaN, 0.5], [1, 0]), m).toBeNaN()
    // error compares: NaN > t is false, so the row counts its label (XGBoost's too).
    expect(evaluate('error', [Number.NaN, 0.5], [1, 0])).toBe(0.5)
    expect(() => evaluate('mae', [1, 2], [1])).toThrow(/2 predictions for 1 labels/)
  })

  it('logGamma: Γ(½) = √π, 9! and Stirling-sized arguments', () => {
    close(logGamma(0.5), Math.log(Math.sqrt(Math.PI)), 1e-14)
    close(logGamma(10), logFactorial(9), 1e-14)
    close(logGamma(101), logFactorial(100), 1e-14)
    expect(Math.abs(logGamma(1))).toBeLessThan(1e-14)
    expect(Math.abs(logGamma(2))).toBeLessThan(1e-14)
  })
})

describe('metric names', () => {
  it('names as XGBoost prints them (its parameter an f32 in %g form)', () => {
    expect(parseMetric('error@0.5')).toBe('error')
    expect(parseMetric(' error@0.30 ')).toBe('error@0.3')
    expect(parseMetric('error@1e-7')).toBe('error@1e-07')
    expect(parseMetric('tweedie-nloglik@1.50')).toBe('tweedie-nloglik@1.5')
    expect(parseMetric('tweedie-nloglik@1')).toBe('tweedie-nloglik@1')
    expect(parseMetric('tweedie-nloglik@1.1')).toBe('tweedie-nloglik@1.1')
    for (const m of METRICS.filter(m => m !== 'tweedie-nloglik')) expect(parseMetric(m)).toBe(m)
    expect([123456789, 0.0001, 1e-5, 100000, 1e6, -0.25, 0].map(v => cFloat(v, 6))).toEqual([
      '1.23457e+08',
      '0.0001',
      '1e-05',
      '100000',
      '1e+06',
      '-0.25',
      '0',
    ])
  })

  it('refusals name eval_metric and say why', () => {
    expect(() => parseMetric('cox-nloglik')).toThrow(/^eval_metric: must be one of auc, logloss, .*got "cox-nloglik"/)
    expect(() => parseMetric(3)).toThrow(/eval_metric: must be one of/)
    expect(() => parseMetric('error@abc')).toThrow(
      /eval_metric: the threshold t of error@t must be a number, got 'error@abc'/,
    )
    expect(() => parseMetric('error@')).toThrow(/must be a number/)
    expect(() => parseMetric('tweedie-nloglik')).toThrow(/eval_metric: tweedie-nloglik needs its variance power/)
    expect(() => parseMetric('tweedie-nloglik@2')).toThrow(/must be in \[1, 2\), got 'tweedie-nloglik@2'/)
    expect(() => parseMetric('tweedie-nloglik@0.99')).toThrow(/must be in \[1, 2\)/)
    expect(() => parseMetric('rmse@3')).toThrow(/eval_metric: rmse takes no @ parameter, got 'rmse@3'/)
    expect(() => parseMetric('aucx', 'metric')).toThrow(/^metric: /)
  })

  it('eval_metric in GBDT params: the printed names, each once, in order', () => {
    expect(parseParams({ eval_metric: 'error@0.30, tweedie-nloglik@1.20,mae' }).eval_metric).toEqual([
      'error@0.3',
      'tweedie-nloglik@1.2',
      'mae',
    ])
    expect(parseParams({ eval_metric: ['error', 'error@0.5', 'aucpr'] }).eval_metric).toEqual(['error', 'aucpr'])
    expect(() => parseParams({ eval_metric: ['mae', 'tweedie-nloglik@3'] })).toThrow(/^eval_metric: .*\[1, 2\)/)
  })

  it('direction: auc, aucpr (and the ranking ones) and gauc maximised, every loss and error minimised', () => {
    const up = ['auc', 'aucpr', 'gauc', 'map', 'ndcg', 'pre', 'ndcg@5']
    for (const m of up) expect(maximize(m), m).toBe(true)
    for (const m of METRICS.filter(m => !up.includes(m))) expect(maximize(m), m).toBe(false)
    expect(maximize('error@0.3')).toBe(false)
    expect(maximize('tweedie-nloglik@1.5')).toBe(false)
  })
})

describe('the GBDT driver evaluates on transformed predictions with the run’s parameters', () => {
  it('count:poisson: every round’s metrics = evaluate on exp(margin) of the model so far, huber_slope from params', async () => {
    const rng = new Rng(3)
    const n = 300
    const x = Float32Array.from({ length: n }, () => rng.next() * 4)
    const y = Float32Array.from(x, v => Math.floor(v * rng.next() * 3))
    const w = Float32Array.from({ length: 90 }, () => 0.5 + rng.next())
    const data = {
      columns: [x.slice(0, 210)],
      labels: y.slice(0, 210),
      valid: { columns: [x.slice(210)], labels: y.slice(210), weights: w },
    }
    const p = parseParams({
      objective: 'count:poisson',
      num_round: 4,
      max_depth: 2,
      huber_slope: 3,
      eval_metric: 'mphe,poisson-nloglik,tweedie-nloglik@1.3',
    })
    const b = await train(data, p)
    for (let r = 0; r < 4; r++) {
      const pred = predict(b, data.valid.columns, r + 1)
      expect(pred.every(v => v > 0)).toBe(true) // exp(margin), not the margin
      for (const m of p.eval_metric)
        close(b.history[r][m], evaluate(m, pred, data.valid.labels, w, { huber_slope: 3 }), 1e-12)
    }
    // The slope reaches mphe: with δ = 1 it differs.
    const pred = predict(b, data.valid.columns)
    expect(Math.abs(b.history[3].mphe - evaluate('mphe', pred, data.valid.labels, w))).toBeGreaterThan(1e-3)
  })

  it('early stopping watches the last metric in its direction: aucpr up, mae down', async () => {
    const rng = new Rng(8)
    const n = 400
    const x = [0, 1].map(() => Float32Array.from({ length: n }, () => rng.normal()))
    const y = Float32Array.from({ length: n }, (_, i) => (x[0][i] + rng.normal() > 0 ? 1 : 0))
    const cut = 250
    const data = {
      columns: x.map(c => c.slice(0, cut)),
      labels: y.slice(0, cut),
      valid: { columns: x.map(c => c.slice(cut)), labels: y.slice(cut) },
    }
    for (const [metrics, sign] of [
      [['mae', 'aucpr'], 1],
      [['aucpr', 'mae'], -1],
    ] as const) {
      const p = parseParams({
        objective: 'reg:logistic',
        eta: 1,
        max_depth: 4,
        num_round: 40,
        eval_metric: [...metrics],
      })
      const b = await train(data, { ...p, early_stopping_rounds: 3 })
      const watched = b.history.map(h => sign * h[metrics[1]])
      const best = watched.indexOf(Math.max(...watched))
      expect(b.bestIteration, metrics[1]).toBe(best)
      expect(b.history.length).toBeLessThanOrEqual(Math.min(40, best + 4))
    }
  })

  it('quantile needs quantile_alpha, naming eval_metric', () => {
    expect(() => parseParams({ objective: 'reg:squarederror', eval_metric: 'quantile' })).toThrow(
      /^eval_metric: quantile needs quantile_alpha/,
    )
  })
})
