/**
 * Multiclass models against XGBoost 1.7.4 (Debian's, /usr/bin/python3): models XGBoost trained
 * (multi:softprob K = 4 with a categorical feature and NaNs; multi:softmax K = 3) load here from
 * JSON and UBJSON with its margins (N, K), its pred_contribs (N, K, F + 1) and its get_score; our
 * hand-built multiclass model and our re-export of XGBoost's load there with our margins and
 * contributions (≤ 1e-5); an XGBoost-trained model continued here (--init-model's path) keeps its
 * trees, adds K a round, and loads there with our margins.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { decodeModel, encodeModel } from '../../../src/models/gbdt/model-file.ts'
import { predict, predictMargins } from '../../../src/models/gbdt/predict.ts'
import { treeShap } from '../../../src/models/gbdt/shap.ts'
import { IMPORTANCE_TYPES, featureImportance } from '../../../src/models/gbdt/importance.ts'
import type { Booster } from '../../../src/models/gbdt/types.ts'
import { fromXGBoostJson, toXGBoostJson } from '../../../src/models/gbdt/xgboost-json.ts'
import { train } from '../../../src/models/gbdt/driver.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { Rng } from '../../../src/util/rng.ts'
import { PYTHON as PY, pythonPeer } from '../../support/peers.ts'
import { shapRows, toColumns } from '../../unit/gbdt/shap-fixture.ts'
import { multiclassBooster } from '../../unit/gbdt/multiclass-fixture.ts'

const peer = pythonPeer(['xgboost'])

/** What the scripts print: model files, rows (null = NaN), XGBoost's outputs flattened, get_score. */
interface XGBoostOut {
  json?: string
  ubj?: string
  x: Array<number | null>
  features: number
  margins: number[]
  predictions: number[]
  contribs: number[]
  shape: number[]
  score: Record<string, Record<string, number>>
  y: number[]
}

const PRINT = `
m = b.predict(d, output_margin=True)
c = b.predict(d, pred_contribs=True)
p = b.predict(d)
score = {t: b.get_score(importance_type=t) for t in ['weight', 'gain', 'cover', 'total_gain', 'total_cover']}
print(json.dumps({'json': b.save_raw('json').decode(), 'ubj': base64.b64encode(b.save_raw('ubj')).decode(),
  'x': [None if np.isnan(v) else float(v) for v in X.ravel()], 'features': X.shape[1],
  'margins': [float(v) for v in m.ravel()], 'predictions': [float(v) for v in p.ravel()],
  'contribs': [float(v) for v in c.ravel()], 'shape': list(c.shape), 'score': score,
  'y': [float(v) for v in d.get_label()]}))
`

// Feature 0: 6 categories; 10 % NaN everywhere; 4 classes from a noisy score.
const SOFTPROB = `
import base64, json, numpy as np, xgboost as xgb
rng = np.random.default_rng(5)
n = 500
X = rng.uniform(-1, 1, (n, 4)).astype(np.float32)
X[:, 0] = rng.integers(0, 6, n)
y = (np.digitize(X[:, 1] + 0.5 * X[:, 2] + 0.3 * (X[:, 0] % 3) + rng.normal(0, 0.3, n), [-0.5, 0.2, 0.8])).astype(np.float32)
X[rng.uniform(size=X.shape) < 0.1] = np.nan
d = xgb.DMatrix(X, y, enable_categorical=True, feature_types=['c', 'q', 'q', 'q'])
b = xgb.train({'objective': 'multi:softprob', 'num_class': 4, 'max_depth': 4, 'eta': 0.3, 'tree_method': 'hist', 'nthread': 1, 'max_cat_to_onehot': 4}, d, 8)
${PRINT}`

const SOFTMAX = `
import base64, json, numpy as np, xgboost as xgb
rng = np.random.default_rng(6)
n = 400
X = rng.normal(size=(n, 3)).astype(np.float32)
y = rng.integers(0, 3, n).astype(np.float32)
X[:, 0] += y
X[rng.uniform(size=X.shape) < 0.1] = np.nan
d = xgb.DMatrix(X, y, missing=np.nan)
b = xgb.train({'objective': 'multi:softmax', 'num_class': 3, 'max_depth': 3, 'eta': 0.5, 'tree_method': 'hist', 'nthread': 1}, d, 6)
${PRINT}`

// Loads the model file argv[1], rows from stdin; prints XGBoost's outputs on them.
const LOAD = `
import base64, json, sys, numpy as np, xgboost as xgb
b = xgb.Booster()
b.load_model(sys.argv[1])
inp = json.load(sys.stdin)
X = np.array([np.nan if v is None else v for v in inp['x']], np.float32).reshape(-1, inp['features'])
cat = 'c' in (b.feature_types or [])
d = xgb.DMatrix(X, missing=np.nan, feature_names=b.feature_names, feature_types=b.feature_types, enable_categorical=cat)
${PRINT}`

function python(script: string, args: string[] = [], input?: string): XGBoostOut {
  const r = spawnSync(PY, ['-c', script, ...args], { encoding: 'utf8', input, timeout: 60_000, maxBuffer: 64 << 20 })
  expect(r.status, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as XGBoostOut
}

function maxAbs(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length)
  let d = 0
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]))
  return d
}

function columnsOf(d: XGBoostOut): Float32Array[] {
  const x = Float32Array.from(d.x, v => (v === null ? NaN : v))
  return toColumns(x, x.length / d.features, d.features)
}

