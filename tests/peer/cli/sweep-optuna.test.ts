/**
 * `snaptrain sweep` ↔ Optuna 3.1, for real (in-process CLI, the page in one shared headless
 * Chromium, marketing with age < 30):
 * - a 6-trial Hyperband sweep (1 → 3 rounds, η 3: three configurations at 1 round, the best
 *   promoted to 3, two more at 3) with --optuna-journal FILE: `optuna.load_study` has the 6 trials
 *   with snaptrain's states, values, params, learning curves (intermediate values), user attrs and
 *   best trial; DIR/optuna-journal.log is the same text;
 * - a sweep warm-started from that journal runs the journal's best configuration first, and the
 *   summary says how many trials seeded it;
 * - a journal Optuna wrote itself seeds a sweep: its first trial has that study's best params;
 * - a journal whose params are not the sweep's space: exit 2 naming it, before any browser.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { lastJson, runMain, shareAppPage } from '../../support/cli.ts'
import { pythonPeer } from '../../support/peers.ts'
import { loadStudy, runOptunaStudy } from '../../support/optuna-peer.ts'
import type { SweepSummary } from '../../../src/cli/sweep.ts'
import { importSweep } from '../../../src/tune/export.ts'
import type { SweepState } from '../../../src/tune/types.ts'
import { trialStates } from '../../../src/tune/trial-state.ts'
import { familyOf } from '../../../src/models/registry.ts'

/** The Optuna state of each trial of `s` (tune/trial-state.ts), in id order. */
const statesOf = (s: SweepState) =>
  [...s.trials].sort((a, b) => a.id - b.id).map(t => trialStates(s, familyOf('gbdt')).get(t.id))

const peer = pythonPeer(['optuna'])
const TABLE = 'public/tables/marketing'
const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-sweep-optuna-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
shareAppPage()

const SPACE = {
  eta: { type: 'loguniform', low: 0.1, high: 0.5 },
  max_depth: { type: 'int', low: 2, high: 4 },
  grow_policy: { type: 'categorical', choices: ['depthwise', 'lossguide'] },
  lambda: 1,
}

function file(name: string, json: unknown): string {
  const path = join(tmp, name)
  writeFileSync(path, JSON.stringify(json))
  return path
}

/** `snaptrain sweep` on marketing (age < 30), one trial at a time, with `args`. */
function sweep(args: string[]) {
  return runMain([
    'sweep',
    '--table',
    TABLE,
    '--label',
    'y',
    '--filter',
    'age < 30',
    '--model',
    'gbdt',
    '--parallel',
    '1',
    '--json',
    ...args,
  ])
}

