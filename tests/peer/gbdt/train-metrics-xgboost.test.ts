/**
 * Training-rows metrics (TrainOptions.evalTrain, the CLI's --eval-train) against XGBoost 1.7.4
 * `hist` with evals=[(dtrain, 'train'), (dvalid, 'valid')], the CPU backend in Node, one Python
 * call: every round's train-auc, train-logloss and train-error equal XGBoost's evals_result
 * ['train'] (index k − 1 = after round k) within 1e-6 on weighted rows, the validation metrics keep
 * their bare names and values, and asking for them changes neither the model's bytes nor early
 * stopping's best iteration (it watches the validation metric).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { train } from '../../../src/models/gbdt/driver.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { toXGBoostJson } from '../../../src/models/gbdt/xgboost-json.ts'
import type { TrainData } from '../../../src/eval/dataset.ts'
import { pythonPeer, PYTHON } from '../../support/peers.ts'
import { Rng } from '../../../src/util/rng.ts'
import { makeBinary } from '../../unit/gbdt/synthetic.ts'

const peer = pythonPeer(['xgboost'])

const N = 3000,
  V = 800,
  F = 4,
  ROUNDS = 5
const METRICS = ['auc', 'logloss', 'error']
const PARAMS = { max_depth: 3, eta: 0.3, max_bin: 32, base_score: 0.5, objective: 'binary:logistic' }

const SCRIPT = `
import json, sys, numpy as np, xgboost as xgb
d = sys.argv[1]
f32 = lambda name: np.fromfile(d + '/' + name, '<f4')
x, vx = f32('x').reshape(${N}, ${F}), f32('vx').reshape(${V}, ${F})
params = dict(json.loads(sys.argv[2]), tree_method='hist', nthread=1, eval_metric=${JSON.stringify(METRICS)})
dt = xgb.DMatrix(x, f32('y'), weight=f32('w'), missing=np.nan)
dv = xgb.DMatrix(vx, f32('vy'), weight=f32('vw'), missing=np.nan)
evals = {}
xgb.train(params, dt, ${ROUNDS}, evals=[(dt, 'train'), (dv, 'valid')], evals_result=evals, verbose_eval=False)
print(json.dumps(evals))
`

function rows(n: number, seed: number) {
  const d = makeBinary(n, F, seed)
  const rng = new Rng(seed + 100)
  // Fractional weights, 10% of them 0: the training metrics are weighted as XGBoost's.
  const weights = Float32Array.from({ length: n }, () => (rng.next() < 0.1 ? 0 : Math.exp(rng.normal())))
  return { ...d, weights }
}

const rowMajor = (cols: Float32Array[]) => {
  const n = cols[0].length,
    x = new Float32Array(n * F)
  cols.forEach((c, f) => c.forEach((val, i) => (x[i * F + f] = val)))
  return x
}

describe.runIf(peer.run)('training-rows metrics: XGBoost 1.7.4 evals train', () => {
  it("train-auc, train-logloss, train-error equal XGBoost's train eval each round; models unchanged", async () => {
    peer.require()
    const t = rows(N, 11),
      v = rows(V, 12)
    const dir = mkdtempSync(join(tmpdir(), 'snaptrain-train-metrics-'))
    const files: Record<string, Float32Array> = {
      x: rowMajor(t.columns),
      y: t.labels,
      w: t.weights,
      vx: rowMajor(v.columns),
      vy: v.labels,
      vw: v.weights,
    }
    for (const [name, a] of Object.entries(files)) writeFileSync(join(dir, name), new Uint8Array(a.buffer))
    const r = spawnSync(PYTHON, ['-c', SCRIPT, dir, JSON.stringify(PARAMS)], { encoding: 'utf8', timeout: 120_000 })
    expect(r.status, r.stderr).toBe(0)
    const theirs = JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<'train' | 'valid', Record<string, number[]>>
    const data: TrainData = {
      columns: t.columns,
      labels: t.labels,
      weights: t.weights,
      valid: { columns: v.columns, labels: v.labels, weights: v.weights },
    }
    const p = parseParams({ ...PARAMS, num_round: ROUNDS, eval_metric: METRICS, early_stopping_rounds: ROUNDS })
    const seen: Array<Record<string, number>> = []
    const withTrain = await train(data, p, undefined, { evalTrain: true, onRound: (_r, m) => void seen.push(m) })
    const plain = await train(data, p)
    expect(withTrain.history).toHaveLength(ROUNDS)
    expect(seen).toEqual(withTrain.history)
    withTrain.history.forEach((h, k) => {
      expect(Object.keys(h)).toEqual([...METRICS, ...METRICS.map(m => `train-${m}`)])
      for (const m of METRICS) {
        expect(Math.abs(h[`train-${m}`] - theirs.train[m][k]), `round ${k + 1} train-${m}`).toBeLessThan(1e-6)
        expect(Math.abs(h[m] - theirs.valid[m][k]), `round ${k + 1} ${m}`).toBeLessThan(1e-6)
        expect(h[m]).toBe(plain.history[k][m])
      }
    })
    // Training rows fit better than validation rows: the two series differ.
    expect(withTrain.history[ROUNDS - 1]['train-logloss']).not.toBe(withTrain.history[ROUNDS - 1].logloss)
    expect(JSON.stringify(toXGBoostJson(withTrain))).toBe(JSON.stringify(toXGBoostJson(plain)))
    expect(withTrain.bestIteration).toBe(plain.bestIteration)
  })
})
