import { spawnSync } from 'node:child_process'
import { describe, expect, test } from 'vitest'
import { predict } from '../../../src/kernels/gbdt/predict.ref.ts'
import { packTrees } from '../../../src/kernels/gbdt/layout.ts'
import type { Tree } from '../../../src/models/gbdt/types.ts'
import { makeTree } from '../../unit/gbdt/tree-fixture.ts'
import { nextNode } from '../../../src/models/gbdt/tree.ts'
import { PYTHON as PY, requireXgboost, runXgboostTests } from '../../support/peers.ts'

// Root: f0 < 0.5 (missing left) → leaf 1 | node 2: f1 < 2 (missing right) → leaf 2 | leaf 3.
const tree = makeTree([
  [1, 2, 0, 0.5, 3, 1],
  [-1, -1, 0, 1, -1, 0],
  [3, 4, 1, 2, 7, 0],
  [-1, -1, 0, 2, -1, 0],
  [-1, -1, 0, 3, -1, 0],
])
const stump = makeTree([[-1, -1, 0, 0.25, -1, 0]])

describe('predict (reference)', () => {
  test('packTrees: offsets, depth, defaultLeft in bit 31', () => {
    const p = packTrees([tree, stump])
    expect(Array.from(p.treeOffsets)).toEqual([0, 5])
    expect(p.maxDepth).toBe(2)
    expect(p.nodes[2] >>> 31).toBe(1)
    expect(p.nodes[5 * 7] | 0).toBe(-1)
  })

  test('value < condition goes left, NaN takes the default, base + trees in order', () => {
    const p = packTrees([tree, stump])
    const x = Float32Array.from([0.4, 9, 0.5, 1.9, 0.5, 2, NaN, 5, 1, NaN])
    const out = new Float32Array(5)
    predict(x, p.nodes, p.catBits, p.treeOffsets, out, { rows: 5, features: 2, trees: 2, maxDepth: p.maxDepth }, 0.5)
    expect(Array.from(out)).toEqual([1.75, 2.75, 3.75, 1.75, 3.75])
  })

  test('no trees: every row gets the base margin; no rows: nothing written', () => {
    const out = new Float32Array(2)
    predict(
      new Float32Array(4),
      new Uint32Array(0),
      new Uint32Array(1),
      new Uint32Array(0),
      out,
      { rows: 2, features: 2, trees: 0, maxDepth: 0 },
      -1.5,
    )
    expect(Array.from(out)).toEqual([-1.5, -1.5])
  })
})

// Trains a small real XGBoost model on data with NaNs; prints its JSON, the rows and XGBoost's margins.
const TRAIN_SCRIPT = `
import json, sys, numpy as np, xgboost as xgb
rng = np.random.default_rng(7)
X = rng.uniform(-1, 1, (400, 4)).astype(np.float32)
X[rng.uniform(size=X.shape) < 0.15] = np.nan
y = ((np.nan_to_num(X[:, 0]) + 0.5 * np.nan_to_num(X[:, 1], nan=0.8) > 0.1) ^ (rng.uniform(size=400) < 0.1)).astype(np.float32)
b = xgb.train({'objective': 'binary:logistic', 'max_depth': 5, 'eta': 0.3, 'tree_method': 'hist', 'nthread': 1}, xgb.DMatrix(X, y, missing=np.nan), 25)
m = b.predict(xgb.DMatrix(X, missing=np.nan), output_margin=True)
print(json.dumps({'model': json.loads(b.save_raw('json').decode()), 'x': [None if np.isnan(v) else float(v) for v in X.ravel()], 'margins': [float(v) for v in m]}))
`

/** What TRAIN_SCRIPT prints (the parts of XGBoost's JSON model read here). */
interface XGBoostDump {
  model: {
    learner: {
      learner_model_param: { base_score: string }
      gradient_booster: { model: { trees: Array<Record<string, number[]>> } }
    }
  }
  x: Array<number | null>
  margins: number[]
}

/** Tree arrays (types.ts) from one tree of XGBoost's JSON model; leaves hold their value in split_conditions. */
function fromXGBoostTree(j: Record<string, number[]>): Tree {
  return makeTree(
    j.left_children.map((l, k) => [
      l,
      j.right_children[k],
      j.split_indices[k],
      j.split_conditions[k],
      -1,
      j.default_left[k],
    ]),
  )
}

describe('predict (reference) against real XGBoost', () => {
  test.skipIf(!runXgboostTests)('margins agree with xgboost predict(output_margin=True) within 1e-5', () => {
    requireXgboost()
    const r = spawnSync(PY, ['-c', TRAIN_SCRIPT], { encoding: 'utf8', timeout: 60_000, maxBuffer: 64 << 20 })
    expect(r.status, r.stderr).toBe(0)
    const { model, x, margins } = JSON.parse(r.stdout) as XGBoostDump
    const trees = model.learner.gradient_booster.model.trees.map(fromXGBoostTree)
    const baseScore = Number(model.learner.learner_model_param.base_score)
    const p = packTrees(trees),
      out = new Float32Array(margins.length)
    const features = Float32Array.from(x, v => (v === null ? NaN : v))
    predict(
      features,
      p.nodes,
      p.catBits,
      p.treeOffsets,
      out,
      { rows: margins.length, features: 4, trees: trees.length, maxDepth: p.maxDepth },
      Math.log(baseScore / (1 - baseScore)),
    )
    const worst = margins.reduce((w, m, i) => Math.max(w, Math.abs(m - out[i])), 0)
    expect(trees.length).toBe(25)
    expect(worst).toBeLessThanOrEqual(1e-5)
  })
})

describe('packTrees', () => {
  test('depth comes from the children (XGBoost stores 2147483647 as the root parent)', () => {
    const t = makeTree([
      [1, 2, 0, 0.5, 3, 1],
      [-1, -1, 0, 1, -1, 0],
      [3, 4, 1, 2, 7, 0],
      [-1, -1, 0, 2, -1, 0],
      [-1, -1, 0, 3, -1, 0],
    ])
    t.parent[0] = 2147483647
    expect(packTrees([t]).maxDepth).toBe(2)
  })
})

describe('categorical nodes', () => {
  // Root: categorical on f0, set {1, 3, 40} goes right (missing left) → leaf 1 | leaf 2.
  const cat = makeTree([
    [1, 2, 0, 0, -1, 1],
    [-1, -1, 0, -1, -1, 0],
    [-1, -1, 0, 1, -1, 0],
  ])
  cat.splitType[0] = 1
  cat.catSize[0] = 3
  cat.categories = Int32Array.from([1, 3, 40])

  test('packed: one 2-word bitset; codes in the set go right, others (negative, fractional part dropped, beyond it) left', () => {
    const p = packTrees([cat])
    expect(p.nodes[6]).toBe(2)
    expect(Array.from(p.catBits.subarray(p.nodes[5], p.nodes[5] + 2))).toEqual([0b1010, 1 << 8])
    const x = Float32Array.from([1, 3, 40, 3.7, 0, 2, -1, 41, 1000, NaN])
    const out = new Float32Array(x.length)
    predict(x, p.nodes, p.catBits, p.treeOffsets, out, { rows: x.length, features: 1, trees: 1, maxDepth: 1 }, 0)
    expect(Array.from(out)).toEqual([1, 1, 1, 1, -1, -1, -1, -1, -1, -1])
    // The CPU walk over raw values agrees.
    const margins = Array.from(x, v => cat.splitCondition[nextNode(cat, 0, v)])
    expect(margins).toEqual(Array.from(out))
  })
})
