/**
 * `snaptrain predict` in-process (main with a captured io; the page in one headless Chromium
 * shared by the file): one margin,prediction line per table row in table
 * order, margins equal to the CPU predictMargins of the same model (GPU kernel in the page), and
 * where /usr/bin/python3 has xgboost, XGBoost agrees on our model's margins and we agree on a
 * model XGBoost trained. Bad models exit non-zero naming the file or feature.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../../../src/serve/page-server.ts'
import { serveDirectory, type ServedDirectory } from '../../../src/serve/server.ts'
import { openSnapshot } from '../../../src/table/index.ts'
import { readTable } from '../../../src/eval/dataset.ts'
import { modelFeatures } from '../../../src/models/gbdt/predict-run.ts'
import { categoriesOf } from '../../../src/models/gbdt/model-attributes.ts'
import { predictMargins } from '../../../src/models/gbdt/predict.ts'
import { runTraining } from '../../../src/run/pipeline.ts'
import { fromXGBoostJson } from '../../../src/models/gbdt/xgboost-json.ts'
import { predictSummary, predsCsv } from '../../../src/cli/predict.ts'
import { treeShap } from '../../../src/models/gbdt/shap.ts'
import { PYTHON as PY, requireXgboost, runXgboostTests } from '../../support/peers.ts'
import { runMain, shareAppPage } from '../../support/cli.ts'

const TABLE = 'public/tables/marketing'
const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-predict-'))
let server: ServedDirectory
let modelPath: string
let features: Float32Array[]
let names: string[]
let cpuMargins: Float32Array
let booster: ReturnType<typeof fromXGBoostJson>

beforeAll(async () => {
  server = await serveDirectory(join(PROJECT_ROOT, 'public', 'tables'))
  const url = `${server.url}marketing/`
  const r = await runTraining({
    table: url,
    label: 'y',
    validFraction: 0.2,
    params: { num_round: 8, max_depth: 4 },
    backend: 'cpu',
    workers: 0,
  })
  modelPath = join(tmp, 'model.json')
  writeFileSync(modelPath, r.model)
  const json = JSON.parse(r.model)
  booster = fromXGBoostJson(json)
  const snapshot = await openSnapshot(url)
  const t = await readTable(
    snapshot,
    modelFeatures(booster, snapshot.schema, categoriesOf(json), url),
    categoriesOf(json),
    { workers: 0 },
  )
  features = t.columns
  names = booster.featureNames
  cpuMargins = predictMargins(booster, features)
}, 60_000)
afterAll(async () => {
  await server?.close()
  rmSync(tmp, { recursive: true, force: true })
})

shareAppPage()

async function cli(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const r = await runMain(args)
  return { code: r.code, out: r.stdout, err: r.stderr }
}

/** The model file `text` cut to its first `k` trees (dictionaries and parameters kept). */
function firstTrees(text: string, k: number): string {
  const json = JSON.parse(text)
  const model = json.learner.gradient_booster.model
  model.trees = model.trees.slice(0, k)
  model.tree_info = model.tree_info.slice(0, k)
  model.iteration_indptr = model.iteration_indptr.slice(0, k + 1)
  model.gbtree_model_param.num_trees = String(k)
  return JSON.stringify(json)
}

function readPreds(path: string): { margin: number[]; prediction: number[] } {
  const [header, ...lines] = readFileSync(path, 'utf8').trim().split('\n')
  expect(header).toBe('margin,prediction')
  const rows = lines.map(l => l.split(',').map(Number))
  return { margin: rows.map(r => r[0]), prediction: rows.map(r => r[1]) }
}

function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let d = 0
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]))
  return d
}

