/**
 * Every bench suite on tiny tables, in ONE `snaptrain bench --suite all --quick --rows 2000
 * --tables DIR` run (one Chromium page, the suites one after another): generated clicks (3,000
 * rows + a 10% append, its `history` list column a bag feature) and marketing (3,000 rows) for
 * the loader, recsys, sweep and scaleout suites, 2,000 synthetic rows for gbdt (with its XGBoost
 * peer where /usr/bin/python3 has xgboost; under CI=true it must). A suite cannot break unnoticed:
 * each must return its rows, and every row must be well formed — finite numbers, min ≤ median ≤
 * max, a name, metric and unit, a peer that is a row of the same suite with its value and a
 * finite ratio. Timings are never asserted (bench/README.md), only well-formedness and which
 * workloads each suite measured.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { SUITE_NAMES } from '../../bench/suites.ts'
import type { BenchRow } from '../../bench/types.ts'
import { type CliResult, runCli, runMain } from '../support/cli.ts'
import { pythonPeer } from '../support/peers.ts'

const GBDT_ROWS = 2000
const xgboost = pythonPeer(['xgboost'])

let tmp = ''
let run: CliResult
let out = ''
let rows: BenchRow[] = []

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'st-bench-suites-'))
  const tables = join(tmp, 'tables')
  const gen = await runMain(['data', '--out', tables, '--rows', '3000', '--marketing-rows', '3000'])
  expect(gen.code, gen.stderr).toBe(0)
  out = join(tmp, 'all.json')
  const args = ['bench', '--suite', 'all', '--quick', '--rows', String(GBDT_ROWS), '--tables', tables]
  run = await runCli([...args, '--out', out, '--json', '--timeout', '540'], {}, 560_000)
  expect(run.code, run.stderr.slice(-4000)).toBe(0)
  rows = (JSON.parse(readFileSync(out, 'utf8')) as { rows: BenchRow[] }).rows
}, 600_000)

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true })
})

/** The rows of one suite. */
const of = (suite: string): BenchRow[] => rows.filter(r => r.suite === suite)

/** Throws naming the first start with no row of `suite` whose workload begins with it. */
function expectWorkloads(suite: string, starts: readonly string[]): void {
  const names = of(suite).map(r => r.workload)
  for (const start of starts)
    expect(
      names.some(n => n.startsWith(start)),
      `${suite}: no row starting '${start}'`,
    ).toBe(true)
}

test('one run, one result file: every suite in order, the printed JSON and the file agree', () => {
  const printed = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { suite: string; rows: BenchRow[]; out: string }
  const file = JSON.parse(readFileSync(out, 'utf8')) as { suite: string; quick: boolean; gbdt_rows: number }
  expect(printed).toMatchObject({ suite: 'all', out })
  expect(file).toMatchObject({ suite: 'all', quick: true, gbdt_rows: GBDT_ROWS })
  expect(printed.rows).toEqual(rows)
  // Suites ran in SUITE_NAMES order, each contributing rows.
  const order = rows.map(r => r.suite).filter((s, i, a) => a.indexOf(s) === i)
  expect(order).toEqual(SUITE_NAMES)
  for (const suite of SUITE_NAMES) expect(of(suite).length, suite).toBeGreaterThan(0)
  // The scale-out plot is drawn next to the result file.
  expect(readFileSync(out.replace(/\.json$/, '.svg'), 'utf8')).toMatch(/^<svg/)
})

test('every row of every suite is well formed: finite numbers, named workload/metric/unit, peers that are rows', () => {
  for (const r of rows) {
    const at = `${r.suite}: ${r.workload} (${r.metric})`
    expect(r.workload.trim(), at).not.toBe('')
    expect(r.workload, at).not.toMatch(/\b(undefined|NaN|null)\b/)
    expect(r.metric.trim(), at).not.toBe('')
    expect(r.unit.trim(), at).not.toBe('')
    for (const k of ['value', 'min', 'median', 'max'] as const)
      expect(Number.isFinite(r[k]), `${at}: ${k} = ${r[k]}`).toBe(true)
    expect(r.min <= r.median && r.median <= r.max && r.value === r.median, `${at}: min/median/max`).toBe(true)
    expect(Number.isInteger(r.repeats) && r.repeats >= 1, `${at}: repeats ${r.repeats}`).toBe(true)
    expect(['gpu', 'wall'], at).toContain(r.timing)
    expect(r.adapter, at).not.toBe('')
    if (r.metric === 'throughput' || r.unit.endsWith('/s')) expect(r.value, at).toBeGreaterThan(0)
    if (r.unit === 'AUC' && r.metric !== 'AUC gap') {
      expect(r.value, at).toBeGreaterThanOrEqual(0)
      expect(r.value, at).toBeLessThanOrEqual(1)
    }
    if (r.unit === '%') {
      expect(r.value, at).toBeGreaterThanOrEqual(0)
      expect(r.value, at).toBeLessThanOrEqual(100 + 1e-9)
    }
    if (r.peer !== undefined) {
      expect(Number.isFinite(r.peer_value) && Number.isFinite(r.ratio) && r.ratio! > 0, `${at}: peer/ratio`).toBe(true)
      const peers = of(r.suite).filter(p => p.workload === r.peer && p.unit === r.unit)
      expect(
        peers.some(p => p.value === r.peer_value),
        `${at}: peer '${r.peer}' is no row of ${r.suite} with value ${r.peer_value}`,
      ).toBe(true)
    }
  }
  // A workload and metric name one row within a suite.
  const keys = rows.map(r => `${r.suite}|${r.workload}|${r.metric}`)
  expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([])
})

