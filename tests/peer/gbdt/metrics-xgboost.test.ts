/**
 * Our metrics equal XGBoost 1.7.4's on the same labels, predictions and weights: XGBoost evaluates
 * each metric on a DMatrix whose base_margin is our prediction, under a booster with no trees
 * (tests/support/xgboost_metrics_peer.py, one Python call for every case), and the name XGBoost
 * prints for each metric is the one parseMetric gives. Not checked here: quantile (XGBoost ≥ 2.0
 * only; its formula is checked in tests/unit/eval/metrics-xgboost.test.ts).
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
  p: Float32Array
  w?: Float32Array
  metrics: string[]
  params?: MetricOptions
}

const f32 = (n: number, f: (i: number) => number) => Float32Array.from({ length: n }, (_, i) => f(i))

function cases(): Case[] {
  const rng = new Rng(1729)
  const n = 400
  const yPos = f32(n, () => 0.1 + rng.next() * 5)
  const pPos = f32(n, () => 0.05 + rng.next() * 6)
  const w = f32(n, () => 0.1 + rng.next() * 3)
  const counts = f32(n, () => Math.floor(rng.next() * rng.next() * 12))
  const yBin = f32(n, () => (rng.next() < 0.35 ? 1 : 0))
  // Probabilities on a grid of 1/50: many tied scores (auc, aucpr interpolate over ties).
  const prob = f32(n, i => Math.min(0.98, Math.max(0.02, Math.round((0.3 * yBin[i] + 0.7 * rng.next()) * 50) / 50)))
  const regression = [
    'rmse',
    'rmsle',
    'mae',
    'mape',
    'mphe',
    'poisson-nloglik',
    'gamma-nloglik',
    'gamma-deviance',
    'tweedie-nloglik@1.5',
    'tweedie-nloglik@1.20',
  ]
  const binary = ['auc', 'aucpr', 'logloss', 'error', 'error@0.3', 'error@0.50', 'error@0.7']
  return [
    { name: 'regression, weighted', y: yPos, p: pPos, w, metrics: regression },
    { name: 'regression', y: yPos, p: pPos, metrics: regression },
    {
      name: 'counts, weighted',
      y: counts,
      p: pPos,
      w,
      metrics: ['poisson-nloglik', 'tweedie-nloglik@1.1', 'tweedie-nloglik@1', 'rmse', 'mae'],
    },
    { name: 'binary, weighted', y: yBin, p: prob, w, metrics: binary },
    { name: 'binary', y: yBin, p: prob, metrics: binary },
    // reg:logistic takes labels in [0, 1]: a row is y positive and 1 − y negative.
    { name: 'fractional labels, weighted', y: f32(n, () => rng.next()), p: prob, w, metrics: binary },
    { name: 'mphe, huber_slope 2.5', y: yPos, p: pPos, w, metrics: ['mphe'], params: { huber_slope: 2.5 } },
    {
      name: 'zero weights',
      y: yPos.subarray(0, 20),
      p: pPos.subarray(0, 20),
      w: new Float32Array(20),
      metrics: ['mae', 'rmse', 'gamma-deviance', 'poisson-nloglik', 'tweedie-nloglik@1.5'],
    },
    {
      name: 'probabilities 0 and 1',
      y: Float32Array.of(0, 1, 1, 0, 1),
      p: Float32Array.of(1, 0, 1, 0, 0.5),
      metrics: ['logloss', 'error', 'auc', 'aucpr'],
    },
    // aucpr of one class: NaN here, XGBoost 1.7.4 aborts (auc.cc: Check failed: auc <= local_area).
    { name: 'one class', y: new Float32Array(10).fill(1), p: prob.subarray(0, 10), metrics: ['auc'] },
  ]
}

/** XGBoost's values: {case: {printed metric name: value | null (NaN)}}. */
function xgboostValues(all: Case[]): Record<string, Record<string, number | null>> {
  const input = JSON.stringify({
    cases: all.map(c => ({
      name: c.name,
      y: [...c.y],
      p: [...c.p],
      w: c.w ? [...c.w] : null,
      metrics: c.metrics,
      params: c.params ?? {},
    })),
  })
  const r = spawnSync(PYTHON, [SCRIPT], { input, encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20 })
  if (r.status !== 0) throw new Error(`xgboost_metrics_peer.py: ${r.stderr}`)
  return JSON.parse(r.stdout.trim().split('\n').pop()!)
}

describe.runIf(peer.run)('metrics = XGBoost 1.7.4', () => {
  it('every metric, weighted and not, within 1e-6 (relative where above 1), under the name XGBoost prints', () => {
    peer.require()
    const all = cases()
    const xgb = xgboostValues(all)
    let compared = 0
    for (const c of all) {
      const names = c.metrics.map(m => parseMetric(m))
      expect(Object.keys(xgb[c.name]).sort(), c.name).toEqual([...new Set(names)].sort())
      for (const m of names) {
        const ours = evaluate(m, c.p, c.y, c.w, c.params)
        const theirs = xgb[c.name][m]
        const what = `${c.name}: ${m} ours ${ours} XGBoost ${theirs}`
        if (theirs === null) expect(ours, what).toBeNaN()
        else expect(Math.abs(ours - theirs), what).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(theirs)))
        compared++
      }
    }
    expect(compared).toBe(all.reduce((s, c) => s + c.metrics.length, 0))
  }, 60_000)
})
