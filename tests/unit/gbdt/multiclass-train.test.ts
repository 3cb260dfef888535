/**
 * Multiclass training (multi:softprob / multi:softmax, K trees per round): the softmax gradient
 * against its formula, the K-class histogram and partition references against K single-class
 * passes, the lockstep driver's bookkeeping (backend margins = the trees walked round-major),
 * num_class inference and the refusals.
 */
import { describe, expect, it } from 'vitest'
import { resolveNumClass, train } from '../../../src/models/gbdt/driver.ts'
import { createCpuBackend } from '../../../src/models/gbdt/cpu-backend.ts'
import { DEFAULT_PARAMS, parseParams } from '../../../src/models/gbdt/params.ts'
import { leafOf } from '../../../src/models/gbdt/predict.ts'
import type { Booster, GbdtParams } from '../../../src/models/gbdt/types.ts'
import { softmaxGradient } from '../../../src/kernels/gbdt/gradient.ref.ts'
import { histogramBuild } from '../../../src/kernels/gbdt/histogram_build.ref.ts'
import { rowPartition } from '../../../src/kernels/gbdt/row_partition.ref.ts'
import { NO_NODE, ROW_UNUSED, SPLIT_TABLE_WORDS } from '../../../src/kernels/gbdt/layout.ts'
import { transformRows } from '../../../src/models/gbdt/objective.ts'
import { Rng } from '../../../src/util/rng.ts'
import { makeMulticlass } from './synthetic.ts'

const multi = (o: Partial<GbdtParams> = {}): GbdtParams => ({
  ...DEFAULT_PARAMS,
  objective: 'multi:softprob',
  eval_metric: ['mlogloss'],
  num_round: 4,
  max_depth: 3,
  ...o,
})

/** Margins of every training row by walking the trees round-major (class = tree index % K). */
function walkedMargins(b: Booster, columns: Float32Array[]): Float32Array {
  const K = b.numClass!,
    n = columns[0].length
  const m = new Float32Array(n * K).fill(b.baseScore)
  b.trees.forEach((t, ti) => {
    for (let i = 0; i < n; i++) m[i * K + (ti % K)] += t.splitCondition[leafOf(t, columns, i)]
  })
  return m
}

describe('softmax gradient (XGBoost 1.7.4 SoftmaxMultiClassObj)', () => {
  it('g = (p − [y = k])·w, h = max(2p(1 − p)·w, 1e-16) with p the row softmax, unsampled entries (0, 0)', () => {
    const rng = new Rng(3)
    for (const K of [2, 3, 26]) {
      const n = 37
      const margins = Float32Array.from({ length: n * K }, () => rng.uniform(-30, 30) * (rng.next() < 0.2 ? 0 : 1))
      const labels = Float32Array.from({ length: n }, () => Math.floor(rng.next() * K))
      const weights = Float32Array.from({ length: n }, () => rng.uniform(0, 3))
      const positions = Uint32Array.from({ length: n * K }, () => (rng.next() < 0.1 ? ROW_UNUSED : 0))
      const gpair = new Float32Array(2 * n * K)
      softmaxGradient(margins, labels, weights, positions, gpair, n, K)
      for (let i = 0; i < n; i++) {
        const row = Array.from(margins.subarray(i * K, (i + 1) * K))
        const mx = Math.max(...row)
        const z = row.reduce((s, m) => s + Math.exp(m - mx), 0)
        for (let k = 0; k < K; k++) {
          const e = i * K + k
          const p = Math.exp(row[k] - mx) / z
          const g = (p - (labels[i] === k ? 1 : 0)) * weights[i]
          // In f32 as XGBoost: p rounds to 1 where e^(m − max) is tiny, and h then floors at 1e-16.
          const p32 = Math.fround(p)
          const h = Math.max(2 * p32 * (1 - p32) * weights[i], 1e-16)
          if (positions[e] === ROW_UNUSED) {
            expect([gpair[2 * e], gpair[2 * e + 1]]).toEqual([0, 0])
            continue
          }
          expect(Math.abs(gpair[2 * e] - g)).toBeLessThan(1e-6 * (1 + Math.abs(g)))
          expect(Math.abs(gpair[2 * e + 1] - h)).toBeLessThan(1e-6 * h + 3e-7 * weights[i])
        }
      }
    }
  })

  it('transformRows: each row of probabilities is the softmax, summing to 1', () => {
    const m = Float32Array.of(0, 1, 2, 5, 5, 5)
    const p = transformRows('multi:softprob', m, 3)
    expect(p[3]).toBeCloseTo(1 / 3, 6)
    expect(p[2] / p[1]).toBeCloseTo(Math.E, 5)
    expect(p[0] + p[1] + p[2]).toBeCloseTo(1, 6)
  })
})