/** XGBoost's outputs for our model `b` written as `format`, on `cols`. */
function xgboostOn(b: Booster | Record<string, unknown>, format: 'json' | 'ubj', cols: Float32Array[]): XGBoostOut {
  const dir = mkdtempSync(join(tmpdir(), 'snaptrain-multi-'))
  try {
    const path = join(dir, `model.${format}`)
    writeFileSync(path, encodeModel('learner' in b ? b : toXGBoostJson(b as Booster), format))
    const x: Array<number | null> = []
    for (let i = 0; i < cols[0].length; i++) for (const c of cols) x.push(Number.isNaN(c[i]) ? null : c[i])
    return python(LOAD, [path], JSON.stringify({ x, features: cols.length }))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe.runIf(peer.run)('multiclass models and XGBoost 1.7.4', () => {
  test('XGBoost-trained multi:softprob (K = 4, categorical, NaNs): JSON and UBJSON load with its margins, SHAP and get_score', () => {
    peer.require()
    const d = python(SOFTPROB)
    const cols = columnsOf(d)
    const rows = cols[0].length
    expect(d.shape).toEqual([rows, 4, 5])
    const fromJson = fromXGBoostJson(decodeModel(d.json!))
    const fromUbj = fromXGBoostJson(decodeModel(Buffer.from(d.ubj!, 'base64')))
    expect(fromJson.numClass).toBe(4)
    expect(fromJson.trees).toHaveLength(32)
    expect(fromJson.trees.some(t => t.splitType.includes(1))).toBe(true)
    for (const b of [fromJson, fromUbj]) {
      expect(maxAbs(predictMargins(b, cols), d.margins)).toBeLessThanOrEqual(1e-5)
      expect(maxAbs(predict(b, cols), d.predictions)).toBeLessThanOrEqual(1e-6)
      expect(maxAbs(treeShap(b, cols), d.contribs)).toBeLessThanOrEqual(1e-5)
    }
    for (const type of IMPORTANCE_TYPES) {
      const ours = featureImportance(fromJson, type),
        theirs = d.score[type]
      expect(Object.keys(ours).sort()).toEqual(Object.keys(theirs).sort())
      for (const f of Object.keys(theirs))
        expect(Math.abs(ours[f] - theirs[f])).toBeLessThanOrEqual(1e-4 * Math.max(1, Math.abs(theirs[f])))
    }
    // Our re-export of XGBoost's model loads back there with the same outputs.
    const back = xgboostOn(fromJson, 'json', cols)
    expect(maxAbs(back.margins, d.margins)).toBeLessThanOrEqual(1e-6)
    expect(maxAbs(back.contribs, d.contribs)).toBeLessThanOrEqual(1e-6)
  })

  test('XGBoost-trained multi:softmax (K = 3): margins, predicted classes, SHAP', () => {
    peer.require()
    const d = python(SOFTMAX)
    const cols = columnsOf(d)
    const b = fromXGBoostJson(decodeModel(d.json!))
    expect(b.params.objective).toBe('multi:softmax')
    expect(b.numClass).toBe(3)
    expect(maxAbs(predictMargins(b, cols), d.margins)).toBeLessThanOrEqual(1e-5)
    expect(Array.from(predict(b, cols))).toEqual(d.predictions)
    expect(maxAbs(treeShap(b, cols), d.contribs)).toBeLessThanOrEqual(1e-5)
  })

  test.each(['json', 'ubj'] as const)(
    'our multiclass model (%s, K = 5, categorical) loads in XGBoost with our margins and SHAP',
    format => {
      peer.require()
      const rng = new Rng(9)
      const b = multiclassBooster(rng, 5, 6, 4, 1, 'multi:softprob', ['a', 'b', 'c', 'd', 'e'])
      const cols = toColumns(shapRows(rng, 300, 4, 1), 300, 4)
      const d = xgboostOn(b, format, cols)
      expect(d.shape).toEqual([300, 5, 5])
      expect(maxAbs(predictMargins(b, cols), d.margins)).toBeLessThanOrEqual(1e-5)
      expect(maxAbs(predict(b, cols), d.predictions)).toBeLessThanOrEqual(1e-6)
      expect(maxAbs(treeShap(b, cols), d.contribs)).toBeLessThanOrEqual(1e-5)
      // XGBoost keeps our label dictionary attribute when it saves the model again.
      expect(fromXGBoostJson(decodeModel(d.json!)).labelValues).toEqual(['a', 'b', 'c', 'd', 'e'])
    },
  )

  test('an XGBoost-trained multi:softmax model continued here 2 rounds: its trees kept, K more a round, XGBoost agrees', async () => {
    peer.require()
    const d = python(SOFTMAX)
    const cols = columnsOf(d)
    const init = fromXGBoostJson(decodeModel(Buffer.from(d.ubj!, 'base64')))
    const more = await train(
      { columns: cols, labels: Float32Array.from(d.y), featureNames: init.featureNames },
      parseParams({ objective: 'multi:softmax', num_class: 3, num_round: 2, max_depth: 3 }),
      undefined,
      { initModel: init },
    )
    expect(more.numClass).toBe(3)
    expect(more.trees).toHaveLength(init.trees.length + 6)
    expect(more.trees.slice(0, init.trees.length)).toEqual(init.trees)
    const there = xgboostOn(more, 'ubj', cols)
    expect(maxAbs(predictMargins(more, cols), there.margins)).toBeLessThanOrEqual(1e-5)
  })
})
