/**
 * TreeSHAP (src/models/gbdt/shap.ts over the tree_shap reference): exact Shapley values of the
 * path-dependent expectation checked by brute force over feature subsets, rows summing to the
 * margins, and — where /usr/bin/python3 has xgboost — equal within 1e-5 to XGBoost 1.7's
 * `predict(pred_contribs=True)` on models XGBoost trained (numeric with NaNs; categorical) and on
 * a model trained here and loaded there.
 */
import { spawnSync } from 'node:child_process'
import { describe, expect, test } from 'vitest'
import { train } from '../../../src/models/gbdt/driver.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { predictMargins } from '../../../src/models/gbdt/predict.ts'
import { topFeatures, treeShap } from '../../../src/models/gbdt/shap.ts'
import { nextNode } from '../../../src/models/gbdt/tree.ts'
import type { Booster, Tree } from '../../../src/models/gbdt/types.ts'
import { fromXGBoostJson, toXGBoostJsonString } from '../../../src/models/gbdt/xgboost-json.ts'
import { DEFAULT_PARAMS } from '../../../src/models/gbdt/params.ts'
import { Rng } from '../../../src/util/rng.ts'
import { PYTHON as PY, requireXgboost, runXgboostTests } from '../../support/peers.ts'
import { makeTree } from '../../unit/gbdt/tree-fixture.ts'
import { chainTree, shapRows, shapTree, toColumns, withCovers } from '../../unit/gbdt/shap-fixture.ts'
import { makeBinary } from '../../unit/gbdt/synthetic.ts'

function booster(trees: Tree[], features: number, baseScore = 0.5): Booster {
  return {
    params: { ...DEFAULT_PARAMS, objective: 'binary:logistic' },
    featureNames: Array.from({ length: features }, (_, f) => `f${f}`),
    featureTypes: new Array<string>(features).fill('float'),
    baseScore,
    trees,
    history: [],
    bestIteration: trees.length - 1,
  }
}

/**
 * E[f(x) | x_S] of one tree as TreeSHAP defines it (Lundberg et al., Algorithm 1): features in S
 * follow the row, the others average their children by cover.
 */
function expectation(t: Tree, n: number, x: ArrayLike<number>, inS: (f: number) => boolean): number {
  if (t.left[n] < 0) return t.splitCondition[n]
  const f = t.splitIndex[n]
  if (inS(f)) return expectation(t, nextNode(t, n, x[f]), x, inS)
  const l = t.left[n],
    r = t.right[n]
  return (expectation(t, l, x, inS) * t.sumHessian[l] + expectation(t, r, x, inS) * t.sumHessian[r]) / t.sumHessian[n]
}

/** Shapley values of `expectation` by enumerating every subset (F small), bias E[f] last. */
function bruteForce(trees: Tree[], x: ArrayLike<number>, F: number, base: number): number[] {
  const phi = new Array<number>(F + 1).fill(0)
  const fact = (k: number): number => (k <= 1 ? 1 : k * fact(k - 1))
  const value = (mask: number): number =>
    trees.reduce((s, t) => s + expectation(t, 0, x, f => ((mask >> f) & 1) === 1), 0)
  for (let f = 0; f < F; f++) {
    for (let mask = 0; mask < 1 << F; mask++) {
      if ((mask >> f) & 1) continue
      let size = 0
      for (let g = 0; g < F; g++) size += (mask >> g) & 1
      const weight = (fact(size) * fact(F - size - 1)) / fact(F)
      phi[f] += weight * (value(mask | (1 << f)) - value(mask))
    }
  }
  phi[F] = base + value(0)
  return phi
}

function maxAbs(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length)
  let d = 0
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]))
  return d
}

/** Largest |Σ_j contribs[i, j] − margins[i]| over the rows. */
function sumError(contribs: Float32Array, margins: Float32Array, width: number): number {
  let worst = 0
  for (let i = 0; i < margins.length; i++) {
    let s = 0
    for (let j = 0; j < width; j++) s += contribs[i * width + j]
    worst = Math.max(worst, Math.abs(s - margins[i]))
  }
  return worst
}

