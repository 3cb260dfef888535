/**
 * `snaptrain train` in-process (main with a captured io; the page in one headless Chromium shared
 * by the file, WebGPU): a small run on marketing writes the three files with the --json summary
 * (a second run on the same folder records the same table: its file: URL and digest, no port),
 * and bad inputs exit non-zero in under 10 s with a message naming the label, parameter or filter
 * (most before any browser). The spawned CLI's exit codes and output: tests/e2e/cli.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { PROJECT_ROOT } from '../../../src/serve/page-server.ts'
import { parseMetricsCsv } from '../../../src/run/manifest.ts'
import { fromXGBoostJson } from '../../../src/models/gbdt/xgboost-json.ts'
import { progressLine, trainScript } from '../../../src/cli/train.ts'
import { runMain, shareAppPage } from '../../support/cli.ts'
import { DEFAULT_VALID_FRACTION } from '../../../src/eval/validation.ts'

const TABLE = 'public/tables/marketing'
/** A short run on the reference backend. */
const ONE_ROUND = ['--params', '{"num_round":1,"max_depth":2}', '--backend', 'cpu']
const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-train-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

shareAppPage()

async function cli(args: string[]): Promise<{ code: number | null; out: string; err: string; ms: number }> {
  const r = await runMain(args)
  return { code: r.code, out: r.stdout, err: r.stderr, ms: r.ms }
}

