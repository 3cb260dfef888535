import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { train } from '../../../src/models/gbdt/driver.ts'
import {
  IMPORTANCE_TYPES,
  allImportances,
  featureImportance,
  type ImportanceType,
} from '../../../src/models/gbdt/importance.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import type { Booster, Tree } from '../../../src/models/gbdt/types.ts'
import { decodeModel } from '../../../src/models/gbdt/model-file.ts'
import { fromXGBoostJson, toXGBoostJsonString } from '../../../src/models/gbdt/xgboost-json.ts'
import { PYTHON as PY, requireXgboost, runXgboostTests } from '../../support/peers.ts'
import { makeBinary } from '../../unit/gbdt/synthetic.ts'
import { makeTree } from '../../unit/gbdt/tree-fixture.ts'

/** A tree from nodes [left, right, feature, lossChange, sumHessian]. */
function statTree(nodes: Array<[number, number, number, number, number]>): Tree {
  const t = makeTree(nodes.map(([l, r, f]) => [l, r, f, 0, -1, 0]))
  nodes.forEach(([, , , g, h], k) => {
    t.lossChange[k] = g
    t.sumHessian[k] = h
  })
  return t
}

function booster(trees: Tree[], names: string[]): Booster {
  return {
    params: parseParams({}),
    featureNames: names,
    featureTypes: names.map(() => 'float'),
    baseScore: 0.5,
    trees,
    history: [],
    bestIteration: trees.length - 1,
  }
}

describe('featureImportance on hand-made trees', () => {
  // Tree 0: root on b (gain 8, cover 10) → node 1 on a (gain 2, cover 6), leaf 2; node 1 → leaves 3, 4.
  // Tree 1: root on b (gain 4, cover 10) → leaves. Leaves carry stats that must not count.
  const b = booster(
    [
      statTree([
        [1, 2, 1, 8, 10],
        [3, 4, 0, 2, 6],
        [-1, -1, 0, 99, 4],
        [-1, -1, 2, 99, 3],
        [-1, -1, 0, 99, 3],
      ]),
      statTree([
        [1, 2, 1, 4, 10],
        [-1, -1, 0, 99, 5],
        [-1, -1, 0, 99, 5],
      ]),
    ],
    ['a', 'b', 'never'],
  )

  test.each([
    ['weight', { a: 1, b: 2 }],
    ['gain', { a: 2, b: 6 }],
    ['cover', { a: 6, b: 10 }],
    ['total_gain', { a: 2, b: 12 }],
    ['total_cover', { a: 6, b: 20 }],
  ] as Array<[ImportanceType, Record<string, number>]>)('%s', (type, want) => {
    expect(featureImportance(b, type)).toEqual(want)
  })

  test('a stump model has no splits: every type is empty; allImportances holds every type', () => {
    const stump = booster([statTree([[-1, -1, 0, 0, 7]])], ['a'])
    for (const t of IMPORTANCE_TYPES) expect(featureImportance(stump, t)).toEqual({})
    expect(Object.keys(allImportances(b))).toEqual([...IMPORTANCE_TYPES])
    expect(allImportances(b).total_gain).toEqual({ a: 2, b: 12 })
  })

  test('an unknown type is refused by name', () => {
    expect(() => featureImportance(b, 'shap' as ImportanceType)).toThrow(/importance type: shap is not one of weight/)
  })
})