describe('treeShap', () => {
  test('a stump: φ = leaf − cover-weighted mean, bias = base margin + mean', () => {
    // f0 < 0.5 → leaf 1 (value 2, cover 3) | leaf 2 (value −2, cover 1); mean = 1.
    const t = makeTree([
      [1, 2, 0, 0.5, -1, 1],
      [-1, -1, 0, 2, -1, 0],
      [-1, -1, 0, -2, -1, 0],
    ])
    t.sumHessian.set([4, 3, 1])
    const out = treeShap(booster([t], 2), [Float32Array.from([0, 1, NaN]), new Float32Array(3)])
    expect(Array.from(out)).toEqual([1, 0, 1, -3, 0, 1, 1, 0, 1])
  })

  test('equals the brute-force Shapley values on random numeric and categorical trees', () => {
    const rng = new Rng(11)
    const F = 5
    const trees = Array.from({ length: 6 }, () => shapTree(rng, F, 5, 2))
    trees.push(chainTree(rng, F, 9))
    const b = booster(trees, F, 0.3)
    const rows = 40
    const x = shapRows(rng, rows, F, 2)
    const out = treeShap(b, toColumns(x, rows, F))
    const base = Math.log(0.3 / 0.7)
    let worst = 0
    for (let i = 0; i < rows; i++) {
      const want = bruteForce(trees, x.subarray(i * F, (i + 1) * F), F, base)
      worst = Math.max(worst, maxAbs(out.subarray(i * (F + 1), (i + 1) * (F + 1)), want))
    }
    expect(worst).toBeLessThan(1e-5)
  })

  test('rows sum to predictMargins; nTrees limits the trees; no rows, no trees', () => {
    const rng = new Rng(12)
    const F = 7
    const b = booster(
      Array.from({ length: 30 }, () => shapTree(rng, F, 6, 3)),
      F,
    )
    const cols = toColumns(shapRows(rng, 300, F, 3), 300, F)
    expect(sumError(treeShap(b, cols), predictMargins(b, cols), F + 1)).toBeLessThan(1e-5)
    expect(sumError(treeShap(b, cols, 10), predictMargins(b, cols, 10), F + 1)).toBeLessThan(1e-5)
    expect(treeShap(b, toColumns(new Float32Array(0), 0, F))).toHaveLength(0)
    expect(Array.from(treeShap(booster([], 2, 0.5), [Float32Array.of(1), Float32Array.of(2)]))).toEqual([0, 0, 0])
  })

  test('depth 16 with repeated features along the path sums to the margin', () => {
    const rng = new Rng(13)
    const b = booster([chainTree(rng, 3, 16), withCovers(makeTree([[-1, -1, 0, 0.25, -1, 0]]), rng)], 3)
    const cols = toColumns(shapRows(rng, 200, 3), 200, 3)
    expect(sumError(treeShap(b, cols), predictMargins(b, cols), 4)).toBeLessThan(1e-5)
  })

  test('topFeatures: mean |φ| without the bias, largest first, at most k', () => {
    const contribs = Float32Array.from([1, -4, 0, 9, -3, 2, 0, 9])
    expect(topFeatures(contribs, ['a', 'b', 'c'], 2)).toEqual([
      { feature: 'b', mean_abs_shap: 3 },
      { feature: 'a', mean_abs_shap: 2 },
    ])
  })
})

/** What the XGBoost scripts print: the model file's text, the rows (null = NaN), contributions and margins. */
interface XGBoostShap {
  model: string
  x: Array<number | null>
  contribs: number[]
  margins: number[]
  features: number
}

/** Rows X, labels y (NaNs in X); trains `rounds` on DMatrix `d`; prints XGBoostShap. */
const PRINT = `
c = b.predict(d, pred_contribs=True)
m = b.predict(d, output_margin=True)
print(json.dumps({'model': b.save_raw('json').decode(), 'x': [None if np.isnan(v) else float(v) for v in X.ravel()],
  'contribs': [float(v) for v in c.ravel()], 'margins': [float(v) for v in m], 'features': X.shape[1]}))
`

const NUMERIC_SCRIPT = `
import json, numpy as np, xgboost as xgb
rng = np.random.default_rng(7)
X = rng.uniform(-1, 1, (400, 4)).astype(np.float32)
X[rng.uniform(size=X.shape) < 0.15] = np.nan
y = ((np.nan_to_num(X[:, 0]) + 0.5 * np.nan_to_num(X[:, 1], nan=0.8) > 0.1) ^ (rng.uniform(size=400) < 0.1)).astype(np.float32)
d = xgb.DMatrix(X, y, missing=np.nan)
b = xgb.train({'objective': 'binary:logistic', 'max_depth': 6, 'eta': 0.3, 'tree_method': 'hist', 'nthread': 1}, d, 25)
${PRINT}`

