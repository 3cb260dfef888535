/**
 * XGBoost 1.7.4's multiclass and ranking metrics (src/eval/metrics.ts): mlogloss, merror, one-vs-
 * rest auc / aucpr, and ndcg / map / pre (with @k and -) over query groups, plus auc / aucpr over
 * groups. Each against hand-worked numbers (in the comments) and against references written here
 * from the published formulas on random input; bad input refused naming what is wrong; the names
 * (parseMetric), their direction (maximize) and the GBDT's metric menu.
 */
import { describe, expect, it } from 'vitest'
import {
  aucpr,
  evaluate,
  METRIC_MENU,
  METRICS,
  type MetricName,
  maximize,
  metricBase,
  parseMetric,
} from '../../../src/eval/metrics.ts'
import { familyOf } from '../../../src/models/registry.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { Rng } from '../../../src/util/rng.ts'

/** |a − b| ≤ tol · max(1, |b|). */
function close(a: number, b: number, tol = 1e-12): void {
  expect(Math.abs(a - b), `${a} vs ${b}`).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(b)))
}

const f32 = Math.fround

/** N random probability rows of K classes (row-major, each row summing to 1) and labels 0…K−1. */
function multiclassCase(rng: Rng, n: number, K: number): { p: Float32Array; y: Float32Array; w: Float32Array } {
  const p = new Float32Array(n * K)
  const y = new Float32Array(n)
  for (let i = 0; i < n; i++) {
    y[i] = i < K ? i : Math.floor(rng.next() * K) // every class present
    const e = Array.from({ length: K }, (_, k) => Math.exp(2 * rng.normal() + (k === y[i] ? 1 : 0)))
    const s = e.reduce((a, b) => a + b)
    // A coarse grid: ties between classes and between rows.
    for (let k = 0; k < K; k++) p[i * K + k] = Math.round((e[k] / s) * 40) / 40
  }
  return { p, y, w: Float32Array.from({ length: n }, () => 0.2 + rng.next() * 2) }
}

describe('multiclass: hand-worked', () => {
  it('mlogloss: −log p_label, weighted, p at least 1e-16', () => {
    const p = [0.7, 0.2, 0.1, 0.2, 0.5, 0.3]
    // Row 0 (label 0): −ln 0.7; row 1 (label 2): −ln 0.3; weights 1 and 3.
    close(evaluate('mlogloss', p, [0, 2], undefined, { num_class: 3 }), -(Math.log(f32(0.7)) + Math.log(f32(0.3))) / 2)
    close(evaluate('mlogloss', p, [0, 2], [1, 3], { num_class: 3 }), -(Math.log(f32(0.7)) + 3 * Math.log(f32(0.3))) / 4)
    // p_label = 0 → −ln(1e-16 as an f32) ≈ 36.84.
    close(evaluate('mlogloss', [1, 0], [1], undefined, { num_class: 2 }), -Math.log(f32(1e-16)))
    // A fractional label is its integer part (XGBoost's int cast): 1.9 → class 1.
    close(evaluate('mlogloss', [0.25, 0.75], [1.9], undefined, { num_class: 2 }), -Math.log(0.75))
  })

  it('merror: the first largest probability (ties to the lowest class) against the label', () => {
    // Row 0: argmax 0 = label 0 → right; row 1: 0.4 = 0.4 tie → class 0, label 1 → wrong; row 2: argmax 2 = label 2.
    const p = [0.5, 0.3, 0.2, 0.4, 0.4, 0.2, 0.1, 0.2, 0.7]
    close(evaluate('merror', p, [0, 1, 2], undefined, { num_class: 3 }), 1 / 3)
    // Weights 1, 2, 5: 2 / 8 wrong.
    close(evaluate('merror', p, [0, 1, 2], [1, 2, 5], { num_class: 3 }), 2 / 8)
    // The tie with label 0 is right.
    expect(evaluate('merror', [0.4, 0.4, 0.2], [0], undefined, { num_class: 3 })).toBe(0)
  })

  it('zero weight sum or no rows: NaN (XGBoost esum / wsum)', () => {
    expect(evaluate('mlogloss', [0.5, 0.5], [1], [0], { num_class: 2 })).toBeNaN()
    expect(evaluate('merror', [], [], undefined, { num_class: 4 })).toBeNaN()
  })

  it('auc: one-vs-rest, classes weighted by their weight sums', () => {
    // Labels 0, 1, 2, 0. Class 0 scores [.6, .3, .2, .3]: positives .6, .3 vs negatives .3, .2 →
    // (1 + 1 + ½ + 1)/4 = 0.875. Class 1 [.3, .4, .3, .1]: .4 beats all three → 1. Class 2
    // [.1, .3, .5, .6]: .5 beats .1, .3, not .6 → 2/3. Weighted by counts 2, 1, 1: (1.75 + 1 + 2/3)/4.
    const p = [0.6, 0.3, 0.1, 0.3, 0.4, 0.3, 0.2, 0.3, 0.5, 0.3, 0.1, 0.6]
    const y = [0, 1, 2, 0]
    close(evaluate('auc', p, y, undefined, { num_class: 3 }), (1.75 + 1 + 2 / 3) / 4)
    // Weights 1, 1, 1, 3: class 0 (weight 4) = (1·1 + 1·1 + 3·½ + 3·1)/(4·2) = 6.5/8; class 1 = 1;
    // class 2: .5 beats .1 and .3 (weight 1 each), not .6 (weight 3) → 2/5; (4·6.5/8 + 1 + 2/5)/6.
    close(evaluate('auc', p, y, [1, 1, 1, 3], { num_class: 3 }), (3.25 + 1 + 2 / 5) / 6)
    // aucpr: the plain mean of the classes' PR AUC.
    const col = (k: number) => [0, 1, 2, 3].map(i => p[i * 3 + k])
    const mean =
      [0, 1, 2]
        .map(k =>
          aucpr(
            col(k),
            y.map(v => (v === k ? 1 : 0)),
          ),
        )
        .reduce((a, b) => a + b) / 3
    close(evaluate('aucpr', p, y, undefined, { num_class: 3 }), mean)
  })

  it('auc: NaN when a class is absent from the labels (or is every label)', () => {
    const p = [0.6, 0.3, 0.1, 0.3, 0.4, 0.3, 0.2, 0.3, 0.5]
    expect(evaluate('auc', p, [0, 1, 1], undefined, { num_class: 3 })).toBeNaN()
    expect(evaluate('aucpr', p, [0, 1, 1], undefined, { num_class: 3 })).toBeNaN()
    // A class whose rows all weigh 0 counts as absent.
    expect(evaluate('auc', p, [0, 1, 2], [1, 1, 0], { num_class: 3 })).toBeNaN()
  })
})

