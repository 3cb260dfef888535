/**
 * Our multiclass and ranking metrics equal XGBoost 1.7.4's on the same rows: XGBoost evaluates each
 * metric under a booster with no trees on a DMatrix whose base_margin is the given margins
 * (tests/support/xgboost_metrics_peer.py, one Python call for every case) — multi:softprob with
 * num_class K (the metrics see softmax of the margins; the peer returns those probabilities and we
 * evaluate the very same ones), rank:pairwise with query groups (the metrics see the margins) —
 * and the name XGBoost prints for each metric is the one parseMetric gives.
 */
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { evaluate, type MetricOptions, parseMetric } from '../../../src/eval/metrics.ts'
import { Rng } from '../../../src/util/rng.ts'
import { PYTHON, pythonPeer } from '../../support/peers.ts'

const peer = pythonPeer(['xgboost'])
const SCRIPT = new URL('../../support/xgboost_metrics_peer.py', import.meta.url).pathname

interface Case {
  name: string
  y: Float32Array
  /** Multiclass: the N × K margins XGBoost turns into probabilities; ranking: the margins. */
  p: Float32Array
  /** Multiclass: per row; ranking: per group for XGBoost (expanded to the rows for ours, which ignores them as 1.7.4 does). */
  w?: Float32Array
  metrics: string[]
  num_class?: number
  group_ptr?: Uint32Array
}

const f32 = (n: number, f: (i: number) => number) => Float32Array.from({ length: n }, (_, i) => f(i))

/**
 * N rows of K classes: margins drawn from a pool of 25 rows on a 0.5 grid (tied probabilities
 * across rows, and tied maxima within rows), labels 0…K−1 (all present unless `absent`).
 */
function multiclass(rng: Rng, n: number, K: number, absent?: number): { y: Float32Array; p: Float32Array } {
  const pool = Array.from({ length: 25 }, () => f32(K, () => Math.round(rng.normal() * 4) / 2))
  const y = f32(n, i => {
    const c = i < K ? i : Math.floor(rng.next() * K)
    return c === absent ? (c + 1) % K : c
  })
  const p = new Float32Array(n * K)
  for (let i = 0; i < n; i++) {
    p.set(pool[Math.floor(rng.next() * pool.length)], i * K)
    p[i * K + y[i]] += rng.next() < 0.5 ? 1 : 0 // some signal
  }
  return { y, p }
}

/** Groups of 1…25 rows (every 6th of one row), margins on a 0.25 grid (ties), every 5th group all 0. */
function ranking(rng: Rng, groups: number, grade: (r: Rng) => number) {
  const ptr = [0]
  for (let g = 0; g < groups; g++) ptr.push(ptr[g] + (g % 6 === 0 ? 1 : 1 + Math.floor(rng.next() * 25)))
  const n = ptr[groups]
  const y = new Float32Array(n)
  for (let g = 0; g < groups; g++) for (let i = ptr[g]; i < ptr[g + 1]; i++) y[i] = g % 5 === 2 ? 0 : grade(rng)
  return {
    y,
    p: f32(n, () => Math.round(rng.normal() * 6) / 4),
    group_ptr: Uint32Array.from(ptr),
    w: f32(groups, () => 0.2 + rng.next() * 2),
  }
}