describe('snaptrain predict (GPU kernel in the page)', () => {
  it('one row per table row; margins equal the CPU predictMargins within 1e-5', async () => {
    const out = join(tmp, 'preds.csv')
    const r = await cli(['predict', '--model', modelPath, '--table', TABLE, '--out', out, '--json'])
    expect(r.code, r.err).toBe(0)
    expect(JSON.parse(r.out.trim().split('\n').pop()!)).toMatchObject({ rows: 45_000, out })
    const p = readPreds(out)
    expect(p.margin).toHaveLength(45_000)
    expect(maxDiff(p.margin, cpuMargins)).toBeLessThan(1e-5)
    expect(
      maxDiff(
        p.prediction,
        Array.from(cpuMargins, m => 1 / (1 + Math.exp(-m))),
      ),
    ).toBeLessThan(1e-6)
  }, 90_000)

  it('bad model files and missing features exit non-zero naming them', async () => {
    const missing = await cli(['predict', '--model', join(tmp, 'nope.json'), '--table', TABLE])
    expect(missing.code).toBe(2)
    expect(missing.err).toMatch(/nope\.json: no such file/)
    const bad = join(tmp, 'bad.json')
    writeFileSync(bad, readFileSync(modelPath, 'utf8').replace('"feature_names":["age"', '"feature_names":["agex"'))
    const r = await cli(['predict', '--model', bad, '--table', TABLE, '--out', join(tmp, 'x.csv')])
    expect(r.code).toBe(1)
    expect(r.err).toMatch(/model feature agex: no such column/)
  }, 90_000)

  it('--contribs: shap_<feature> columns then shap_bias, the CPU treeShap within 1e-5, rows summing to the margin', async () => {
    // The model's first two trees: the kernel runs on the software adapter here, 45,000 rows.
    const small = join(tmp, 'small.json'),
      out = join(tmp, 'contribs.csv')
    writeFileSync(small, firstTrees(readFileSync(modelPath, 'utf8'), 2))
    const r = await cli(['predict', '--model', small, '--table', TABLE, '--out', out, '--contribs', '--json'])
    expect(r.code, r.err).toBe(0)
    const [header, ...lines] = readFileSync(out, 'utf8').trim().split('\n')
    expect(header).toBe(['margin', 'prediction', ...names.map(n => `shap_${n}`), 'shap_bias'].join(','))
    expect(lines).toHaveLength(45_000)
    const rows = lines.map(l => l.split(',').map(Number))
    const twoTrees = { ...booster, trees: booster.trees.slice(0, 2) }
    expect(
      maxDiff(
        rows.flatMap(v => v.slice(2)),
        treeShap(twoTrees, features),
      ),
    ).toBeLessThan(1e-5)
    const sums = rows.map(v => v.slice(2).reduce((a, b) => a + b, 0))
    expect(maxDiff(sums, predictMargins(twoTrees, features))).toBeLessThan(1e-5)
    const top = JSON.parse(r.out.trim().split('\n').pop()!).top_features as Array<{
      feature: string
      mean_abs_shap: number
    }>
    expect(top.length).toBe(Math.min(10, names.length))
    expect(
      top.every((t, k) => names.includes(t.feature) && (k === 0 || t.mean_abs_shap <= top[k - 1].mean_abs_shap)),
    ).toBe(true)
  }, 90_000)

  it('--contribs with a model feature the table lacks names it', async () => {
    const bad = join(tmp, 'bad-contribs.json')
    writeFileSync(bad, readFileSync(modelPath, 'utf8').replace('"feature_names":["age"', '"feature_names":["agey"'))
    const r = await cli(['predict', '--model', bad, '--table', TABLE, '--out', join(tmp, 'y.csv'), '--contribs'])
    expect(r.code).toBe(1)
    expect(r.err).toMatch(/model feature agey: no such column/)
  }, 90_000)

  it('predsCsv with contributions: XGBoost column order; predictSummary adds top_features only with them', () => {
    const m = Float32Array.of(0.5, -1)
    const csv = predsCsv(m, m, { featureNames: ['a', 'b'], values: Float32Array.of(0.25, 0.125, 0.125, -0.5, 0, -0.5) })
    expect(csv.trim().split('\n')).toEqual([
      'margin,prediction,shap_a,shap_b,shap_bias',
      '0.5,0.5,0.25,0.125,0.125',
      '-1,-1,-0.5,0,-0.5',
    ])
    const base = { margins: m, predictions: m, rows: 2, version: 0, adapter: 'cpu' }
    expect(predictSummary(base, 'p.csv')).toEqual({ rows: 2, out: 'p.csv', adapter: 'cpu' })
    const top = [{ feature: 'a', mean_abs_shap: 0.375 }]
    expect(predictSummary({ ...base, topFeatures: top }, 'p.csv')).toMatchObject({ top_features: top })
  })

  it('predsCsv writes f32 values that read back exactly', () => {
    const m = new Float32Array([-1.2345678, 0, 3.5])
    const lines = predsCsv(m, m).trim().split('\n').slice(1)
    expect(lines.map(l => Math.fround(Number(l.split(',')[0])))).toEqual(Array.from(m))
  })
})