describe('one pass for K classes (histogram_build, row_partition references)', () => {
  /** Random binned matrix with F features of `bins` bins (feature 0 with missing values). */
  function matrix(rng: Rng, n: number, F: number, bins: number) {
    const rowWords = Math.ceil(n / 4)
    const data = new Uint32Array(F * rowWords)
    const missOff = Uint32Array.from({ length: F }, (_, f) => (f === 0 ? 1 : 0))
    for (let f = 0; f < F; f++)
      for (let i = 0; i < n; i++) {
        const s = Math.floor(rng.next() * (bins + missOff[f]))
        data[f * rowWords + (i >> 2)] |= s << ((i & 3) * 8)
      }
    const cutPtrs = Uint32Array.from({ length: F + 1 }, (_, f) => f * bins)
    return { data, missOff, cutPtrs, rowWords, B: F * bins }
  }

  for (const [K, n] of [
    [2, 1],
    [3, 63],
    [26, 130],
  ] as const)
    it(`K = ${K}, N = ${n}: the K-class histograms equal K single-class passes, and so does the partition`, () => {
      const rng = new Rng(K * 100 + n)
      const F = 3,
        { data, missOff, cutPtrs, rowWords, B } = matrix(rng, n, F, 5)
      // Each class tree has its own nodes (round ids): class k's nodes are k, K + 2k, K + 2k + 1.
      const nodes = 3 * K
      const nodeOf = (k: number) => [k, K + 2 * k, K + 2 * k + 1][Math.floor(rng.next() * 3)]
      const positions = Uint32Array.from({ length: n * K }, (_, e) => (rng.next() < 0.1 ? ROW_UNUSED : nodeOf(e % K)))
      const qgpair = Int32Array.from({ length: 2 * n * K }, () => Math.round(rng.uniform(-(2 ** 30), 2 ** 30)))
      // Slot per node, one node left without a slot (skipped) and one slot for an empty node.
      const nodeSlot = Int32Array.from({ length: nodes + 1 }, (_, nid) => (nid === 1 ? -1 : nid))
      const S = nodes + 1
      const one = new Uint32Array(S * B * 4)
      histogramBuild(data, missOff, cutPtrs, qgpair, positions, nodeSlot, one, n, F, rowWords, B, K)
      const separate = new Uint32Array(S * B * 4)
      for (let k = 0; k < K; k++) {
        const pos = Uint32Array.from({ length: n }, (_, i) => positions[i * K + k])
        const q = Int32Array.from({ length: 2 * n }, (_, j) => qgpair[2 * ((j >> 1) * K + k) + (j & 1)])
        histogramBuild(data, missOff, cutPtrs, q, pos, nodeSlot, separate, n, F, rowWords, B)
      }
      expect(one).toEqual(separate)
      expect(one.some(x => x !== 0)).toBe(true)

      // Split every class's root k on a random feature; children are the next ids.
      const table = new Uint32Array(nodes * SPLIT_TABLE_WORDS)
      for (let nid = 0; nid < nodes; nid++) table[nid * SPLIT_TABLE_WORDS + 3] = NO_NODE
      for (let k = 0; k < K; k++) {
        const s = k * SPLIT_TABLE_WORDS
        table.set([Math.floor(rng.next() * F), Math.floor(rng.next() * 5), k & 1, K + 2 * k, K + 2 * k + 1, 0], s)
      }
      const rootPos = Uint32Array.from(positions, (p, e) => (p === ROW_UNUSED ? p : e % K))
      const joint = rootPos.slice()
      rowPartition(data, missOff, table, joint, { rows: n, rowWords, nodes, classes: K })
      for (let k = 0; k < K; k++) {
        const pos = Uint32Array.from({ length: n }, (_, i) => rootPos[i * K + k])
        rowPartition(data, missOff, table, pos, { rows: n, rowWords, nodes })
        pos.forEach((p, i) => expect(joint[i * K + k]).toBe(p))
      }
    })
})