/** Mann–Whitney AUC of class k, weighted: Σ over (positive, negative) pairs of wᵢwⱼ·[pᵢ > pⱼ] (½ if equal). */
function pairAuc(score: number[], pos: boolean[], w: number[]): number {
  let area = 0,
    wp = 0,
    wn = 0
  for (let i = 0; i < score.length; i++) {
    if (pos[i]) wp += w[i]
    else wn += w[i]
    if (!pos[i]) continue
    for (let j = 0; j < score.length; j++)
      if (!pos[j]) area += w[i] * w[j] * (score[i] > score[j] ? 1 : score[i] === score[j] ? 0.5 : 0)
  }
  return area / (wp * wn)
}

describe('multiclass: against references on random input', () => {
  for (const K of [3, 7, 26])
    it(`K = ${K}: mlogloss, merror, auc, weighted and not`, () => {
      const rng = new Rng(100 + K)
      const { p, y, w } = multiclassCase(rng, 300, K)
      for (const weights of [undefined, w]) {
        const wt = (i: number) => (weights ? weights[i] : 1)
        let ll = 0,
          err = 0,
          sw = 0
        for (let i = 0; i < y.length; i++) {
          const row = Array.from(p.subarray(i * K, i * K + K))
          ll += wt(i) * -Math.log(Math.max(row[y[i]], f32(1e-16))) // XGBoost's eps is an f32
          err += wt(i) * (row.indexOf(Math.max(...row)) === y[i] ? 0 : 1)
          sw += wt(i)
        }
        close(evaluate('mlogloss', p, y, weights, { num_class: K }), ll / sw)
        close(evaluate('merror', p, y, weights, { num_class: K }), err / sw)
        let auc = 0,
          total = 0
        const ws = Array.from(y, (_, i) => wt(i))
        for (let k = 0; k < K; k++) {
          const col = Array.from(y, (_, i) => p[i * K + k])
          const pos = Array.from(y, v => v === k)
          const wk = ws.reduce((s, v, i) => s + (pos[i] ? v : 0), 0)
          auc += wk * pairAuc(col, pos, ws)
          total += wk
        }
        close(evaluate('auc', p, y, weights, { num_class: K }), auc / total, 1e-10)
      }
    })
})

/** The XGBoost 1.7.4 name's parts: k (2³² − 1 without @) and the minus flag. */
function kOf(metric: string): { k: number; minus: boolean } {
  const m = /@(\d+)/.exec(metric)
  return { k: m ? Number(m[1]) : 2 ** 32 - 1, minus: metric.endsWith('-') }
}

