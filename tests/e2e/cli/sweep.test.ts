/**
 * `snaptrain sweep` in-process (main with a captured io; the page in one headless Chromium
 * shared by the file): bad input (invalid space, zero trials, parallel
 * above the limit, unknown label) exits non-zero before any browser starts, naming the cause;
 * one small real random sweep on marketing (filtered, 2 trials × 2 rounds) writes trials.csv,
 * sweep.json, the best model and its continue bundle (`snaptrain continue` on the folder writes the
 * same bytes), with the --json summary as the last stdout line; one small Hyperband sweep (3
 * configurations at 1 round, the best promoted to 3): its best params (num_round included) given
 * to `snaptrain train --params` train the sweep's best model byte for byte, and the trials left at
 * rung 0 count as pruned.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { lastJson, runMain, shareAppPage } from '../../support/cli.ts'
import { fromXGBoostJson } from '../../../src/models/gbdt/xgboost-json.ts'
import { importSweep } from '../../../src/tune/export.ts'
import { progressLine, trialLine, trialLines, type sweepSummary } from '../../../src/cli/sweep.ts'
import { newSweepState } from '../../../src/tune/sweep-state.ts'
import type { SweepState, TrialRecord } from '../../../src/tune/types.ts'

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
    expect(r.stderr).toMatch(/\[trial 1\] complete /)
    // Random search in its own words: no brackets or rungs.
    expect(r.stderr).toContain('random search: 2 trials at 2 boosting rounds; 2 complete, 0 pruned, 0 failed')
    expect(r.stderr).not.toMatch(/bracket|rung/)
    const s = lastJson<ReturnType<typeof sweepSummary>>(r)
    expect(Object.keys(s)).toEqual([
      'best',
      'trials',
      'stopped_early',
      'gpu_seconds',
      'gpu_seconds_full_budget',
      'wall_seconds',
      'complete',
      'pruned',
      'failed',
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

describe('snaptrain sweep (marketing, age < 30, Hyperband 1 → 3 rounds, 3 configurations)', () => {
  it("its best params re-train the best trial's model byte for byte; trials left at rung 0 are pruned", async () => {
    const out = join(tmp, 'hb')
    const data = ['--table', TABLE, '--label', 'y', '--filter', 'age < 30', '--seed', '3']
    const sp = space('hb.json', {
      max_depth: { type: 'int', low: 2, high: 4 },
      eta: { type: 'uniform', low: 0.1, high: 0.5 },
    })
    const r = await runMain([
      'sweep',
      ...data,
      '--model',
      'gbdt',
      '--strategy',
      'hyperband',
      '--trials',
      '3',
      '--min-resource',
      '1',
      '--max-resource',
      '3',
      '--parallel',
      '1',
      '--space',
      sp,
      '--out',
      out,
      '--json',
    ])
    expect(r.code, r.stderr).toBe(0)
    const s = lastJson<ReturnType<typeof sweepSummary>>(r)
    const state = importSweep(readFileSync(join(out, 'sweep.json'), 'utf8'))
    const best = state.trials.find(t => t.id === s.best!.trial)!
    // The complete parameters: the searched ones and the rounds the best trial trained.
    expect(s.best!.params).toEqual({ ...best.config, num_round: best.curve.at(-1)!.resource })
    expect(state.best!.params).toEqual(s.best!.params)
    // Left at rung 0 without a promotion = pruned, as Optuna's HyperbandPruner reports them.
    const left = state.trials.filter(t => t.rung === 0 && !state.trials.some(x => x.promotedFrom === t.id))
    expect(left.length).toBeGreaterThan(0)
    expect(s.pruned).toBe(left.length)
    expect(s.complete + s.pruned + s.failed).toBe(s.trials)
    for (const t of left)
      expect(r.stderr).toMatch(new RegExp(`\\[trial ${t.id}\\] pruned +bracket 1 rung 0 num_round 1/1`))
    const promoted = state.trials.find(t => t.promotedFrom !== undefined)!
    expect(r.stderr).toMatch(
      new RegExp(`\\[trial ${promoted.id}\\] complete +bracket 1 rung 1 .* from #${promoted.promotedFrom}`),
    )
    expect(r.stderr).toContain(`Hyperband: 1 bracket, rungs at 1, 3 boosting rounds (η 3); ${s.trials} trials`)
    expect(r.stderr).toContain(`${s.pruned} pruned`)
    const again = join(tmp, 'hb-train')
    const t = await runMain([
      'train',
      ...data,
      '--valid-fraction',
      '0.2',
      '--params',
      JSON.stringify(s.best!.params),
      '--out',
      again,
    ])
    expect(t.code, t.stderr).toBe(0)
    expect(readFileSync(join(again, 'model.json')).equals(readFileSync(join(out, 'model.json')))).toBe(true)
  }, 180_000)
})

/** A trial of the helpers' sweep. */
function rec(id: number, status: TrialRecord['status'], over: Partial<TrialRecord> = {}): TrialRecord {
  return {
    id,
    config: { eta: 0.12345 },
    status,
    bracket: 1,
    rung: 0,
    resource: 3,
    curve: [{ resource: 3, metric: 0.8 - id / 100, elapsedMs: 1 }],
    metric: 0.8 - id / 100,
    gpuSeconds: 1.5,
    wallSeconds: 2,
    ...over,
  }
}

