/**
 * The generated GBDT jobs: both compile (`python3 -m py_compile`), and the Spark job's encoding
 * step — `encode_frame`, run by mapInPandas on Spark's pandas batches, importable without pyspark
 * (not installable here) — gives the features, label and validation rows that the Dask job's path
 * (read_shard + gbdt_matrix + label + validation_mask) gives on the same rows, handed over as
 * Spark hands them (nullable integers as float NaN, strings as objects): for a binary model, a
 * multiclass one (the string label coded as the model's classes; a class the model lacks refused
 * by name) and a ranking one (the query ids too).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
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
  "labels": sorted(set(out["label"].tolist())),
  "qid_equal": bool(np.array_equal(out["qid"].to_numpy(), sc.query_numbers(sc.qid(spec, cols)))) if spec.get("qid") else None,
  "qids": len(set(out["qid"].tolist())) if spec.get("qid") else None,
  "qid_values": len(set(sc.qid(spec, cols).tolist())) if spec.get("qid") else None,
  "qid_pairs": len(set(zip(sc.qid(spec, cols).tolist(), out["qid"].tolist()))) if spec.get("qid") else None,
}))
`

/** The label of the spec in argv[2]'s bundle through sc.label: the error it raises, or none. */
const LABEL_ERROR_PY = `
import sys
sys.path.insert(0, sys.argv[1])
import snaptrain_continue as sc
spec = sc.load_spec(sys.argv[1])
try:
    sc.label(spec, sc.read_shard(spec))
    print("no error")
except ValueError as e:
    print("ValueError: %s" % e)
`

const FEATURES: ContinueSpec['features'] = [
  { name: 'age', delta_type: 'integer', kind: 'numeric' },
  // A dictionary without some of the table's values: those rows must be missing.
  { name: 'job', delta_type: 'string', kind: 'categorical', dictionary: ['admin.', 'management', 'technician'] },
  { name: 'contact', delta_type: 'string', kind: 'categorical', dictionary: ['cellular', 'telephone'] },
  { name: 'pdays', delta_type: 'integer', kind: 'numeric' },
  { name: 'euribor3m', delta_type: 'double', kind: 'numeric' },
]

/** A continue.json over the marketing table at `table` (label, key, params and extras as given). */
function specOf(
  table: string,
  label: string,
  key: string[],
  params: Record<string, unknown>,
  extra: Partial<ContinueSpec> = {},
): ContinueSpec {
  const read = [label, ...FEATURES.map(f => f.name), ...key, ...(extra.qid ? [extra.qid] : [])].filter(
    (c, i, all) => all.indexOf(c) === i,
  )
  return {
    kind: 'snaptrain-continue',
    format: 1,
    snaptrain_version: 'test',
    family: 'gbdt',
    source: { kind: 'run' },
    table: { url: 'file://' + table + '/', path: table, version: 0, digest: 'x' },
    label,
    ...extra,
    filter: null,
    features: FEATURES,
    validation: { kind: 'fraction', fraction: 0.25, seed: 9, key, rows: 0 },
    params: { eta: 0.3, max_depth: 3, num_round: 5, categorical: [], seed: 9, ...params },
    metric: 'auc',
    seed: 9,
    done: { rounds: 5 },
    files: { model: 'model.json', jobs: ['xgboost_dask.py', 'xgboost_spark.py'] },
    scan: { args: ['--table', table, '--version', '0', '--columns', read.join(','), '--format', 'npy'] },
  }
}

/** Writes the bundle of `spec` (continue.json, the runtime, the jobs) under `dir`; returns the jobs. */
function writeBundle(dir: string, spec: ContinueSpec): ReturnType<typeof gbdtJobs> {
  mkdirSync(dir)
  writeFileSync(join(dir, 'continue.json'), JSON.stringify(spec))
  writeFileSync(join(dir, 'snaptrain_continue.py'), CONTINUE_RUNTIME_PY)
  const jobs = gbdtJobs(spec)
  for (const j of jobs) writeFileSync(join(dir, j.name), j.data)
  return jobs
}

/** Compiles the bundle's jobs and runtime, then runs COMPARE_PY on it. */
async function compare(dir: string, jobs: ReturnType<typeof gbdtJobs>): Promise<Record<string, unknown>> {
  const env = { ...process.env, ...ENV }
  const files = [...jobs.map(j => join(dir, j.name)), join(dir, 'snaptrain_continue.py')]
  const compile = await runProcess(PYTHON, ['-m', 'py_compile', ...files], { cwd: dir, env, killMs: 30_000 })
  expect(compile.code, compile.stderr).toBe(0)
  const py = await runProcess(PYTHON, ['-c', COMPARE_PY, dir], { cwd: dir, env, killMs: 60_000 })
  expect(py.code, py.stderr).toBe(0)
  return JSON.parse(py.stdout.trim().split('\n').pop()!)
}