/**
 * A plain reference for one group: rows ranked by (prediction desc, row asc); relevance = int part.
 * ndcg: Σ_{i<k} (2^relᵢ − 1)/log2(i + 2) over the ideal's; map: Σ_{relevant i<k} (hits up to i)/(i + 1) over all
 * relevant; pre: relevant in top k / k.
 */
function referenceGroup(metric: string, pred: number[], y: number[]): number {
  const { k, minus } = kOf(metric)
  const idx = pred.map((_, i) => i)
  idx.sort((a, b) => (f32(pred[b]) !== f32(pred[a]) ? f32(pred[b]) - f32(pred[a]) : a - b))
  const rel = idx.map(i => Math.floor(y[i]))
  const top = Math.min(k, rel.length)
  if (metric.startsWith('ndcg')) {
    const gain = (r: number[]) => r.slice(0, top).reduce((s, v, i) => s + (2 ** v - 1) / Math.log2(i + 2), 0)
    const ideal = gain([...rel].sort((a, b) => b - a))
    return ideal === 0 ? (minus ? 0 : 1) : gain(rel) / ideal
  }
  const relevant = rel.filter(r => r > 0).length
  if (metric.startsWith('map')) {
    if (relevant === 0) return minus ? 0 : 1
    let s = 0
    for (let i = 0; i < top; i++) if (rel[i] > 0) s += rel.slice(0, i + 1).filter(r => r > 0).length / (i + 1)
    return s / relevant
  }
  return rel.slice(0, top).filter(r => r > 0).length / k
}

const RANKING_NAMES: MetricName[] = [
  'ndcg',
  'ndcg-',
  'ndcg@1',
  'ndcg@3',
  'ndcg@3-',
  'map',
  'map-',
  'map@2',
  'map@5-',
  'pre',
  'pre@1',
  'pre@4',
]

describe('ranking: hand-worked', () => {
  // Group 0 (rows 0–3): predictions .9, .1, .5, .5, labels 0, 2, 1, 0 → ranked rows 0, 2, 3, 1 (the tie
  // .5 in row order), relevances 0, 1, 0, 2. Group 1 (row 4): one row, relevance 1. Group 2 (rows 5–6):
  // nothing relevant.
  const pred = [0.9, 0.1, 0.5, 0.5, 0.3, 0.2, 0.7]
  const y = [0, 2, 1, 0, 1, 0, 0]
  const group_ptr = Uint32Array.of(0, 4, 5, 7)
  const ev = (m: MetricName) => evaluate(m, pred, y, undefined, { group_ptr })
  const l3 = Math.log2(3),
    l5 = Math.log2(5)

  it('ndcg: gain 2^rel − 1, discount 1/log2(i + 2); no relevant row counts 1, or 0 with -', () => {
    // Group 0: DCG = 1/log2 3 + 3/log2 5, IDCG = 3 + 1/log2 3; group 1: 1; group 2: 1 (ndcg-: 0).
    const g0 = (1 / l3 + 3 / l5) / (3 + 1 / l3)
    close(ev('ndcg'), (g0 + 1 + 1) / 3)
    close(ev('ndcg-'), (g0 + 1 + 0) / 3)
    // @2: DCG@2 = 1/log2 3, IDCG@2 = 3 + 1/log2 3.
    close(ev('ndcg@2'), (1 / l3 / (3 + 1 / l3) + 1 + 1) / 3)
    close(ev('ndcg@2-'), (1 / l3 / (3 + 1 / l3) + 1 + 0) / 3)
  })

  it('map: hits so far / rank at each relevant row within k, over all relevant rows', () => {
    // Group 0: relevant at ranks 2 (1/2) and 4 (2/4) → (½ + ½)/2 = ½; group 1: 1; group 2: 1 (map-: 0).
    close(ev('map'), (0.5 + 1 + 1) / 3)
    close(ev('map-'), (0.5 + 1 + 0) / 3)
    // @2: only rank 2 counts, still divided by the 2 relevant rows: ¼.
    close(ev('map@2'), (0.25 + 1 + 1) / 3)
  })

  it('pre@k: relevant rows in the top k over k (groups shorter than k too); bare pre over 2³² − 1', () => {
    // @2: group 0 has 1 (rank 2), group 1 has 1 of its one row → ½, group 2 none.
    close(ev('pre@2'), (0.5 + 0.5 + 0) / 3)
    close(ev('pre@3'), (1 / 3 + 1 / 3 + 0) / 3)
    close(ev('pre'), (2 + 1 + 0) / (2 ** 32 - 1) / 3, 1e-15)
  })

  it('ties keep row order: swapping the tied rows’ labels changes the value', () => {
    // Labels 0, 2, 0, 1: ranked relevances 0, 0, 1, 2 → DCG = 1/log2 4 + 3/log2 5.
    const y2 = [0, 2, 0, 1, 1, 0, 0]
    const g0 = (1 / 2 + 3 / l5) / (3 + 1 / l3)
    close(evaluate('ndcg', pred, y2, undefined, { group_ptr }), (g0 + 2) / 3)
    expect(evaluate('ndcg', pred, y2, undefined, { group_ptr })).not.toBe(ev('ndcg'))
  })

  it('weights are ignored (XGBoost 1.7.4), and one group of N rows is one mean', () => {
    for (const m of RANKING_NAMES) expect(evaluate(m, pred, y, [1, 2, 3, 4, 5, 6, 7], { group_ptr }), m).toBe(ev(m))
    close(evaluate('map', pred, y, undefined, { group_ptr: Uint32Array.of(0, 7) }), referenceGroup('map', pred, y))
  })

  it('auc and aucpr over groups: the mean over groups (auc: every pair in label order; < 3 rows not counted)', () => {
    // auc, group 0 sorted by label desc: rows 1 (.1), 2 (.5), 0 (.9), 3 (.5); pairs: 1–2 0, 1–0 0, 1–3 0,
    // 2–0 0, 2–3 ½, 0–3 1 → 1.5/6. Groups 1 and 2 have under 3 rows: left out.
    close(ev('auc'), 1.5 / 6)
    // aucpr, group 0 as binary (labels 0, 2, 1, 0 are not 0/1: compare with the binary function on the group).
    const prGroups = [aucpr(pred.slice(0, 4), y.slice(0, 4))]
    close(ev('aucpr'), prGroups[0])
    // No valid group: NaN.
    expect(evaluate('auc', [0.1, 0.2], [0, 1], undefined, { group_ptr: Uint32Array.of(0, 2) })).toBeNaN()
  })
})

