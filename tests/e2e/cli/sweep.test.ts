/**
 * `snaptrain sweep` in-process (main with a captured io; the page in one headless Chromium
 * shared by the file): bad input (invalid space, zero trials, parallel
 * above the limit, unknown label) exits non-zero before any browser starts, naming the cause;
 * one small real random sweep on marketing (filtered, 2 trials × 2 rounds) writes trials.csv,
 * sweep.json, the best model and its continue bundle (`snaptrain continue` on the folder writes the
 * same bytes), with the --json summary as the last stdout line.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { lastJson, runMain, shareAppPage } from '../../support/cli.ts'
import { fromXGBoostJson } from '../../../src/models/gbdt/xgboost-json.ts'
import { importSweep } from '../../../src/tune/export.ts'
import { progressLine, type sweepSummary } from '../../../src/cli/sweep.ts'

const TABLE = 'public/tables/marketing'
const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-sweep-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
shareAppPage()

function space(name: string, json: unknown): string {
  const path = join(tmp, name)
  writeFileSync(path, JSON.stringify(json))
  return path
}

describe('snaptrain sweep: bad input → exit ≠ 0 before any browser, naming the cause', () => {
  const cases: Array<[string, string[], RegExp]> = [
    [
      'low > high',
      ['--space', space('a.json', { eta: { type: 'uniform', low: 0.5, high: 0.1 } })],
      /space\.eta: low 0\.5 > high 0\.1/,
    ],
    [
      'unknown parameter',
      ['--space', space('b.json', { max_dept: { type: 'int', low: 2, high: 5 } })],
      /space\.max_dept: unknown parameter for gbdt/,
    ],
    [
      'log of a non-positive bound',
      ['--space', space('c.json', { eta: { type: 'loguniform', low: 0, high: 0.3 } })],
      /space\.eta: .*low > 0/,
    ],
    ['zero trials', ['--trials', '0'], /trials: must be a positive integer, got 0/],
    ['parallel above the limit', ['--parallel', '64'], /parallel: at most 8 trials in parallel/],
    ['missing space file', ['--space', join(tmp, 'none.json')], /--space: cannot read .*none\.json/],
  ]
  for (const [name, args, message] of cases) {
    it(name, async () => {
      const r = await runMain([
        'sweep',
        '--table',
        TABLE,
        '--label',
        'y',
        '--model',
        'gbdt',
        ...args,
        '--out',
        join(tmp, 'bad'),
      ])
      expect(r.stderr).toMatch(message)
      expect(r.code).toBe(2)
      expect(r.ms).toBeLessThan(10_000)
      expect(existsSync(join(tmp, 'bad'))).toBe(false)
    })
  }

  it('unknown label (checked against the table in Node)', async () => {
    const r = await runMain(['sweep', '--table', TABLE, '--label', 'nope', '--model', 'gbdt', '--trials', '2'])
    expect(r.stderr).toMatch(/label column nope: not in the table/)
    expect(r.code).toBe(1)
  })
})

describe('snaptrain sweep (marketing, age < 30, random, 2 trials × 2 rounds)', () => {
  it('writes trials.csv, sweep.json and the best model; --json summary last', async () => {
    const out = join(tmp, 'run')
    const sp = space('run.json', { max_depth: { type: 'int', low: 2, high: 3 }, eta: 0.3, num_round: 2 })
    const r = await runMain([
      'sweep',
      '--table',
      TABLE,
      '--label',
      'y',
      '--filter',
      'age < 30',
      '--model',
      'gbdt',
      '--strategy',
      'random',
      '--trials',
      '2',
      '--parallel',
      '1',
      '--seed',
      '3',
      '--space',
      sp,
      '--out',
      out,
      '--json',
    ])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/\[trial 1\] completed/)
    const s = lastJson<ReturnType<typeof sweepSummary>>(r)
    expect(Object.keys(s)).toEqual([
      'best',
      'trials',
      'stopped_early',
      'gpu_seconds',
      'gpu_seconds_full_budget',
      'wall_seconds',
    ])
    expect(s.trials).toBe(2)
    expect(s.best!.metric).toBeGreaterThan(0.6)
    expect(s.gpu_seconds).toBeGreaterThan(0)
    expect(s.gpu_seconds_full_budget).toBeCloseTo(s.gpu_seconds, 6) // random search trains every trial at full budget
    const state = importSweep(readFileSync(join(out, 'sweep.json'), 'utf8'))
    expect(state.trials.map(t => t.status)).toEqual(['completed', 'completed'])
    expect(state.best).toEqual(s.best)
    const csv = readFileSync(join(out, 'trials.csv'), 'utf8').trim().split('\r\n')
    expect(csv).toHaveLength(3)
    expect(fromXGBoostJson(readFileSync(join(out, 'model.json'), 'utf8')).trees).toHaveLength(2)
    const best = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'))
    expect(best).toMatchObject({ trial: s.best!.trial, filter: 'age < 30', seed: 3 })
    // The folder as the user named it, never the loopback server the page read it from.
    const address = `${pathToFileURL(resolve(TABLE)).href}/`
    expect(state.config).toMatchObject({ table: address, tablePath: resolve(TABLE) })
    expect(best.table).toMatchObject({ url: address, path: resolve(TABLE) })
    // The best trial's continue bundle beside it, linked from its manifest; `snaptrain continue` writes the same bytes.
    expect(best.continue, `${best.continue_error} ${r.stderr}`).toBe('continue/continue.json')
    const spec = JSON.parse(readFileSync(join(out, 'continue', 'continue.json'), 'utf8'))
    expect(spec).toMatchObject({
      source: { kind: 'sweep', sweep_id: state.id, trial: s.best!.trial },
      done: { rounds: 2 },
      filter: 'age < 30',
      seed: 3,
    })
    expect(readFileSync(join(out, 'continue', 'model.json'), 'utf8')).toBe(
      readFileSync(join(out, 'model.json'), 'utf8'),
    )
    const again = await runMain(['continue', '--run', out, '--out', join(tmp, 'again')])
    expect(again.code, again.stderr).toBe(0)
    const names = readdirSync(join(out, 'continue')).sort()
    expect(readdirSync(join(tmp, 'again')).sort()).toEqual(names)
    for (const n of names)
      expect(readFileSync(join(tmp, 'again', n)).equals(readFileSync(join(out, 'continue', n))), n).toBe(true)
  }, 180_000)
})

describe('sweep helpers', () => {
  it('prints one line per finished trial and nothing for starts and reports', () => {
    const trial = {
      id: 4,
      config: { eta: 0.12345 },
      status: 'stopped',
      bracket: 1,
      rung: 0,
      resource: 9,
      curve: [{ resource: 3, metric: 0.8, elapsedMs: 1 }],
      metric: 0.8,
      gpuSeconds: 1.5,
      wallSeconds: 2,
    }
    expect(progressLine(JSON.stringify({ kind: 'trial', trial }))).toBe(
      '[trial 4] stopped   bracket 1 rung 0 resource 3/9 metric 0.80000 1.50 GPU-s eta=0.1235',
    )
    expect(progressLine(JSON.stringify({ kind: 'trial', trial: { ...trial, status: 'running' } }))).toBeUndefined()
    expect(progressLine(JSON.stringify({ kind: 'stage', message: 'loading x' }))).toBe('sweep: loading x')
    // Progress updates for the page's bars: only a step's end (fraction 1) reaches the terminal.
    expect(
      progressLine(JSON.stringify({ kind: 'stage', message: 'loading x: 5 of 10 rows', fraction: 0.5 })),
    ).toBeUndefined()
    expect(progressLine(JSON.stringify({ kind: 'stage', message: 'loading x: 10 of 10 rows', fraction: 1 }))).toBe(
      'sweep: loading x: 10 of 10 rows',
    )
  })
})