// Feature 0: 12 categories (partition splits), feature 2: 3 categories (one-hot splits).
const CATEGORICAL_SCRIPT = `
import json, numpy as np, xgboost as xgb
rng = np.random.default_rng(3)
n = 600
X = np.empty((n, 4), np.float32)
X[:, 0] = rng.integers(0, 12, n)
X[:, 1] = rng.uniform(-1, 1, n)
X[:, 2] = rng.integers(0, 3, n)
X[:, 3] = rng.uniform(-1, 1, n)
X[rng.uniform(size=X.shape) < 0.1] = np.nan
eff = np.array([0.9, -0.4, 0.1, 1.2, -1.0, 0.3, 0.0, 0.7, -0.8, 0.5, -0.2, 1.0])
z = eff[np.nan_to_num(X[:, 0], nan=0).astype(int)] + 0.8 * np.nan_to_num(X[:, 1]) + 0.6 * (X[:, 2] == 1)
y = (z + rng.normal(0, 0.4, n) > 0.3).astype(np.float32)
d = xgb.DMatrix(X, y, enable_categorical=True, feature_types=['c', 'q', 'c', 'q'])
b = xgb.train({'objective': 'binary:logistic', 'max_depth': 5, 'eta': 0.3, 'tree_method': 'hist', 'nthread': 1, 'max_cat_to_onehot': 4}, d, 20)
${PRINT}`

// Loads our model (argv[1]) and rows from stdin; prints XGBoost's contributions and margins.
const LOAD_SCRIPT = `
import json, sys, numpy as np, xgboost as xgb
b = xgb.Booster()
b.load_model(sys.argv[1])
inp = json.load(sys.stdin)
X = np.array([np.nan if v is None else v for v in inp['x']], np.float32).reshape(-1, inp['features'])
d = xgb.DMatrix(X, missing=np.nan, feature_names=b.feature_names)
${PRINT}`

function python(script: string, args: string[] = [], input?: string): XGBoostShap {
  const r = spawnSync(PY, ['-c', script, ...args], {
    encoding: 'utf8',
    input,
    timeout: 60_000,
    maxBuffer: 64 << 20,
  })
  expect(r.status, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as XGBoostShap
}

/** The rows as F columns. */
function columnsOf(d: XGBoostShap): Float32Array[] {
  const x = Float32Array.from(d.x, v => (v === null ? NaN : v))
  return toColumns(x, x.length / d.features, d.features)
}

describe.skipIf(!runXgboostTests)('treeShap against XGBoost 1.7 pred_contribs', () => {
  test('a numeric model XGBoost trained on rows with NaNs', () => {
    requireXgboost()
    const d = python(NUMERIC_SCRIPT)
    const b = fromXGBoostJson(d.model)
    const cols = columnsOf(d)
    const out = treeShap(b, cols)
    expect(b.trees).toHaveLength(25)
    expect(maxAbs(out, d.contribs)).toBeLessThan(1e-5)
    expect(sumError(out, Float32Array.from(d.margins), d.features + 1)).toBeLessThan(1e-5)
  })

  test('a categorical model (partition and one-hot splits, NaN codes)', () => {
    requireXgboost()
    const d = python(CATEGORICAL_SCRIPT)
    const b = fromXGBoostJson(d.model)
    expect(b.trees.some(t => t.splitType.includes(1))).toBe(true)
    const cols = columnsOf(d)
    const out = treeShap(b, cols)
    expect(maxAbs(predictMargins(b, cols), d.margins)).toBeLessThan(1e-5)
    expect(maxAbs(out, d.contribs)).toBeLessThan(1e-5)
    expect(sumError(out, Float32Array.from(d.margins), d.features + 1)).toBeLessThan(1e-5)
  })

  test('our trained model, loaded in XGBoost, gets our contributions', async () => {
    requireXgboost()
    const data = makeBinary(800, 5, 5, 0.15)
    const b = await train(data, parseParams({ max_depth: 5, num_round: 12 }))
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs')
    const { join } = await import('node:path')
    const { tmpdir } = await import('node:os')
    const dir = mkdtempSync(join(tmpdir(), 'snaptrain-shap-'))
    try {
      const path = join(dir, 'model.json')
      writeFileSync(path, toXGBoostJsonString(b))
      const rows = 300
      const cols = data.columns.map(c => c.slice(0, rows))
      const x: Array<number | null> = []
      for (let i = 0; i < rows; i++) for (const c of cols) x.push(Number.isNaN(c[i]) ? null : c[i])
      const d = python(LOAD_SCRIPT, [path], JSON.stringify({ x, features: cols.length }))
      const out = treeShap(b, cols)
      expect(maxAbs(out, d.contribs)).toBeLessThan(1e-5)
      expect(sumError(out, predictMargins(b, cols), cols.length + 1)).toBeLessThan(1e-5)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
