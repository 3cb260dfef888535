/**
 * The generated GBDT jobs: both compile (`python3 -m py_compile`), and the Spark job's encoding
 * step — `encode_frame`, run by mapInPandas on Spark's pandas batches, importable without pyspark
 * (not installable here) — gives the features, label and validation rows that the Dask job's path
 * (read_shard + gbdt_matrix + label + validation_mask) gives on the same rows, handed over as
 * Spark hands them (nullable integers as float NaN, strings as objects).
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { writeMarketing } from '../../../tools/datagen/marketing.ts'
import { gbdtJobs, xgboostParams } from '../../../src/continue/gbdt-jobs.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { CONTINUE_RUNTIME_PY } from '../../../src/continue/runtime-py.ts'
import type { ContinueSpec } from '../../../src/continue/spec.ts'
import { REPO, runProcess } from '../../support/cli.ts'
import { PYTHON, pythonPeer } from '../../support/peers.ts'

const peer = pythonPeer(['numpy', 'pandas'])
const xgb = pythonPeer(['numpy', 'xgboost'])
const ENV = { SNAPTRAIN: `${process.execPath} ${join(REPO, 'bin/snaptrain.js')}`, SNAPTRAIN_BUILD_CHECK: '0' }

const COMPARE_PY = `
import json, sys
sys.path.insert(0, sys.argv[1])
import numpy as np, pandas as pd, snaptrain_continue as sc
assert "pyspark" not in sys.modules
import xgboost_spark
assert "pyspark" not in sys.modules
spec = sc.load_spec(sys.argv[1])
cols = sc.read_shard(spec)
spark_types = {"integer": "int", "long": "bigint"}
frame = {}
for name, c in cols.items():
    if isinstance(c, np.ma.MaskedArray):
        frame[name] = c.astype(np.float64).filled(np.nan) if c.mask.any() else c.data
    else:
        frame[name] = c
pdf = pd.DataFrame(frame)
types = {n: spark_types.get(t, t) for n, t in cols.types.items()}
out = xgboost_spark.encode_frame(pdf, spec, types)
x = np.stack(out["features"].to_numpy())
want = sc.gbdt_matrix(spec, cols)
print(json.dumps({
  "rows": len(pdf),
  "features_equal": bool(np.array_equal(x, want, equal_nan=True)),
  "nan_codes": int(np.isnan(want).sum()),
  "label_equal": bool(np.array_equal(out["label"].to_numpy(), sc.label(spec, cols).astype(np.float64))),
  "valid_equal": bool(np.array_equal(out["is_valid"].to_numpy(), sc.validation_mask(spec, cols))),
  "valid": int(out["is_valid"].sum()),
}))
`

describe.runIf(peer.run)('generated GBDT jobs', () => {
  const root = mkdtempSync(join(tmpdir(), 'snaptrain-spark-job-'))
  const table = join(root, 'marketing')
  beforeAll(() => writeMarketing({ dir: table, rows: 800, seed: 11 }), 60_000)

  test('compile, and the Spark encoding equals the Dask path', async () => {
    peer.require()
    const features: ContinueSpec['features'] = [
      { name: 'age', delta_type: 'integer', kind: 'numeric' },
      // A dictionary without some of the table's values: those rows must be missing.
      { name: 'job', delta_type: 'string', kind: 'categorical', dictionary: ['admin.', 'management', 'technician'] },
      { name: 'contact', delta_type: 'string', kind: 'categorical', dictionary: ['cellular', 'telephone'] },
      { name: 'pdays', delta_type: 'integer', kind: 'numeric' },
      { name: 'euribor3m', delta_type: 'double', kind: 'numeric' },
    ]
    const key = ['age', 'contact', 'euribor3m', 'job', 'pdays', 'y']
    const spec: ContinueSpec = {
      kind: 'snaptrain-continue',
      format: 1,
      snaptrain_version: 'test',
      family: 'gbdt',
      source: { kind: 'run' },
      table: { url: 'file://' + table + '/', path: table, version: 0, digest: 'x' },
      label: 'y',
      filter: null,
      features,
      validation: { kind: 'fraction', fraction: 0.25, seed: 9, key, rows: 0 },
      params: { objective: 'binary:logistic', eta: 0.3, max_depth: 3, num_round: 5, categorical: [], seed: 9 },
      metric: 'auc',
      seed: 9,
      done: { rounds: 5 },
      files: { model: 'model.json', jobs: ['xgboost_dask.py', 'xgboost_spark.py'] },
      scan: { args: ['--table', table, '--version', '0', '--columns', ['y', ...key].join(','), '--format', 'npy'] },
    }
    const bundle = join(root, 'bundle')
    const { mkdirSync } = await import('node:fs')
    mkdirSync(bundle)
    writeFileSync(join(bundle, 'continue.json'), JSON.stringify(spec))
    writeFileSync(join(bundle, 'snaptrain_continue.py'), CONTINUE_RUNTIME_PY)
    const jobs = gbdtJobs(spec)
    expect(jobs.map(j => j.name)).toEqual(['xgboost_dask.py', 'xgboost_spark.py'])
    for (const j of jobs) writeFileSync(join(bundle, j.name), j.data)
    const spark = jobs[1]!.data
    expect(spark).toMatch(/option\("versionAsOf", VERSION\)/)
    expect(spark).toMatch(/xgb_model=booster/)
    expect(spark).toMatch(/n_estimators=args\.rounds/)
    expect(jobs[0]!.data).toMatch(/xgb_model=booster/)
    const env = { ...process.env, ...ENV }
    const compile = await runProcess(
      PYTHON,
      ['-m', 'py_compile', ...jobs.map(j => join(bundle, j.name)), join(bundle, 'snaptrain_continue.py')],
      { cwd: root, env, killMs: 30_000 },
    )
    expect(compile.code, compile.stderr).toBe(0)
    const py = await runProcess(PYTHON, ['-c', COMPARE_PY, bundle], { cwd: root, env, killMs: 60_000 })
    expect(py.code, py.stderr).toBe(0)
    const r = JSON.parse(py.stdout.trim().split('\n').pop()!)
    console.log(`spark encode_frame vs dask path: ${JSON.stringify(r)}`)
    expect(r.rows).toBe(800)
    expect(r.nan_codes).toBeGreaterThan(0)
    expect(r.features_equal).toBe(true)
    expect(r.label_equal).toBe(true)
    expect(r.valid_equal).toBe(true)
    expect(r.valid).toBeGreaterThan(100)
  })
})

/** Trains 2 rounds in XGBoost with the job's PARAMS on 5 random features; prints the constraints it kept. */
const CONSTRAINED_PY = `
import json, sys
import numpy as np, xgboost as xgb
params = json.loads(sys.argv[1])
rng = np.random.default_rng(1)
x = rng.normal(size=(400, 5)).astype(np.float32)
y = (x[:, 0] - x[:, 2] + rng.normal(size=400) > 0).astype(np.float32)
bst = xgb.train(params, xgb.DMatrix(x, label=y), 2)
conf = json.loads(bst.save_config())["learner"]["gradient_booster"]["updater"]
hist = conf["grow_quantile_histmaker"]["train_param"]
print(json.dumps({"monotone": hist["monotone_constraints"], "interaction": hist["interaction_constraints"]}))
`