describe('multiclass training on the CPU backend', () => {
  const d = makeMulticlass(600, 5, 3, 7)
  const data = { columns: d.columns, labels: d.labels, labelName: 'y' }

  for (const grow_policy of ['depthwise', 'lossguide'] as const)
    it(`${grow_policy}: K trees per round round-major, the backend's margins are the trees walked round-major`, async () => {
      const p = multi({ num_class: 3, grow_policy, max_leaves: grow_policy === 'lossguide' ? 6 : 0, subsample: 0.8 })
      let margins: Float32Array | undefined
      const b = await train(data, p, async setup => {
        const inner = createCpuBackend(setup)
        const dispose = inner.dispose.bind(inner)
        inner.dispose = () => {
          margins = (inner.trainMargins() as Float32Array).slice()
          dispose()
        }
        return inner
      })
      expect(b.numClass).toBe(3)
      expect(b.trees.length).toBe(4 * 3)
      expect(b.bestIteration).toBe(3)
      expect(b.baseScore).toBe(0.5)
      expect(margins).toEqual(walkedMargins(b, d.columns))
      // Every class tree learnt something, and the classes' trees differ.
      expect(b.trees.every(t => t.left.length > 1)).toBe(true)
      expect(b.trees[0].splitCondition).not.toEqual(b.trees[1].splitCondition)
      // The model separates the classes: training accuracy well above chance (1/3).
      const prob = transformRows('multi:softprob', margins!, 3)
      let right = 0
      for (let i = 0; i < d.labels.length; i++) {
        const row = Array.from(prob.subarray(3 * i, 3 * i + 3))
        if (row.indexOf(Math.max(...row)) === d.labels[i]) right++
      }
      expect(right / d.labels.length).toBeGreaterThan(0.6)
    })

  it('same seed ⇒ same model; validation margins are V × K and match the walked trees; metrics per round', async () => {
    const v = makeMulticlass(50, 5, 3, 8)
    let valid: Float32Array | undefined
    const p = multi({ num_class: 3, colsample_bytree: 0.6, eval_metric: ['merror', 'mlogloss'] })
    const withValid = { ...data, valid: { columns: v.columns, labels: v.labels } }
    const scores: Float32Array[] = []
    const b = await train(
      withValid,
      p,
      async setup => {
        const inner = createCpuBackend(setup)
        const dispose = inner.dispose.bind(inner)
        inner.dispose = () => {
          valid = (inner.validMargins() as Float32Array).slice()
          dispose()
        }
        return inner
      },
      { onValidScores: s => scores.push(s) },
    )
    expect(valid).toEqual(walkedMargins(b, v.columns))
    // Metrics see the V × K softmax probabilities (multi:softmax too, XGBoost's EvalTransform).
    expect(scores[3]).toEqual(transformRows('multi:softprob', valid!, 3))
    expect(b.history.map(h => Object.keys(h))).toEqual(Array(4).fill(['merror', 'mlogloss']))
    expect(b.history[3].mlogloss).toBeLessThan(b.history[0].mlogloss)
    const again = await train(withValid, p)
    expect(again.trees).toEqual(b.trees)
  })

  it('num_class 0 is inferred as max label + 1 (training and validation rows)', () => {
    const v = { columns: d.columns, labels: Float32Array.of(0, 4) }
    expect(resolveNumClass(multi(), data).num_class).toBe(3)
    expect(resolveNumClass(multi(), { ...data, valid: v }).num_class).toBe(5)
    expect(resolveNumClass(multi({ num_class: 7 }), data).num_class).toBe(7)
    expect(() => resolveNumClass(multi(), { labels: new Float32Array(4), labelName: 'y' })).toThrow(
      /num_class: multi:softprob needs at least 2 classes; label column y/,
    )
  })

  it('refuses labels that are not classes 0 … K−1, naming the column, the value and the row', async () => {
    const bad = (at: number, y: number) => {
      const labels = d.labels.slice()
      labels[at] = y
      return { ...data, labels }
    }
    await expect(train(bad(5, 1.5), multi({ num_class: 3 }))).rejects.toThrow(
      'label column y: multi:softprob needs integer class labels 0 … 2 (num_class = 3), got 1.5 at row 5',
    )
    await expect(train(bad(9, 3), multi({ num_class: 3, objective: 'multi:softmax' }))).rejects.toThrow(
      /label column y: multi:softmax needs .* got 3 at row 9/,
    )
    await expect(train(bad(2, -1), multi())).rejects.toThrow(/got -1 at row 2/)
  })

  it('num_class: range-checked, ≥ 2 for multi:*, refused for other objectives', () => {
    expect(() => parseParams({ objective: 'multi:softprob', num_class: 1, eval_metric: 'merror' })).toThrow(
      /num_class: multi:softprob needs at least 2 classes/,
    )
    expect(() => parseParams({ objective: 'binary:logistic', num_class: 3 })).toThrow(
      /num_class: only multi:softprob and multi:softmax have classes/,
    )
    expect(() => parseParams({ objective: 'multi:softprob', num_class: -1, eval_metric: 'merror' })).toThrow(
      /num_class/,
    )
    expect(parseParams({ objective: 'multi:softmax', num_class: '4', eval_metric: 'merror' }).num_class).toBe(4)
  })

  it('a base margin per row and class (N × K) is where training starts', async () => {
    const baseMargin = Float32Array.from({ length: d.labels.length * 3 }, (_, e) => (e % 3) * 0.25)
    const b = await train({ ...data, baseMargin }, multi({ num_class: 3, num_round: 1 }))
    expect(b.trees.length).toBe(3)
    await expect(train({ ...data, baseMargin: baseMargin.subarray(0, 600) }, multi({ num_class: 3 }))).rejects.toThrow(
      'base margin: 600 values for 600 rows (3 outputs per row)',
    )
  })
})