describe('ranking: against references on random input', () => {
  it('groups of 1…30 rows, ties, relevance 0…4, groups with nothing relevant, every name', () => {
    const rng = new Rng(77)
    const sizes = Array.from({ length: 60 }, (_, g) => (g % 7 === 0 ? 1 : 1 + Math.floor(rng.next() * 30)))
    const ptr = [0]
    for (const s of sizes) ptr.push(ptr[ptr.length - 1] + s)
    const n = ptr[ptr.length - 1]
    const pred = Array.from({ length: n }, () => Math.round(rng.normal() * 8) / 8) // many ties
    const y = Array.from({ length: n }, () => (rng.next() < 0.5 ? 0 : Math.floor(rng.next() * 5) + rng.next() * 0.9))
    for (let g = 3; g < sizes.length; g += 9) for (let i = ptr[g]; i < ptr[g + 1]; i++) y[i] = 0
    const group_ptr = Uint32Array.from(ptr)
    for (const m of RANKING_NAMES) {
      let s = 0
      for (let g = 0; g < sizes.length; g++)
        s += referenceGroup(m, pred.slice(ptr[g], ptr[g + 1]), y.slice(ptr[g], ptr[g + 1]))
      close(evaluate(m, pred, y, undefined, { group_ptr }), s / sizes.length, 1e-12)
    }
  })
})

