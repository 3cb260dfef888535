/**
 * XGBoost on Dask continues snaptrain's model through the bundle's generated job, as written:
 * `snaptrain train` 10 rounds on a marketing table with string columns → DIR/continue →
 * `python3 xgboost_dask.py --workers 2` (a 2-worker LocalCluster, each worker reading its own
 * shard through `snaptrain scan --format npy`) → the continued model's first 10 trees give our
 * margins (`snaptrain predict`), it has 20 trees, the job's validation rows are the run's (count
 * and row keys, computed here by snaptrain's loader), and it prints the AUC before and after.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { writeMarketing } from '../../tools/datagen/marketing.ts'
import { lastJson, REPO, runCli, runProcess } from '../support/cli.ts'
import { PYTHON, pythonPeer } from '../support/peers.ts'
import { tableRowKeys } from '../support/row-keys-ts.ts'

const peer = pythonPeer(['xgboost', 'dask', 'distributed'])
const ENV = { SNAPTRAIN: `${process.execPath} ${join(REPO, 'bin/snaptrain.js')}`, SNAPTRAIN_BUILD_CHECK: '0' }

/** Margins of the continued model's first `trees` trees on the table (read through the bundle's runtime), and its tree count. */
const MARGINS_PY = `
import json, sys
sys.path.insert(0, sys.argv[1])
import numpy as np, xgboost, snaptrain_continue as sc
spec = sc.load_spec(sys.argv[1])
cols = sc.read_shard(spec)
b = xgboost.Booster(); b.load_model(sys.argv[2])
d = xgboost.DMatrix(sc.gbdt_matrix(spec, cols), feature_names=sc.feature_names(spec))
m = b.predict(d, output_margin=True, iteration_range=(0, int(sys.argv[3])))
keys = np.sort(np.load(sys.argv[4])).tolist()
print(json.dumps({"margins": m.astype(float).tolist(), "trees": len(b.get_dump()), "valid_keys": keys}))
`

describe.runIf(peer.run)('XGBoost on Dask continues the bundle', () => {
  const root = mkdtempSync(join(tmpdir(), 'snaptrain-dask-'))
  const table = join(root, 'marketing')
  const run = join(root, 'run')
  beforeAll(async () => {
    await writeMarketing({ dir: table, rows: 3000, seed: 42 })
  })

  test('first 10 trees equal ours, same validation rows, AUC printed', async () => {
    peer.require()
    const train = await runCli(
      [
        'train',
        '--table',
        table,
        '--label',
        'y',
        '--valid-fraction',
        '0.2',
        '--seed',
        '3',
        '--params',
        '{"num_round":10,"max_depth":4}',
        '--out',
        run,
        '--json',
      ],
      {},
      120_000,
    )
    expect(train.code, train.stderr).toBe(0)
    const manifest = JSON.parse(readFileSync(join(run, 'manifest.json'), 'utf8'))
    const bundle = join(run, 'continue')
    expect(existsSync(join(bundle, 'xgboost_dask.py')), 'train wrote the continue bundle').toBe(true)
    const out = join(root, 'continued.json')
    const validKeys = join(root, 'valid-keys.npy')
    const job = await runProcess(
      PYTHON,
      [join(bundle, 'xgboost_dask.py'), '--workers', '2', '--out', out, '--valid-keys', validKeys],
      { cwd: root, env: { ...process.env, ...ENV }, killMs: 150_000 },
    )
    expect(job.code, job.stderr.slice(-3000)).toBe(0)
    const result = lastJson<{
      workers: number
      rows: number
      valid_rows: number
      rounds_after: number
      metrics_before: { auc: number }
      metrics_after: { auc: number }
    }>(job)
    console.log(
      `dask: ${result.workers} workers, ${result.valid_rows} validation rows, AUC ${result.metrics_before.auc} -> ${result.metrics_after.auc}`,
    )
    expect(result.workers).toBe(2)
    expect(result.rows).toBe(3000)
    expect(job.stdout).toMatch(/validation \(\d+ rows\): auc [\d.]+ -> [\d.]+/)
    // (c) the loaded model scores the run's validation AUC; the continued one is printed.
    expect(Math.abs(result.metrics_before.auc - manifest.metrics.at(-1).auc)).toBeLessThan(1e-6)
    expect(result.metrics_after.auc).toBeGreaterThan(0.5)
    // (b) the same validation rows: the manifest's count, and snaptrain's own row keys.
    expect(result.valid_rows).toBe(manifest.validation.rows)
    const ours = await tableRowKeys(table, manifest.validation.key, { seed: manifest.seed, fraction: 0.2 })
    const ourValid = Array.from(ours.keys.filter((_, i) => ours.valid![i] === 1)).sort((a, b) => a - b)

    // (a) the first 10 trees of the continued model give snaptrain's margins on every row.
    const preds = join(root, 'preds.csv')
    const predict = await runCli(
      ['predict', '--model', join(run, 'model.json'), '--table', table, '--out', preds, '--cpu'],
      {},
      120_000,
    )
    expect(predict.code, predict.stderr).toBe(0)
    const margins = readFileSync(preds, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map(line => Number(line.split(',')[0]))
    const py = await runProcess(PYTHON, ['-c', MARGINS_PY, bundle, out, '10', validKeys], {
      cwd: root,
      env: { ...process.env, ...ENV },
      killMs: 60_000,
    })
    expect(py.code, py.stderr).toBe(0)
    const theirs = lastJson<{ margins: number[]; trees: number; valid_keys: number[] }>(py)
    expect(theirs.trees).toBe(20)
    expect(theirs.valid_keys).toEqual(ourValid)
    expect(theirs.margins).toHaveLength(margins.length)
    const delta = Math.max(...theirs.margins.map((m, i) => Math.abs(m - margins[i]!)))
    console.log(`dask: max |Δ margin| of the first 10 trees = ${delta}`)
    expect(delta).toBeLessThanOrEqual(1e-6)
  })
})