describe.runIf(peer.run)('generated GBDT jobs', () => {
  const root = mkdtempSync(join(tmpdir(), 'snaptrain-spark-job-'))
  const table = join(root, 'marketing')
  beforeAll(() => writeMarketing({ dir: table, rows: 800, seed: 11 }), 60_000)

  test('compile, and the Spark encoding equals the Dask path', async () => {
    peer.require()
    const key = ['age', 'contact', 'euribor3m', 'job', 'pdays', 'y']
    const bundle = join(root, 'bundle')
    const jobs = writeBundle(bundle, specOf(table, 'y', key, { objective: 'binary:logistic' }))
    expect(jobs.map(j => j.name)).toEqual(['xgboost_dask.py', 'xgboost_spark.py'])
    const spark = jobs[1]!.data
    expect(spark).toMatch(/option\("versionAsOf", VERSION\)/)
    expect(spark).toMatch(/xgb_model=booster/)
    expect(spark).toMatch(/n_estimators=args\.rounds/)
    expect(jobs[0]!.data).toMatch(/xgb_model=booster/)
    const r = await compare(bundle, jobs)
    console.log(`spark encode_frame vs dask path: ${JSON.stringify(r)}`)
    expect(r.rows).toBe(800)
    expect(r.nan_codes).toBeGreaterThan(0)
    expect(r.features_equal).toBe(true)
    expect(r.label_equal).toBe(true)
    expect(r.valid_equal).toBe(true)
    expect(r.valid).toBeGreaterThan(100)
  })

  test('multiclass: the string label coded as the model’s classes on both paths; a class it lacks refused', async () => {
    peer.require()
    const key = ['age', 'contact', 'euribor3m', 'job', 'pdays', 'marital']
    const params = { objective: 'multi:softprob', num_class: 3, eval_metric: ['mlogloss'] }
    const classes = ['divorced', 'married', 'single']
    const bundle = join(root, 'multiclass')
    const jobs = writeBundle(bundle, specOf(table, 'marital', key, params, { label_values: classes }))
    const r = await compare(bundle, jobs)
    console.log(`spark encode_frame vs dask path (multiclass): ${JSON.stringify(r)}`)
    expect(r).toMatchObject({ rows: 800, features_equal: true, label_equal: true, valid_equal: true })
    expect(r.labels).toEqual([0, 1, 2])
    // Without 'single' among the model's classes, the rows of that class stop the job by name.
    const short = join(root, 'multiclass-short')
    writeBundle(short, specOf(table, 'marital', key, params, { label_values: classes.slice(0, 2) }))
    const env = { ...process.env, ...ENV }
    const py = await runProcess(PYTHON, ['-c', LABEL_ERROR_PY, short], { cwd: root, env, killMs: 60_000 })
    expect(py.code, py.stderr).toBe(0)
    expect(py.stdout.trim()).toBe(
      "ValueError: label column marital: 'single' is not one of the model's classes ('divorced', 'married')",
    )
  })

  test('ranking: the query ids travel with the rows on both paths (integer and string ids)', async () => {
    peer.require()
    const params = { objective: 'rank:ndcg', eval_metric: ['ndcg@10'], lambdarank_pair_method: 'topk' }
    // day: integers 1 … 31; month: strings, which the Spark path sends as int64 ids, one per string.
    for (const [qid, count] of [
      ['day', 31],
      ['month', 12],
    ] as const) {
      const bundle = join(root, `ranking-${qid}`)
      const jobs = writeBundle(bundle, specOf(table, 'y', [qid], params, { qid }))
      expect(jobs[1]!.data).toMatch(/qid_col/)
      expect(jobs[1]!.data).toMatch(/repartitionByRange\(args\.workers, "qid"\)/)
      const r = await compare(bundle, jobs)
      console.log(`spark encode_frame vs dask path (ranking by ${qid}): ${JSON.stringify(r)}`)
      const same = { rows: 800, features_equal: true, label_equal: true, valid_equal: true, qid_equal: true }
      expect(r).toMatchObject({ ...same, qids: count, qid_values: count, qid_pairs: count })
    }
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
  test('num_class for multi:* only, the LambdaMART parameters for rank:* only', () => {
    const of = (params: Record<string, unknown>) =>
      xgboostParams({ features: FEATURES, seed: 3, params: { ...parseParams(params) } } as unknown as ContinueSpec)
    const lambdaMart = ['lambdarank_pair_method', 'ndcg_exp_gain']
    const binary = of({ max_depth: 3 })
    for (const k of ['num_class', ...lambdaMart]) expect(binary, k).not.toHaveProperty(k)
    const multi = of({ objective: 'multi:softprob', num_class: 4 })
    expect(multi.num_class).toBe(4)
    for (const k of lambdaMart) expect(multi, k).not.toHaveProperty(k)
    const rank = of({ objective: 'rank:ndcg', lambdarank_pair_method: 'mean', lambdarank_num_pair_per_sample: 2 })
    expect(rank).toMatchObject({
      lambdarank_pair_method: 'mean',
      lambdarank_num_pair_per_sample: 2,
      ndcg_exp_gain: true,
    })
    expect(rank).not.toHaveProperty('num_class')
  })

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