describe('what each suite measured', () => {
  test('device: bandwidth, atomics, matmul, dispatch and submit latency', () => {
    expectWorkloads('device', [
      'stream_rmw',
      'copyBufferToBuffer',
      'copy n=',
      'atomic_add_storage',
      'atomic_add_workgroup',
      'matmul_naive',
      'matmul_tiled',
      'noop dispatch',
      'empty submit→done',
    ])
  })

  test('loader: the tiny clicks table from --tables (CSV exported to a temporary folder), 1/2/4 workers and the peers', () => {
    expect(run.stderr).toMatch(/loader: export wrote 3\d{3} rows/)
    expect(run.stderr).not.toMatch(/public\/tables|bench\/tables\/clicks/)
    expectWorkloads('loader', [
      'hyparquet main thread, whole files',
      ...[1, 2, 4].flatMap(w => [`snapshot loader workers=${w}`, `parquet-wasm + apache-arrow workers=${w}`]),
      'csv export in Node (read version + write 1 file, 3',
      'csv download+parse (page)',
      'csv path: export + download + parse',
      'snapshot loader workers=2: open + plan + full epoch',
      'duckdb-wasm 1.28.0 (DuckDB v',
      'snapshot loader workers=2 epoch 1 (epoch cache bypassed) vs duckdb-wasm warm',
      'snapshot loader workers=2 epochs 2+ from the epoch cache vs duckdb-wasm cached',
      'snapshot loader workers=2 cold: open + plan + workers + epoch vs duckdb-wasm cold',
    ])
  })

  test(`gbdt: ${GBDT_ROWS} synthetic rows (--rows): open → first round, quantisation, rounds, stages, histogram vs ceiling`, () => {
    expectWorkloads('gbdt', [
      `open → first round (Delta over HTTP, run pipeline, num_round 1) n=${GBDT_ROWS} f=28`,
      `sketch+cuts+bin (CPU) n=${GBDT_ROWS}`,
      `sketch+cuts+bin (2 loader workers) n=${GBDT_ROWS}`,
      `gbdt round n=${GBDT_ROWS} f=28`,
      ...['histogram', 'evaluate', 'partition'].map(s => `  stage ${s} n=${GBDT_ROWS}`),
      `histogram in training (built rows only) n=${GBDT_ROWS}`,
      'atomic_add_storage',
      `histogram_build all rows n=${GBDT_ROWS}`,
    ])
    // One size, the --rows one (the atomic ceiling's n is its own).
    const sizes = of('gbdt')
      .filter(r => !r.workload.startsWith('atomic_add'))
      .map(r => / n=(\d+)/.exec(r.workload)?.[1])
    expect(new Set(sizes.filter(Boolean))).toEqual(new Set([String(GBDT_ROWS)]))
  })

  test.runIf(xgboost.run)('gbdt: the XGBoost hist peer on the same rows, round and quantisation ratios', () => {
    xgboost.require()
    expectWorkloads('gbdt', [`xgboost `])
    const round = of('gbdt').find(r => r.workload.startsWith('gbdt round'))!
    expect(round.peer).toMatch(new RegExp(`^xgboost \\S+ hist nthread=2 n=${GBDT_ROWS}`))
    // Same rows, same parameters, same base score: the peer reaches the same validation AUC.
    const ours = /valid auc ([0-9.]+)/.exec(round.workload)![1]
    expect(round.peer).toContain(`(valid auc ${ours})`)
  })

  test('recsys: the bag feature reaches every part (ours, TF.js, pipelined, validation, the whole train run)', () => {
    // The model the suite built has the one bag feature (clicks' `history`).
    expect(run.stderr).toMatch(/recsys: ours: 1\+3 steps, B=256, R=\d+, S=8, K=1, Cd=19/)
    expectWorkloads('recsys', [
      'ours GpuModel',
      'TF.js webgpu',
      'ours pipelined (',
      'snaptrain train end to end',
      'ours validation AUC',
      'TF.js validation AUC',
      'end to end validation AUC',
      'roofline: per-step',
    ])
  })

  test('sweep: Hyperband vs random-full for gbdt (marketing) and recsys (clicks), no trial failed', () => {
    for (const model of ['gbdt marketing', 'recsys clicks'])
      for (const part of [': hyperband, ', ': random search, the same ', ': AUC gap', "hyperband's own full-budget"])
        expect(
          of('sweep').some(r => r.workload.startsWith(model) && r.workload.includes(part)),
          `${model} ${part}`,
        ).toBe(true)
    expect(
      of('sweep')
        .filter(r => /\d+ failed/.test(r.workload))
        .map(r => r.workload),
    ).toEqual([])
  })

  test('scaleout: R = 1 and 2 ranks on clicks and marketing, five numbers per run', () => {
    for (const table of ['clicks', 'marketing'])
      for (const c of ['R=1 (a)', 'R=2 (a)', 'R=2 (b)']) {
        const metrics = of('scaleout')
          .filter(r => r.workload.startsWith(`${table} ${c}`))
          .map(r => r.metric)
        expect(metrics.sort(), `${table} ${c}`).toEqual(
          ['steps', 'throughput', 'training time', 'validation AUC', 'wall time'].sort(),
        )
      }
  })
})

test('the loader CSV went to a temporary folder that is gone', () => {
  const m = /loader: exporting .* to (\S+\.csv)/.exec(run.stderr)
  expect(m, 'export line').not.toBeNull()
  expect(m![1].startsWith(tmpdir())).toBe(true)
  expect(existsSync(m![1])).toBe(false)
})
