/**
 * Monotone and interaction constraints against XGBoost 1.7.4 `hist` (Debian python3-xgboost):
 * with the same rows, parameters and constraints, both grow the same trees (split features per
 * node) and give the same margins (1e-5), for monotone_constraints and interaction_constraints
 * under both grow policies, with alpha, and max_delta_step (the same weight-based gain) — our CPU
 * backend; the GPU backend = the CPU one is tests/kernels/gbdt/split_evaluate-constraints.test.ts.
 * All XGBoost runs are one Python call.
 */
import { describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { train } from '../../../src/models/gbdt/driver.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { predictMargins } from '../../../src/models/gbdt/predict.ts'
import type { TrainData } from '../../../src/eval/dataset.ts'
import type { Booster } from '../../../src/models/gbdt/types.ts'
import { Rng } from '../../../src/util/rng.ts'
import { PYTHON, pythonPeer } from '../../support/peers.ts'
import { maxDiff, tempDir } from './xgboost-peer.ts'

const peer = pythonPeer(['xgboost'])

/** XGBoost trains each config on the same rows: per config its margins on `test` and each tree's split features by node. */
const XGB = `
import sys, json, numpy as np, xgboost as xgb
d = json.load(open(sys.argv[1]))
m = lambda cols: np.array(cols, dtype=np.float32).T
dt = xgb.DMatrix(m(d['train']), np.array(d['y'], dtype=np.float32), feature_names=d['names'])
dv = xgb.DMatrix(m(d['test']), feature_names=d['names'])
out = []
for c in d['configs']:
    b = xgb.train(c['params'], dt, c['rounds'])
    trees = [[n['split_indices'][k] if n['left_children'][k] >= 0 else -1 for k in range(len(n['left_children']))]
             for n in json.loads(b.save_raw('json').decode())['learner']['gradient_booster']['model']['trees']]
    out.append({'margins': b.predict(dv, output_margin=True).tolist(), 'trees': trees})
print(json.dumps(out))
`

const NAMES = ['age', 'job', 'balance', 'day']

/** y = x0 + sin(4·x0) − x1 + 0.3·cos(5·x1) + x2·x3 + noise, x ~ U(−1, 1): not monotone in x0, x1 without constraints. */
function data(n: number, seed: number): TrainData {
  const rng = new Rng(seed)
  const columns = NAMES.map(() => Float32Array.from({ length: n }, () => rng.uniform(-1, 1)))
  const labels = Float32Array.from({ length: n }, (_, i) => {
    const [a, b, c, d] = columns.map(col => col[i])
    return a + Math.sin(4 * a) - b + 0.3 * Math.cos(5 * b) + c * d + 0.1 * rng.normal()
  })
  return { columns, labels, featureNames: NAMES }
}

/** Split feature per node (−1 = leaf) of each tree. */
function splitFeatures(b: Booster): number[][] {
  return b.trees.map(t => Array.from(t.left, (l, k) => (l >= 0 ? t.splitIndex[k] : -1)))
}

describe.runIf(peer.run)('constraints against XGBoost 1.7.4 hist', () => {
  it('same trees and margins with monotone and with interaction constraints, depthwise and lossguide', async () => {
    peer.require()
    const train_ = data(2000, 3),
      test = data(500, 4)
    const shared = {
      objective: 'reg:squarederror',
      base_score: 0,
      eta: 0.3,
      max_bin: 64,
      min_child_weight: 1,
      lambda: 1,
    }
    const policies = [{ max_depth: 4 }, { grow_policy: 'lossguide', max_leaves: 10, max_depth: 0 }]
    const constraints = [
      { monotone_constraints: '(1,-1,0,0)' },
      { interaction_constraints: '[[0, 1], [2, 3]]' },
      { monotone_constraints: '(1,0,0,-1)', interaction_constraints: '[[0, 2], [1, 3]]' },
    ]
    const configs = [
      ...policies.flatMap(policy => constraints.map(c => ({ ...shared, ...policy, ...c }))),
      // XGBoost's weight-based gain: its α-free form under monotone constraints, and max_delta_step.
      { ...shared, max_depth: 4, alpha: 2, ...constraints[0] },
      { ...shared, max_depth: 4, max_delta_step: 0.2 },
      { ...shared, max_depth: 4, max_delta_step: 0.2, ...constraints[2] },
    ]
    const rounds = 8
    const dir = tempDir()
    const cols = (d: TrainData) => d.columns.map(c => Array.from(c))
    writeFileSync(
      join(dir, 'data.json'),
      JSON.stringify({
        train: cols(train_),
        y: Array.from(train_.labels),
        test: cols(test),
        names: NAMES,
        configs: configs.map(params => ({ params: { ...params, tree_method: 'hist' }, rounds })),
      }),
    )
    const r = spawnSync(PYTHON, ['-c', XGB, join(dir, 'data.json')], { encoding: 'utf8', timeout: 120_000 })
    expect(r.stderr).toBe('')
    const theirs = JSON.parse(r.stdout) as Array<{ margins: number[]; trees: number[][] }>
    for (const [i, params] of configs.entries()) {
      const ours = await train(train_, parseParams({ ...params, num_round: rounds }))
      const label = JSON.stringify(params)
      expect(splitFeatures(ours), label).toEqual(theirs[i].trees)
      const diff = maxDiff(predictMargins(ours, test.columns), theirs[i].margins)
      console.log(`${label}: max |margin − XGBoost| ${diff.toExponential(2)}`)
      expect(diff, label).toBeLessThanOrEqual(1e-5)
    }
    // The constraints change the trees: without them ours differ from XGBoost's constrained ones.
    for (const i of [0, 1]) {
      const { monotone_constraints: _, interaction_constraints: __, ...free } = configs[i] as Record<string, unknown>
      const ours = await train(train_, parseParams({ ...free, num_round: rounds }))
      expect(splitFeatures(ours)).not.toEqual(theirs[i].trees)
    }
  })
})