describe('sweep helpers', () => {
  it("prints each trial once its state is settled, in the strategy's words", () => {
    const state: SweepState = {
      ...newSweepState(
        {
          model: 'gbdt',
          table: 't',
          label: 'y',
          strategy: 'hyperband',
          minResource: 3,
          maxResource: 9,
          eta: 3,
          trials: 3,
        },
        's',
      ),
      trials: [rec(0, 'completed'), rec(1, 'completed'), rec(2, 'running')],
    }
    const printed = new Set<number>()
    // Rung 0 is not decided while trial 2 runs: nothing settled yet.
    expect(trialLines(state, printed)).toEqual([])
    state.trials[2] = rec(2, 'completed')
    state.trials.push(rec(3, 'running', { rung: 1, resource: 9, promotedFrom: 0, curve: [] }))
    expect(trialLines(state, printed)).toEqual([
      '[trial 0] complete bracket 1 rung 0 num_round 3/3 auc 0.80000 1.50 GPU-s eta=0.1235',
      '[trial 1] pruned   bracket 1 rung 0 num_round 3/3 auc 0.79000 1.50 GPU-s eta=0.1235',
      '[trial 2] pruned   bracket 1 rung 0 num_round 3/3 auc 0.78000 1.50 GPU-s eta=0.1235',
    ])
    expect(trialLines(state, printed)).toEqual([]) // once each
    state.trials[3] = rec(3, 'completed', {
      rung: 1,
      resource: 9,
      promotedFrom: 0,
      curve: [{ resource: 9, metric: 0.9, elapsedMs: 1 }],
      metric: 0.9,
    })
    expect(trialLines(state, printed)).toEqual([
      '[trial 3] complete bracket 1 rung 1 num_round 9/9 auc 0.90000 1.50 GPU-s from #0 eta=0.1235',
    ])
    // Random search: no brackets or rungs; ASHA: the rung a trial reached.
    const random = { ...state, config: { ...state.config, strategy: 'random' as const } }
    expect(trialLine(rec(1, 'completed', { bracket: 0 }), 'complete', random)).toBe(
      '[trial 1] complete num_round 3/3 auc 0.79000 1.50 GPU-s eta=0.1235',
    )
    const asha = { ...state, config: { ...state.config, strategy: 'asha' as const } }
    expect(trialLine(rec(1, 'stopped', { bracket: 0, resource: 9 }), 'pruned', asha)).toBe(
      '[trial 1] pruned   rung 0 num_round 3/9 auc 0.79000 1.50 GPU-s eta=0.1235',
    )
  })

  it("prints stage lines: only a step's end", () => {
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