// Loads our model (argv[1]) and prints its get_score; trains a numeric and a categorical XGBoost
// model and prints each with its get_score (the categorical one as text: it holds NaN tokens).
const SCORE_SCRIPT = `
import json, sys, numpy as np, xgboost as xgb
TYPES = ${JSON.stringify(IMPORTANCE_TYPES)}
ours = xgb.Booster()
ours.load_model(sys.argv[1])
rng = np.random.default_rng(11)
X = rng.normal(size=(1500, 6)).astype(np.float32)
X[rng.uniform(size=1500) < 0.1, 3] = np.nan
y = (X[:, 0] + 0.5 * X[:, 1] ** 2 - X[:, 2] + 0.5 * rng.normal(size=1500) > 0.3).astype(np.float32)
d = xgb.DMatrix(X, y, missing=np.nan, feature_names=['a', 'b', 'c', 'd', 'e', 'f'])
m = xgb.train({'objective': 'binary:logistic', 'max_depth': 5, 'eta': 0.3, 'tree_method': 'hist', 'nthread': 1}, d, 30)
C = rng.integers(0, 8, size=1500).astype(np.float32)
Xc = np.stack([C, X[:, 0], X[:, 1]], axis=1)
yc = ((C % 3 == 0) ^ (X[:, 0] > 0.4)).astype(np.float32)
dc = xgb.DMatrix(Xc, yc, feature_names=['k', 'a', 'b'], feature_types=['c', 'q', 'q'], enable_categorical=True)
mc = xgb.train({'objective': 'binary:logistic', 'max_depth': 4, 'tree_method': 'hist', 'max_cat_to_onehot': 1, 'nthread': 1}, dc, 10)
print(json.dumps({
  'ours': {t: ours.get_score(importance_type=t) for t in TYPES},
  'model': json.loads(m.save_raw('json').decode()),
  'theirs': {t: m.get_score(importance_type=t) for t in TYPES},
  'catModel': mc.save_raw('json').decode(),
  'catTheirs': {t: mc.get_score(importance_type=t) for t in TYPES},
}))
`

type Scores = Record<ImportanceType, Record<string, number>>

/**
 * Checks our scores against XGBoost's: the same features, each score within XGBoost's rounding.
 * XGBoost sums the f32 statistics in f32, one split after another: recursive summation of n
 * positive terms is off by at most (n − 1)·2⁻²⁴ relative, plus 2⁻²⁴ for the division by the
 * count; so each feature gets (splits + 1)·2⁻²⁴ (splits = its weight). Measured: ≤ 3.4e-7.
 */
function compare(b: Booster, theirs: Scores): void {
  const weight = featureImportance(b, 'weight')
  for (const type of IMPORTANCE_TYPES) {
    const ours = featureImportance(b, type)
    expect(Object.keys(ours).sort(), type).toEqual(Object.keys(theirs[type]).sort())
    for (const [name, x] of Object.entries(ours)) {
      const rel = Math.abs(x - theirs[type][name]) / Math.abs(x)
      expect(rel, `${type} of ${name}: ours ${x}, XGBoost ${theirs[type][name]}`).toBeLessThanOrEqual(
        (weight[name] + 1) * 2 ** -24,
      )
    }
  }
}

describe('feature importance against real XGBoost get_score', () => {
  test.skipIf(!runXgboostTests)(
    'equal for all five types: our model exported, XGBoost models (numeric, categorical) imported',
    async () => {
      requireXgboost()
      const d = makeBinary(1200, 5, 3, 0.1)
      const ours = await train(
        { columns: d.columns, labels: d.labels, featureNames: ['x0', 'x1', 'x2', 'x3', 'x4'] },
        parseParams({ max_depth: 4, num_round: 15, eta: 0.3 }),
      )
      const dir = mkdtempSync(join(tmpdir(), 'snaptrain-importance-'))
      writeFileSync(join(dir, 'model.json'), toXGBoostJsonString(ours))
      const r = spawnSync(PY, ['-c', SCORE_SCRIPT, join(dir, 'model.json')], {
        encoding: 'utf8',
        timeout: 60_000,
        maxBuffer: 64 << 20,
      })
      expect(r.status, r.stderr).toBe(0)
      const out = JSON.parse(r.stdout) as {
        ours: Scores
        model: unknown
        theirs: Scores
        catModel: string
        catTheirs: Scores
      }
      expect(Object.keys(out.ours.weight).length).toBeGreaterThan(2)
      compare(ours, out.ours)
      compare(fromXGBoostJson(out.model), out.theirs)
      expect(Object.keys(out.theirs.gain)).toContain('a')
      const cat = fromXGBoostJson(decodeModel(out.catModel))
      expect(cat.trees.some(t => t.splitType.includes(1))).toBe(true)
      compare(cat, out.catTheirs)
      expect(Object.keys(out.catTheirs.weight)).toContain('k')
    },
  )
})
