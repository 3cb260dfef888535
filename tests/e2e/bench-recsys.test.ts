/**
 * `snaptrain bench --suite recsys --quick` end to end on a tiny generated clicks table (3,000 rows,
 * served with --tables): the suite runs the product's own data path, so the table's `history`
 * list column reaches every part of it as a bag feature — our steps, the TF.js peer, the
 * pipelined run, the validation scoring, the whole `train` run — and every number of its JSON
 * result must come out finite. Timings are not asserted (bench/README.md), only well-formedness.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { BenchRow } from '../../bench/types.ts'
import { runCli, runMain } from '../support/cli.ts'

let tmp = ''

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'st-bench-recsys-'))
  const gen = await runMain(['data', '--out', join(tmp, 'tables'), '--rows', '3000', '--tables', 'clicks'])
  expect(gen.code, gen.stderr).toBe(0)
})

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true })
})

test('bench --suite recsys --quick on a clicks table with a bag column: finite numbers in every row', async () => {
  const out = join(tmp, 'recsys.json')
  const args = ['bench', '--suite', 'recsys', '--quick', '--tables', join(tmp, 'tables'), '--out', out, '--json']
  const r = await runCli(args, {}, 170_000)
  expect(r.code, r.stderr).toBe(0)
  // The model the suite built has the one bag feature (`history`).
  expect(r.stderr).toMatch(/recsys: ours: 1\+3 steps, B=256, R=\d+, S=8, K=1, Cd=19/)
  const printed = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { suite: string; rows: BenchRow[]; out: string }
  const file = JSON.parse(readFileSync(out, 'utf8')) as { suite: string; quick: boolean; rows: BenchRow[] }
  expect(printed.out).toBe(out)
  expect(file).toMatchObject({ suite: 'recsys', quick: true })
  expect(file.rows).toEqual(printed.rows)
  const rows = file.rows
  const names = rows.map(x => x.workload)
  for (const start of [
    'ours GpuModel',
    'TF.js webgpu',
    'ours pipelined (',
    'snaptrain train end to end',
    'ours validation AUC',
    'TF.js validation AUC',
    'end to end validation AUC',
    'roofline: per-step',
  ])
    expect(
      names.some(n => n.startsWith(start)),
      start,
    ).toBe(true)
  for (const row of rows) {
    expect(row.suite).toBe('recsys')
    for (const k of ['value', 'min', 'median', 'max'] as const)
      expect(Number.isFinite(row[k]), `${row.workload}: ${k} = ${row[k]}`).toBe(true)
    if (row.peer !== undefined) {
      expect(Number.isFinite(row.peer_value) && Number.isFinite(row.ratio), `${row.workload}: ratio`).toBe(true)
    }
    if (row.metric === 'throughput') expect(row.value, row.workload).toBeGreaterThan(0)
    if (row.unit === 'AUC') {
      expect(row.value, row.workload).toBeGreaterThanOrEqual(0)
      expect(row.value, row.workload).toBeLessThanOrEqual(1)
    }
  }
}, 180_000)