describe('snaptrain train (marketing, 5 rounds)', () => {
  it('writes model.json, manifest.json, metrics.csv and prints the summary', async () => {
    const out = join(tmp, 'run')
    const r = await cli([
      'train',
      '--model',
      'gbdt',
      '--table',
      TABLE,
      '--label',
      'y',
      '--valid-fraction',
      '0.2',
      '--seed',
      '3',
      '--params',
      '{"num_round":5,"max_depth":3}',
      '--eval-train',
      '--out',
      out,
      '--json',
    ])
    expect(r.err).toMatch(/\[5\/5\] auc=\S+ logloss=\S+ train-auc=\S+ train-logloss=/)
    expect(r.code).toBe(0)
    const s = JSON.parse(r.out.trim().split('\n').pop()!)
    expect(Object.keys(s)).toEqual([
      'model',
      'auc',
      'logloss',
      'eval',
      'rounds',
      'best_iteration',
      'train_seconds',
      'rows_train',
      'rows_valid',
      'rows_per_second',
      'model_path',
      'manifest_path',
      'adapter',
    ])
    expect(s).toMatchObject({
      model: 'gbdt',
      rounds: 5,
      best_iteration: 4,
      model_path: join(out, 'model.json'),
      manifest_path: join(out, 'manifest.json'),
    })
    expect(s.auc).toBeGreaterThan(0.75)
    expect(s.rows_train + s.rows_valid).toBe(45_000)
    const metrics = parseMetricsCsv(readFileSync(join(out, 'metrics.csv'), 'utf8'))
    expect(metrics).toHaveLength(5)
    expect(metrics[4].auc).toBeCloseTo(s.auc, 12)
    // Rounds counted from 1; validation columns first, then --eval-train's training-rows ones.
    expect(metrics.map(m => m.round)).toEqual([1, 2, 3, 4, 5])
    expect(Object.keys(metrics[4])).toEqual(['round', 'auc', 'logloss', 'train-auc', 'train-logloss'])
    // `eval`: every eval_metric of the last round on the validation rows, as metrics.csv's last row.
    const { round: _r, 'train-auc': trainAuc, 'train-logloss': trainLogloss, ...last } = metrics[4]
    expect(s.eval).toEqual(last)
    expect(trainAuc).toBeGreaterThan(0.5)
    expect(trainLogloss).toBeGreaterThan(0)
    const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'))
    expect(m.table.path).toBe(join(PROJECT_ROOT, TABLE))
    expect(m.table).toMatchObject({ version: 0, rows: 45_000 })
    expect(m.table.digest).toBeTruthy()
    expect(m.table.files.map((f: { path: string }) => f.path)).toHaveLength(2)
    expect(m).toMatchObject({ model: 'gbdt', label: 'y', seed: 3, filter: null, adapter: s.adapter, rounds: 5 })
    expect(m.params).toMatchObject({ num_round: 5, max_depth: 3, seed: 3 })
    expect(m.metrics).toHaveLength(5)
    expect(m.snaptrain_version).toMatch(/^\d+\.\d+\.\d+/)
    expect(fromXGBoostJson(readFileSync(join(out, 'model.json'), 'utf8')).trees).toHaveLength(5)
    expect(existsSync(join(out, 'model.json.tmp-' + process.pid))).toBe(false)

    // The same folder again (named by its absolute path, its server on another port): the
    // manifest names the same table, by the folder, never by a loopback port.
    const again = join(tmp, 'again')
    const r2 = await cli(['train', '--table', join(PROJECT_ROOT, TABLE), '--label', 'y', '--out', again, ...ONE_ROUND])
    expect(r2.code, r2.err).toBe(0)
    const m2 = JSON.parse(readFileSync(join(again, 'manifest.json'), 'utf8'))
    expect(m.table.url).toBe(`${pathToFileURL(join(PROJECT_ROOT, TABLE)).href}/`)
    expect(m2.table).toEqual(m.table)
    expect(JSON.stringify(m2.table)).not.toMatch(/127\.0\.0\.1|localhost|:\d{2,5}\//)
    // No validation flag: the page's default share (one constant), said on stderr, and validation metrics.
    expect(r2.err).toContain(
      `validation: ${DEFAULT_VALID_FRACTION * 100} % of rows by row key (default; --valid-fraction 0 for none)`,
    )
    expect(m2.validation).toMatchObject({ kind: 'fraction', fraction: DEFAULT_VALID_FRACTION })
    expect(m2.metrics[0].auc).toBeGreaterThan(0.5)
    expect(r2.err).toMatch(/\[1\/1\] auc=0\.\d+ logloss=0\.\d+/)

    // predict says what it scores and the rows done of the total (piped: first and last at least).
    const preds = ['--out', join(tmp, 'preds.csv')]
    const p = await cli(['predict', '--model', join(again, 'model.json'), '--table', TABLE, '--cpu', ...preds])
    expect(p.code, p.err).toBe(0)
    expect(p.err).toMatch(/predict: reading 17 feature columns of version 0/)
    expect(p.err).toMatch(/predict: scoring 45000 rows with 1 trees/)
    expect(p.err).toMatch(/predict: 0 \/ 45000 rows\n/)
    expect(p.err).toMatch(/predict: 45000 \/ 45000 rows\n/)
  }, 120_000)
})

describe('snaptrain train: bad input', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['label missing', ['--label', 'nope'], /label column nope: not in the table/],
    ['label not binary', ['--label', 'age'], /label column age: binary:logistic needs labels 0 or 1, got \d+/],
    ['unknown parameter', ['--label', 'y', '--params', '{"max_dept":3}'], /unknown parameter max_dept/],
    ['max_depth 0', ['--label', 'y', '--params', '{"max_depth":0}'], /max_depth/],
    ['eta 0', ['--label', 'y', '--params', '{"eta":0}'], /eta: must be/],
    [
      'max_bin 1000',
      ['--label', 'y', '--params', '{"max_bin":1000}'],
      /max_bin: must be an integer in \[2, 256\], got 1000/,
    ],
    ['empty filter result', ['--label', 'y', '--filter', 'age > 1000'], /filter "age > 1000" selects no rows/],
    [
      'recsys parameter',
      ['--model', 'recsys', '--label', 'y', '--params', '{"max_depth":3}'],
      /unknown recsys parameter 'max_depth'/,
    ],
    [
      'recsys architecture',
      ['--model', 'recsys', '--label', 'y', '--params', '{"architecture":"dlrm"}'],
      /architecture must be one of 'mlp', 'dcn', got "dlrm"/,
    ],
  ]
  for (const [name, args, message] of cases) {
    it(`${name} → exit ≠ 0 in < 10 s naming it`, async () => {
      const r = await cli(['train', '--table', TABLE, ...args, '--out', join(tmp, 'bad')])
      expect(r.err).toMatch(message)
      expect(r.code).not.toBe(0)
      expect(r.code).not.toBeNull()
      expect(r.ms).toBeLessThan(10_000)
      expect(existsSync(join(tmp, 'bad', 'model.json'))).toBe(false)
    }, 30_000)
  }
})

describe('train helpers', () => {
  it('formats progress and builds the page call as source text', () => {
    expect(
      progressLine(JSON.stringify({ kind: 'round', round: 1, rounds: 10, metrics: { auc: 0.5 }, elapsedMs: 1500 })),
    ).toBe('[2/10] auc=0.500000 (1.5 s)')
    const evaluation = { kind: 'round', round: 1, rounds: 4, metrics: { train_loss: 0.25 }, elapsedMs: 500 }
    expect(progressLine(JSON.stringify({ ...evaluation, steps: { done: 20, total: 40 } }))).toBe(
      '[step 20/40] train_loss=0.250000 (0.5 s)',
    )
    expect(progressLine(JSON.stringify({ kind: 'stage', message: 'x' }))).toBe('train: x')
    expect(trainScript({ table: 'u', label: 'y' })).toMatch(/^window\.snaptrain\.train\(\{"table":"u","label":"y"\}/)
  })
})