describe('bad input refused, naming what is wrong', () => {
  it('multiclass', () => {
    const p = [0.5, 0.5, 0.2, 0.8]
    expect(() => evaluate('mlogloss', p, [0, 1])).toThrow(/^num_class: mlogloss needs num_class/)
    expect(() => evaluate('merror', p, [0, 1], undefined, { num_class: 1 })).toThrow(/^num_class: merror needs/)
    expect(() => evaluate('mlogloss', p, [0, 2], undefined, { num_class: 2 })).toThrow(
      /^mlogloss: label 2 of row 1 is not a class 0…1 \(num_class 2\)/,
    )
    expect(() => evaluate('merror', p, [-1, 0], undefined, { num_class: 2 })).toThrow(/label -1 of row 0/)
    expect(() => evaluate('mlogloss', p, [0, Number.NaN], undefined, { num_class: 2 })).toThrow(/label NaN of row 1/)
    expect(() => evaluate('auc', p, [0, 3], undefined, { num_class: 2 })).toThrow(/^auc: label 3 of row 1/)
    expect(() => evaluate('mlogloss', p, [0, 1, 1], undefined, { num_class: 2 })).toThrow(
      /^mlogloss: 4 predictions for 3 rows × 2 classes/,
    )
  })

  it('ranking', () => {
    const group_ptr = Uint32Array.of(0, 2, 3)
    expect(() => evaluate('ndcg', [1, 2, 3], [0, 1, 2])).toThrow(/^ndcg: a ranking metric needs the rows' query groups/)
    expect(() => evaluate('map@3', [1, 2, 3], [0, 1, 2])).toThrow(/^map@3: .*group_ptr/)
    expect(() => evaluate('ndcg', [1, 2, 3], [0, 1, 2], undefined, { group_ptr: Uint32Array.of(0, 2) })).toThrow(
      /^group_ptr: must run from 0 to the 3 rows/,
    )
    expect(() => evaluate('pre@2', [1, 2, 3], [0, 1, 2], undefined, { group_ptr: Uint32Array.of(0, 2, 1, 3) })).toThrow(
      /^group_ptr: /,
    )
    expect(() => evaluate('ndcg', [1, 2, 3], [0, -1, 2], undefined, { group_ptr })).toThrow(
      /^ndcg: label -1 of row 1 is not a relevance degree \(an integer 0…31\)/,
    )
    expect(() => evaluate('ndcg@2', [1, 2, 3], [0, 32, 2], undefined, { group_ptr })).toThrow(/label 32 of row 1/)
    // map and pre take any degree ≥ 0 (relevant when not 0).
    expect(evaluate('map', [1, 2, 3], [0, 32, 2], undefined, { group_ptr })).toBe(1)
    expect(() => evaluate('map', [1, 2], [0, 1, 2], undefined, { group_ptr })).toThrow(/^map: 2 predictions for 3/)
  })

  it('names: k a positive integer, - only on ranking metrics', () => {
    expect(() => parseMetric('ndcg@2.5')).toThrow(
      /^eval_metric: the k of ndcg@k must be a positive integer \(ndcg@k or ndcg@k-\), got 'ndcg@2.5'/,
    )
    for (const bad of ['ndcg@0', 'map@x', 'pre@-3', 'ndcg@', 'ndcg@3--', 'map@4294967296', 'pre@ 3'])
      expect(() => parseMetric(bad), bad).toThrow(/must be a positive integer/)
    expect(() => parseMetric('rmse-')).toThrow(/^eval_metric: only ndcg, map and pre take a - suffix, got 'rmse-'/)
    expect(() => parseMetric('ndcg+')).toThrow(/^eval_metric: must be one of/)
    expect(() => parseParams({ eval_metric: 'ndcg@a' })).toThrow(/^eval_metric: the k of ndcg@k/)
  })
})

describe('names, direction, menu', () => {
  it('ranking names as XGBoost prints them', () => {
    expect(
      ['ndcg', 'ndcg-', 'ndcg@10', ' ndcg@010 ', 'ndcg@3-', 'map-', 'map@5', 'pre', 'pre@1', 'pre-'].map(m =>
        parseMetric(m),
      ),
    ).toEqual(['ndcg', 'ndcg-', 'ndcg@10', 'ndcg@10', 'ndcg@3-', 'map-', 'map@5', 'pre', 'pre@1', 'pre-'])
    expect(['ndcg@5-', 'map-', 'pre@3', 'mlogloss'].map(metricBase)).toEqual(['ndcg', 'map', 'pre', 'mlogloss'])
    // Each with an objective that has it (params.ts checkMetrics).
    expect(parseParams({ objective: 'multi:softprob', eval_metric: 'mlogloss,merror' }).eval_metric).toEqual([
      'mlogloss',
      'merror',
    ])
    expect(parseParams({ objective: 'rank:ndcg', eval_metric: 'ndcg@5,map-' }).eval_metric).toEqual(['ndcg@5', 'map-'])
  })

  it('maximised: every ndcg, map and pre form and auc; minimised: mlogloss, merror', () => {
    for (const m of [...RANKING_NAMES, 'ndcg@5-', 'pre-', 'auc', 'aucpr']) expect(maximize(m), m).toBe(true)
    for (const m of ['mlogloss', 'merror']) expect(maximize(m), m).toBe(false)
  })

  it("the GBDT's menu is METRICS, each entry a name parseMetric keeps, in METRICS' order", () => {
    expect(familyOf('gbdt').metrics).toEqual(METRIC_MENU)
    expect(METRIC_MENU.map(metricBase)).toEqual([...METRICS])
    for (const m of METRIC_MENU) expect(parseMetric(m), m).toBe(m)
    expect(METRIC_MENU[0]).toBe('auc') // the sweep's default
    for (const m of ['mlogloss', 'merror', 'ndcg', 'map', 'pre@10']) expect(METRIC_MENU).toContain(m)
  })
})