describe.skipIf(!runXgboostTests)('XGBoost interop (/usr/bin/python3 with xgboost)', () => {
  beforeAll(requireXgboost)
  it('XGBoost loads our marketing model.json and agrees on margins within 1e-5', () => {
    const csv = join(tmp, 'features.csv')
    const lines = [[...names, 'margin'].join(',')]
    for (let i = 0; i < cpuMargins.length; i++)
      lines.push([...features.map(c => (Number.isNaN(c[i]) ? '' : String(c[i]))), String(cpuMargins[i])].join(','))
    writeFileSync(csv, lines.join('\n') + '\n')
    const r = spawnSync(PY, [join(PROJECT_ROOT, 'bench', 'xgboost_interop.py'), modelPath, csv], {
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(r.status, r.stderr).toBe(0)
    const res = JSON.parse(r.stdout.trim().split('\n').pop()!)
    expect(res.rows).toBe(45_000)
    expect(res.max_abs_margin_diff).toBeLessThan(1e-5)
  }, 90_000)

  it('we predict a model XGBoost trained (numeric features) as XGBoost does', async () => {
    const numeric = ['age', 'balance', 'duration', 'pdays']
    const cols = numeric.map(n => features[names.indexOf(n)])
    const csv = join(tmp, 'xgb-train.csv'),
      xgbModel = join(tmp, 'xgb-model.json'),
      xgbMargins = join(tmp, 'xgb-margins.txt')
    const lines = [numeric.join(',')]
    for (let i = 0; i < cpuMargins.length; i++)
      lines.push(cols.map(c => (Number.isNaN(c[i]) ? '' : String(c[i]))).join(','))
    writeFileSync(csv, lines.join('\n') + '\n')
    const script = `
import numpy as np, xgboost as xgb, sys
x = np.genfromtxt(sys.argv[1], delimiter=',', skip_header=1, dtype=np.float32, missing_values='', filling_values=np.nan)
y = (x[:, 2] > 300).astype(np.float32)
d = xgb.DMatrix(x, label=y, missing=np.nan, feature_names=${JSON.stringify(numeric)})
b = xgb.train({'objective': 'binary:logistic', 'max_depth': 3, 'tree_method': 'hist'}, d, 4)
b.save_model(sys.argv[2])
np.savetxt(sys.argv[3], b.predict(d, output_margin=True), fmt='%.9g')
`
    const r = spawnSync(PY, ['-c', script, csv, xgbModel, xgbMargins], { encoding: 'utf8', timeout: 60_000 })
    expect(r.status, r.stderr).toBe(0)
    const out = join(tmp, 'xgb-preds.csv')
    const p = await cli(['predict', '--model', xgbModel, '--table', TABLE, '--out', out])
    expect(p.code, p.err).toBe(0)
    const theirs = readFileSync(xgbMargins, 'utf8').trim().split('\n').map(Number)
    expect(maxDiff(readPreds(out).margin, theirs)).toBeLessThan(1e-5)
  }, 120_000)
})