function cases(): Case[] {
  const rng = new Rng(2903)
  const mc = ['mlogloss', 'merror', 'auc', 'aucpr']
  const out: Case[] = []
  for (const K of [3, 26]) {
    const n = K === 3 ? 300 : 1200
    const { y, p } = multiclass(rng, n, K)
    const w = f32(n, () => 0.1 + rng.next() * 3)
    out.push({ name: `K = ${K}`, y, p, metrics: mc, num_class: K })
    out.push({ name: `K = ${K}, weighted`, y, p, w, metrics: mc, num_class: K })
  }
  // A class that no label names: auc and aucpr NaN (both), mlogloss and merror as usual.
  out.push({ name: 'K = 4, class 2 absent', ...multiclass(rng, 200, 4, 2), metrics: mc, num_class: 4 })
  const rank = [
    'ndcg',
    'ndcg-',
    'ndcg@1',
    'ndcg@3',
    'ndcg@5-',
    'map',
    'map-',
    'map@2',
    'map@4-',
    'pre',
    'pre@1',
    'pre@3',
    'pre@10-',
    'auc',
  ]
  // Relevance 0…4, some fractional (XGBoost takes the integer part).
  const graded = ranking(rng, 80, r => Math.floor(r.next() * 5) + (r.next() < 0.2 ? 0.5 : 0))
  out.push({ name: 'ranking, graded', ...graded, w: undefined, metrics: rank })
  out.push({ name: 'ranking, graded, group weights', ...graded, metrics: rank })
  const binary = ranking(rng, 60, r => (r.next() < 0.3 ? 1 : 0))
  out.push({ name: 'ranking, 0/1', ...binary, w: undefined, metrics: [...rank, 'aucpr'] })
  // One group of every row.
  out.push({
    name: 'ranking, one group',
    y: binary.y,
    p: binary.p,
    group_ptr: Uint32Array.of(0, binary.y.length),
    metrics: rank,
  })
  return out
}

/** XGBoost's values: {case: {printed metric name: value | null (NaN)}}, and multiclass cases' probabilities. */
function xgboostValues(all: Case[]): Record<string, Record<string, number | null | number[]>> {
  const input = JSON.stringify({
    cases: all.map(c => ({
      name: c.name,
      y: [...c.y],
      p: [...c.p],
      w: c.w ? [...c.w] : null,
      metrics: c.metrics,
      params: c.num_class ? { num_class: c.num_class } : {},
      group_ptr: c.group_ptr ? [...c.group_ptr] : undefined,
    })),
  })
  const r = spawnSync(PYTHON, [SCRIPT], { input, encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20 })
  if (r.status !== 0) throw new Error(`xgboost_metrics_peer.py: ${r.stderr}`)
  return JSON.parse(r.stdout.trim().split('\n').pop()!)
}

/** The weights ours is handed: per row (multiclass), or each group's weight on its rows (ranking, ignored). */
function rowWeights(c: Case): Float32Array | undefined {
  if (!c.w || !c.group_ptr) return c.w
  const gp = c.group_ptr
  return f32(c.y.length, i => c.w![gp.findIndex((_, g) => gp[g + 1] > i)])
}

describe.runIf(peer.run)('multiclass and ranking metrics = XGBoost 1.7.4', () => {
  it('mlogloss, merror, auc, aucpr (K = 3, 26) and ndcg, map, pre (@k, -), auc, aucpr over groups, within 1e-6', () => {
    peer.require()
    const all = cases()
    const xgb = xgboostValues(all)
    let compared = 0,
      nan = 0
    for (const c of all) {
      const names = c.metrics.map(m => parseMetric(m))
      const theirs = { ...xgb[c.name] }
      const probs = theirs.predictions as number[] | undefined
      delete theirs.predictions
      expect(Object.keys(theirs).sort(), c.name).toEqual([...new Set(names)].sort())
      if (c.num_class) expect(probs?.length, c.name).toBe(c.y.length * c.num_class)
      const pred = probs ? Float32Array.from(probs) : c.p
      const options: MetricOptions = { num_class: c.num_class, group_ptr: c.group_ptr }
      for (const m of names) {
        const ours = evaluate(m, pred, c.y, rowWeights(c), options)
        const v = theirs[m] as number | null
        const what = `${c.name}: ${m} ours ${ours} XGBoost ${v}`
        if (v === null) {
          expect(ours, what).toBeNaN()
          nan++
        } else expect(Math.abs(ours - v), what).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(v)))
        compared++
      }
    }
    expect(compared).toBe(all.reduce((s, c) => s + c.metrics.length, 0))
    expect(nan).toBe(2) // the absent class's auc and aucpr
  }, 60_000)
})