describe.runIf(xgb.run)('generated GBDT job parameters', () => {
  test("constraints in XGBoost's forms over the model's features; none given, none written (1.7.4 refuses [])", async () => {
    xgb.require()
    const features: ContinueSpec['features'] = ['a', 'b', 'c', 'd', 'e'].map(name => ({
      name,
      delta_type: 'double',
      kind: 'numeric' as const,
    }))
    const spec = (params: Record<string, unknown>) =>
      ({ features, seed: 3, params: { ...parseParams(params) } }) as unknown as ContinueSpec
    const plain = xgboostParams(spec({ max_depth: 3 }))
    expect(plain).not.toHaveProperty('monotone_constraints')
    expect(plain).not.toHaveProperty('interaction_constraints')
    const constrained = xgboostParams(
      spec({
        max_depth: 3,
        monotone_constraints: { a: 1, c: -1 },
        interaction_constraints: [
          ['a', 'b'],
          ['c', 'd', 'e'],
        ],
      }),
    )
    expect(constrained.monotone_constraints).toBe('(1,0,-1,0,0)')
    expect(constrained.interaction_constraints).toBe('[[0,1],[2,3,4]]')
    for (const params of [plain, constrained]) {
      const r = await runProcess(PYTHON, ['-c', CONSTRAINED_PY, JSON.stringify(params)], {
        cwd: REPO,
        env: process.env,
        killMs: 60_000,
      })
      expect(r.code, r.stderr).toBe(0)
      const kept = JSON.parse(r.stdout.trim().split('\n').pop()!)
      expect(kept.monotone).toBe(params === plain ? '()' : '(1,0,-1,0,0)')
      expect(kept.interaction).toBe(params === plain ? '' : '[[0,1],[2,3,4]]')
    }
  })
})