describe.runIf(peer.run)('snaptrain sweep ↔ Optuna journal', () => {
  const journal = join(tmp, 'optuna.log')
  let first: SweepState

  it('a 6-trial Hyperband sweep → --optuna-journal → optuna.load_study: same trials, values, states, best', async () => {
    peer.require()
    const out = join(tmp, 'hb')
    const r = await sweep([
      '--strategy',
      'hyperband',
      '--min-resource',
      '1',
      '--max-resource',
      '3',
      '--eta',
      '3',
      '--seed',
      '4',
      '--space',
      file('space.json', SPACE),
      '--optuna-journal',
      journal,
      '--out',
      out,
    ])
    expect(r.code, r.stderr).toBe(0)
    first = importSweep(readFileSync(join(out, 'sweep.json'), 'utf8'))
    expect(first.trials).toHaveLength(6)
    expect(readFileSync(join(out, 'optuna-journal.log'), 'utf8')).toBe(readFileSync(journal, 'utf8'))

    const study = loadStudy(journal, first.id)
    expect(study.studies).toEqual([first.id])
    expect(study.direction).toBe('MAXIMIZE')
    expect(study.trials).toHaveLength(6)
    const trials = [...first.trials].sort((a, b) => a.id - b.id)
    // The two trials left at bracket 1's rung 0 without a promotion are PRUNED, as Optuna's HyperbandPruner reports them.
    expect(study.trials.map(t => t.state)).toEqual(statesOf(first))
    expect(statesOf(first).filter(x => x === 'PRUNED')).toHaveLength(2)
    expect(study.trials.map(t => t.value)).toEqual(trials.map(t => t.metric))
    for (const [i, t] of study.trials.entries()) {
      const { lambda, ...searched } = trials[i].config
      expect(lambda).toBe(1)
      expect(t.params).toEqual(searched)
      expect(t.intermediate).toEqual(Object.fromEntries(trials[i].curve.map(p => [String(p.resource), p.metric])))
      expect(t.user_attrs).toMatchObject({
        snaptrain_trial: trials[i].id,
        bracket: trials[i].bracket,
        rung: trials[i].rung,
        resource: trials[i].resource,
        fixed_params: { lambda: 1 },
      })
    }
    // Hyperband's promotion: trial 3 is trial 0, 1 or 2 again at 3 rounds.
    expect(trials.filter(t => t.promotedFrom !== undefined)).toHaveLength(1)
    expect(study.best).toEqual({ number: first.best!.trial, value: first.best!.metric, params: expect.any(Object) })
    // best.params: the complete train parameters (lambda fixed, num_round trained); Optuna's: the searched ones.
    const { lambda: _l, num_round: rounds, ...bestSearched } = first.best!.params
    expect(rounds).toBe(first.trials.find(t => t.id === first.best!.trial)!.curve.at(-1)!.resource)
    expect(study.best!.params).toEqual(bestSearched)
    expect(study.user_attrs).toMatchObject({
      table: first.config.table,
      table_version: first.config.version,
      label: 'y',
      filter: 'age < 30',
      metric: 'auc',
      strategy: 'hyperband',
      fixed_params: { lambda: 1 },
    })
    expect(typeof first.config.version).toBe('number')
  }, 240_000)

  it('a sweep warm-started from that journal runs its best configuration first; the summary counts the seeds', async () => {
    peer.require()
    if (!first) throw new Error('the Hyperband sweep above did not run')
    const out = join(tmp, 'warm')
    // One Hyperband trial (1 round): what the warm start decides is the first configuration.
    const r = await sweep([
      '--strategy',
      'hyperband',
      '--min-resource',
      '1',
      '--max-resource',
      '1',
      '--space',
      file('space.json', SPACE),
      '--warm-start-journal',
      journal,
      '--out',
      out,
    ])
    expect(r.code, r.stderr).toBe(0)
    const summary = lastJson<SweepSummary>(r)
    // Its COMPLETE trials seed it (the pruned ones do not).
    const complete = statesOf(first).filter(x => x === 'COMPLETE').length
    expect(summary.warm_start).toEqual({
      journal,
      study: first.id,
      seeded: complete,
      best_value: first.best!.metric,
    })
    expect(r.stderr).toContain(`warm-started from ${complete} finished trials of study ${first.id}`)
    const s = importSweep(readFileSync(join(out, 'sweep.json'), 'utf8'))
    // The best configuration (its searched parameters; best.params also holds the rounds it trained).
    expect(s.trials[0].config).toEqual(first.trials.find(t => t.id === first.best!.trial)!.config)
    // Its own journal says where it started from.
    const study = loadStudy(join(out, 'optuna-journal.log'), s.id)
    expect(study.user_attrs.warm_start).toEqual({ journal, study: first.id, trials: complete })
  }, 180_000)

  it("a journal Optuna wrote seeds a sweep: the first trial has that study's best params", async () => {
    peer.require()
    const path = join(tmp, 'optuna-made.log')
    const made = runOptunaStudy(path)
    const out = join(tmp, 'from-optuna')
    const space = {
      eta: { type: 'loguniform', low: 0.05, high: 0.5 },
      max_depth: { type: 'int', low: 2, high: 8 },
      min_child_weight: { type: 'loguniform', low: 0.5, high: 10 },
      grow_policy: { type: 'categorical', choices: ['depthwise', 'lossguide'] },
      num_round: 2,
    }
    const r = await sweep([
      '--strategy',
      'random',
      '--trials',
      '1',
      '--space',
      file('optuna-space.json', space),
      '--warm-start-journal',
      path,
      '--out',
      out,
    ])
    expect(r.code, r.stderr).toBe(0)
    expect(lastJson<SweepSummary>(r).warm_start).toMatchObject({ study: 'optuna-made', seeded: made.complete.length })
    const s = importSweep(readFileSync(join(out, 'sweep.json'), 'utf8'))
    expect(s.trials).toHaveLength(1)
    expect(s.trials[0].config).toEqual({ ...made.best, num_round: 2 })
    expect(s.trials[0].status).toBe('completed')
  }, 180_000)

  it('a journal with a parameter outside the space: exit 2 naming it, before any browser', async () => {
    peer.require()
    const path = join(tmp, 'optuna-made-2.log')
    runOptunaStudy(path)
    const r = await sweep([
      '--strategy',
      'random',
      '--trials',
      '1',
      '--space',
      file('small-space.json', { eta: { type: 'loguniform', low: 0.05, high: 0.5 }, num_round: 2 }),
      '--warm-start-journal',
      path,
      '--out',
      join(tmp, 'bad'),
    ])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(
      /--warm-start-journal: .*optuna-made-2\.log: study "optuna-made", trial 0: params\.max_depth: not in the sweep's space \(space: eta, num_round\)/,
    )
    const missing = await sweep(['--warm-start-journal', join(tmp, 'none.log'), '--out', join(tmp, 'bad')])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/--warm-start-journal: cannot read .*none\.log \(ENOENT\)/)
    const studyOnly = await sweep(['--warm-start-study', 'x', '--out', join(tmp, 'bad')])
    expect(studyOnly.stderr).toMatch(/--warm-start-study: needs --warm-start-journal/)
  })
})
