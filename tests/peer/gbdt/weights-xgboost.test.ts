/**
 * Row weights and base margins against XGBoost 1.7.4 `hist` (DMatrix weight= and base_margin=),
 * the CPU backend in Node, one Python call: with fractional weights (some 0) XGBoost grows the
 * same trees — same features, same split conditions, each one of our weighted-sketch cuts —
 * with equal leaves and margins, and reports the same weighted validation logloss each round;
 * with base margins too (each row starts at its own margin, base_score not added), and
 * predicting with base margins gives XGBoost's output_margin. Dense features: XGBoost sizes a
 * sparse column's sketch by its non-missing count, ours by the rows (sketch.ts sketchPlan).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { train } from '../../../src/models/gbdt/driver.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { predictMargins } from '../../../src/models/gbdt/predict.ts'
import { buildCuts } from '../../../src/models/gbdt/cuts.ts'
import { toXGBoostJson } from '../../../src/models/gbdt/xgboost-json.ts'
import type { TrainData } from '../../../src/eval/dataset.ts'
import { pythonPeer, PYTHON } from '../../support/peers.ts'
import { Rng } from '../../../src/util/rng.ts'
import { makeBinary } from '../../unit/gbdt/synthetic.ts'

const peer = pythonPeer(['xgboost'])

const N = 6000,
  V = 1500,
  F = 4,
  ROUNDS = 4
const PARAMS = { max_depth: 4, eta: 0.3, max_bin: 32, base_score: 0.5, objective: 'binary:logistic' }

const SCRIPT = `
import json, sys, numpy as np, xgboost as xgb
d = sys.argv[1]
f32 = lambda name: np.fromfile(d + '/' + name, '<f4')
x, vx = f32('x').reshape(${N}, ${F}), f32('vx').reshape(${V}, ${F})
params = dict(json.loads(sys.argv[2]), tree_method='hist', nthread=1, eval_metric='logloss')
out = {}
for case, margin in (('weights', False), ('margins', True)):
    extra = lambda p: {'base_margin': f32(p + 'm')} if margin else {}
    dt = xgb.DMatrix(x, f32('y'), weight=f32('w'), missing=np.nan, **extra(''))
    dv = xgb.DMatrix(vx, f32('vy'), weight=f32('vw'), missing=np.nan, **extra('v'))
    evals = {}
    b = xgb.train(params, dt, ${ROUNDS}, evals=[(dv, 'valid')], evals_result=evals, verbose_eval=False)
    out[case] = {
        'trees': json.loads(b.save_raw('json').decode())['learner']['gradient_booster']['model']['trees'],
        'margins': b.predict(dv, output_margin=True).tolist(),
        'logloss': evals['valid']['logloss'],
    }
print(json.dumps(out))
`

interface XgbTree {
  left_children: number[]
  split_indices: number[]
  split_conditions: number[]
}

function rows(n: number, seed: number) {
  const d = makeBinary(n, F, seed) // no missing values
  const rng = new Rng(seed + 100)
  // Fractional weights over two orders of magnitude, 10% of them 0; margins around 0.
  const weights = Float32Array.from({ length: n }, () => (rng.next() < 0.1 ? 0 : Math.exp(2 * rng.normal())))
  const baseMargin = Float32Array.from({ length: n }, () => rng.normal() * 0.7)
  return { ...d, weights, baseMargin }
}

describe.runIf(peer.run)('weights and base margins: XGBoost 1.7.4 hist', () => {
  it('same trees, cuts, leaves, margins and weighted validation logloss (weights; weights + base margins)', async () => {
    peer.require()
    const t = rows(N, 3),
      v = rows(V, 4)
    const dir = mkdtempSync(join(tmpdir(), 'snaptrain-weights-'))
    const rowMajor = (cols: Float32Array[]) => {
      const n = cols[0].length,
        x = new Float32Array(n * F)
      cols.forEach((c, f) => c.forEach((val, i) => (x[i * F + f] = val)))
      return x
    }
    const files: Record<string, Float32Array> = {
      x: rowMajor(t.columns),
      y: t.labels,
      w: t.weights,
      m: t.baseMargin,
      vx: rowMajor(v.columns),
      vy: v.labels,
      vw: v.weights,
      vm: v.baseMargin,
    }
    for (const [name, a] of Object.entries(files)) writeFileSync(join(dir, name), new Uint8Array(a.buffer))
    const r = spawnSync(PYTHON, ['-c', SCRIPT, dir, JSON.stringify(PARAMS)], {
      encoding: 'utf8',
      timeout: 120_000,
      maxBuffer: 64 << 20,
    })
    expect(r.status, r.stderr).toBe(0)
    const theirs = JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<
      'weights' | 'margins',
      { trees: XgbTree[]; margins: number[]; logloss: number[] }
    >
    const cuts = buildCuts(t.columns, PARAMS.max_bin, t.weights)
    const cutsOf = (f: number) => Array.from(cuts.cutValues.subarray(cuts.cutPtrs[f], cuts.cutPtrs[f + 1]))
    for (const withMargins of [false, true]) {
      const data: TrainData = {
        columns: t.columns,
        labels: t.labels,
        weights: t.weights,
        ...(withMargins ? { baseMargin: t.baseMargin } : {}),
        valid: {
          columns: v.columns,
          labels: v.labels,
          weights: v.weights,
          ...(withMargins ? { baseMargin: v.baseMargin } : {}),
        },
      }
      const p = parseParams({ ...PARAMS, num_round: ROUNDS, eval_metric: ['logloss'] })
      const b = await train(data, p)
      const want = theirs[withMargins ? 'margins' : 'weights']
      const ours = (toXGBoostJson(b) as { learner: { gradient_booster: { model: { trees: XgbTree[] } } } }).learner
        .gradient_booster.model.trees
      expect(ours).toHaveLength(ROUNDS)
      let splits = 0
      ours.forEach((tree, k) => {
        const x = want.trees[k]
        expect(tree.left_children, `tree ${k}`).toEqual(x.left_children)
        tree.left_children.forEach((left, n) => {
          if (left < 0) {
            // Leaves: XGBoost sums gradients in doubles, we in exact fixed point.
            expect(Math.abs(tree.split_conditions[n] - x.split_conditions[n])).toBeLessThan(1e-6)
            return
          }
          splits++
          const f = x.split_indices[n]
          expect(tree.split_indices[n], `tree ${k} node ${n}`).toBe(f)
          expect(Math.fround(tree.split_conditions[n])).toBe(Math.fround(x.split_conditions[n]))
          expect(cutsOf(f)).toContain(Math.fround(x.split_conditions[n]))
        })
      })
      expect(splits).toBeGreaterThan(40)
      const margins = predictMargins(b, v.columns, undefined, withMargins ? v.baseMargin : undefined)
      const diff = Math.max(...want.margins.map((m, i) => Math.abs(m - margins[i])))
      expect(diff).toBeLessThan(1e-5)
      b.history.forEach((h, round) => expect(h.logloss).toBeCloseTo(want.logloss[round], 5))
    }
    // The two cases differ: base margins change the trees.
    expect(theirs.margins.trees[0].split_conditions).not.toEqual(theirs.weights.trees[0].split_conditions)
  })
})
