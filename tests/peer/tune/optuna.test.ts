/**
 * Sweeps ↔ Optuna (src/tune/optuna.ts) against Optuna 3.1 itself (python3-optuna):
 * - a sweep with every trial state (completed, stopped, failed, running, pending) and every domain
 *   (log float, float, int, log int, categorical with an array choice, fixed) written as a journal
 *   opens with `optuna.load_study`: same states, values (a pruned trial carries its last
 *   intermediate value), params, distributions, intermediate values, user attrs and best trial; and
 *   Optuna goes on from it (its next trial runs the pending one, WAITING; read back here);
 * - appended to a journal Optuna wrote, the study gets the next study id and both studies load;
 * - a journal Optuna wrote (its own study: pruned and failed trials too) warm-starts every strategy:
 *   the first request is that study's best params, and TPE's later proposals change with the priors;
 * - bad journals and mismatches are errors naming the journal, study, trial and parameter.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pythonPeer } from '../../support/peers.ts'
import { loadStudy, runOptunaStudy, type OptunaStudy } from '../../support/optuna-peer.ts'
import { optunaJournal, readJournal, warmStartFromJournal } from '../../../src/tune/optuna.ts'
import { parseSpace } from '../../../src/tune/space.ts'
import { createStrategy, resolveStrategyOptions, STRATEGY_NAMES } from '../../../src/tune/strategy.ts'
import { bestOf, newSweepState } from '../../../src/tune/sweep-state.ts'
import type { StrategyName, SweepConfig, SweepState, TrialRecord } from '../../../src/tune/types.ts'
import { familyOf } from '../../../src/models/registry.ts'

const peer = pythonPeer(['optuna'])
const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-optuna-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const SPACE = {
  eta: { type: 'loguniform', low: 0.05, high: 0.5 },
  alpha: { type: 'uniform', low: 0, high: 2 },
  max_depth: { type: 'int', low: 2, high: 8 },
  max_bin: { type: 'int', low: 16, high: 256, log: true },
  layers: { type: 'categorical', choices: [[64], [128, 64]] },
  grow_policy: { type: 'categorical', choices: ['depthwise', 'lossguide'] },
  lambda: 1,
}
const CONFIG: SweepConfig = {
  model: 'gbdt',
  table: 'file:///data/marketing/',
  version: 3,
  label: 'y',
  strategy: 'hyperband',
  metric: 'auc',
  seed: 5,
  minResource: 1,
  maxResource: 9,
  eta: 3,
  space: SPACE,
  fixed: { max_cat_to_onehot: 4 },
}

function trial(
  id: number,
  status: TrialRecord['status'],
  curve: number[],
  over: Partial<TrialRecord> = {},
): TrialRecord {
  const config = {
    alpha: 0.5 + id / 10,
    eta: 0.1 + id / 100,
    grow_policy: id % 2 ? 'lossguide' : 'depthwise',
    lambda: 1,
    layers: id % 2 ? [128, 64] : [64],
    max_bin: 16 * (id + 1),
    max_depth: 2 + id,
  }
  const t: TrialRecord = {
    id,
    config,
    status,
    bracket: 1,
    rung: 0,
    resource: 9,
    curve: curve.map((metric, i) => ({ resource: i + 1, metric, elapsedMs: 10 * i })),
    gpuSeconds: 0.5,
    wallSeconds: 1,
    startedAt: '2025-01-02T03:04:05.678Z',
    ...over,
  }
  if (curve.length && status !== 'failed') t.metric = curve.at(-1)
  if (status !== 'running' && status !== 'pending') t.endedAt = '2025-01-02T03:05:00.000Z'
  return t
}

/** A sweep with each trial state: 0 completed, 1 stopped, 2 failed, 3 completed (promoted, best), 4 running, 5 pending. */
function sweep(): SweepState {
  const s = newSweepState(CONFIG, 'sweep-20250102T030405Z-abcd')
  s.status = 'stopped'
  s.trials = [
    trial(0, 'completed', [0.7, 0.72, 0.75]),
    trial(1, 'stopped', [0.6]),
    trial(2, 'failed', [0.65], { error: 'GPU device lost (destroyed): gone' }),
    trial(3, 'completed', [0.7, 0.76, 0.78, 0.8, 0.8, 0.805, 0.807, 0.809, 0.81], { promotedFrom: 0, rung: 1 }),
    trial(4, 'running', [0.5]),
    trial(5, 'pending', [], { startedAt: undefined }),
  ]
  s.best = bestOf(s)
  return s
}

describe.runIf(peer.run)('a sweep as an Optuna journal, loaded by Optuna 3.1', () => {
  it('has the same trials, states, values, params, distributions, curves, attrs and best trial', () => {
    peer.require()
    const s = sweep()
    const path = join(tmp, 'sweep.log')
    writeFileSync(path, optunaJournal(s, familyOf('gbdt')))
    const got = loadStudy(path, s.id, true)
    expect(got.direction).toBe('MAXIMIZE')
    expect(got.trials.map(t => t.state)).toEqual(['COMPLETE', 'PRUNED', 'FAIL', 'COMPLETE', 'RUNNING', 'WAITING'])
    // A pruned trial's value is its last intermediate value, as Optuna records one; a failed one has none.
    expect(got.trials.map(t => t.value)).toEqual([0.75, 0.6, null, 0.81, null, null])
    expect(got.trials.map(t => [t.started, t.completed])).toEqual([
      [true, true],
      [true, true],
      [true, true],
      [true, true],
      [true, false],
      [false, false],
    ])
    expect(got.best).toEqual({ number: s.best!.trial, value: s.best!.metric, params: got.trials[3].params })
    expect(s.best!.trial).toBe(3)
    for (const [i, t] of got.trials.entries()) {
      const rec = s.trials[i]
      const { lambda: _fixed, layers, ...numeric } = rec.config
      // Searched parameters as Optuna params (an array choice as its JSON text); the fixed one as a user attr.
      expect(t.params).toEqual({ ...numeric, layers: JSON.stringify(layers) })
      expect(t.intermediate).toEqual(Object.fromEntries(rec.curve.map(p => [String(p.resource), p.metric])))
      expect(t.user_attrs).toMatchObject({
        snaptrain_trial: rec.id,
        snaptrain_status: rec.status,
        bracket: rec.bracket,
        rung: rec.rung,
        resource: 9,
        fixed_params: { lambda: 1 },
      })
    }
    expect(got.trials[3].user_attrs.promoted_from).toBe(0)
    expect(got.trials[3].user_attrs.reached).toBe(9)
    expect(got.trials[2].user_attrs.error).toBe('GPU device lost (destroyed): gone')
    expect(got.trials[0].distributions).toEqual({
      alpha: { name: 'FloatDistribution', low: 0, high: 2, log: false, step: null },
      eta: { name: 'FloatDistribution', low: 0.05, high: 0.5, log: true, step: null },
      grow_policy: { name: 'CategoricalDistribution', choices: ['depthwise', 'lossguide'] },
      layers: { name: 'CategoricalDistribution', choices: ['[64]', '[128,64]'] },
      max_bin: { name: 'IntDistribution', low: 16, high: 256, log: true, step: 1 },
      max_depth: { name: 'IntDistribution', low: 2, high: 8, log: false, step: 1 },
    })
    expect(got.user_attrs).toMatchObject({
      snaptrain_sweep: s.id,
      table: 'file:///data/marketing/',
      table_version: 3,
      label: 'y',
      metric: 'auc',
      strategy: 'hyperband',
      seed: 5,
      min_resource: 1,
      max_resource: 9,
      fixed_params: { max_cat_to_onehot: 4, lambda: 1 },
      snaptrain_best_trial: 3,
      snaptrain_best_value: 0.81,
      snaptrain_best_params: s.best!.params,
      space: SPACE,
    })
    // Optuna took the study up: its next trial ran our pending (WAITING) trial 5 with its params,
    // and our reader sees Optuna's own operations on it.
    expect(got.added).toEqual(got.trials[5].params)
    const studies = readJournal(readFileSync(path, 'utf8'))
    expect(studies[0].trials).toHaveLength(6)
    expect(studies[0].trials[5]).toMatchObject({ number: 5, state: 'COMPLETE', params: got.added })
  })

  it('a logloss sweep is a minimize study', () => {
    peer.require()
    const s = { ...sweep(), config: { ...CONFIG, metric: 'logloss' as const } }
    const path = join(tmp, 'logloss.log')
    writeFileSync(path, optunaJournal(s, familyOf('gbdt')))
    expect(loadStudy(path, s.id).direction).toBe('MINIMIZE')
  })

  it('appended to a journal Optuna wrote: the next study id, both studies load', () => {
    peer.require()
    const path = join(tmp, 'shared.log')
    runOptunaStudy(path)
    const s = sweep()
    writeFileSync(path, readFileSync(path, 'utf8') + optunaJournal(s, familyOf('gbdt'), readFileSync(path, 'utf8')))
    const got = loadStudy(path, s.id)
    expect(got.studies).toEqual(['optuna-made', s.id])
    expect(got.trials).toHaveLength(6)
    expect(got.best?.number).toBe(3)
    expect(() => optunaJournal(s, familyOf('gbdt'), readFileSync(path, 'utf8'))).toThrow(
      `already holds a study named ${s.id}`,
    )
  })
})

describe.runIf(peer.run)('a journal Optuna wrote warm-starts a sweep', () => {
  const config: SweepConfig = {
    ...CONFIG,
    space: {
      eta: { type: 'loguniform', low: 0.05, high: 0.5 },
      max_depth: { type: 'int', low: 2, high: 8 },
      min_child_weight: { type: 'loguniform', low: 0.5, high: 10 },
      grow_policy: { type: 'categorical', choices: ['depthwise', 'lossguide'] },
      num_round: { type: 'int', low: 1, high: 9 },
      lambda: 1,
    },
  }
  const space = parseSpace(config.space)
  const path = join(tmp, 'optuna-made.log')
  let study: OptunaStudy
  beforeAll(() => {
    if (peer.available) study = runOptunaStudy(path)
  }, 120_000)

  it('its COMPLETE trials are the priors, and every strategy starts from the best params', () => {
    peer.require()
    expect(study.states.filter(s => s === 'PRUNED')).toHaveLength(1)
    expect(study.states.filter(s => s === 'FAIL')).toHaveLength(1)
    const warm = warmStartFromJournal(readFileSync(path, 'utf8'), config, familyOf('gbdt'), {
      journal: 'optuna-made.log',
    })
    expect(warm.study).toBe('optuna-made')
    // The pruned and the failed trial are not priors; the others keep Optuna's params and values,
    // with the space's fixed value and the resource (the last reported step, 3) filled in.
    expect(warm.trials.map(t => [t.number, t.metric])).toEqual(study.complete.map(t => [t.number, t.value]))
    for (const [i, t] of warm.trials.entries())
      expect(t.config).toEqual({ ...study.complete[i].params, lambda: 1, num_round: 3 })
    expect(warm.trials.every(t => t.resource === 3)).toBe(true)

    for (const strategy of STRATEGY_NAMES) {
      const o = resolveStrategyOptions(familyOf('gbdt'), {
        strategy,
        seed: 2,
        trials: 4,
        minResource: 1,
        maxResource: 9,
        prior: warm.trials,
      })
      const first = createStrategy(space, o).next()
      if (typeof first === 'string') throw new Error(`${strategy}: no first trial`)
      expect(first.config, strategy).toMatchObject({ ...study.best, lambda: 1 })
      // Rung strategies set the resource themselves; flat ones train the prior's resource.
      if (['hyperband', 'asha', 'bohb'].includes(strategy)) expect(first.config).not.toHaveProperty('num_round')
      else expect(first.resource, strategy).toBe(3)
    }
  })

  it('TPE fits the priors: past the first trial it proposes from them', () => {
    peer.require()
    const warm = warmStartFromJournal(readFileSync(path, 'utf8'), config, familyOf('gbdt'), {
      journal: 'optuna-made.log',
    })
    const proposals = (prior?: typeof warm.trials) => {
      const s = createStrategy(
        space,
        resolveStrategyOptions(familyOf('gbdt'), { strategy: 'tpe' as StrategyName, seed: 2, trials: 4, prior }),
      )
      return [0, 1, 2].map(() => {
        const r = s.next()
        if (typeof r === 'string') throw new Error('no trial')
        return r.config
      })
    }
    // 10 priors reach TPE's 10 start-up trials: it models at once instead of drawing at random.
    // Given only the best prior, the first trial is the same and the rest are random draws, so
    // were the priors left out of the model, both sequences would be equal.
    expect(warm.trials).toHaveLength(10)
    const best = warm.trials.reduce((a, b) => (b.metric > a.metric ? b : a))
    const seeded = proposals(warm.trials)
    const bestOnly = proposals([best])
    expect(seeded[0]).toEqual(bestOnly[0])
    expect(seeded[1]).not.toEqual(bestOnly[1])
    expect(seeded[2]).not.toEqual(bestOnly[2])
  })
})

describe('reading journals: errors name the journal, study, trial and parameter', () => {
  const s = sweep()
  const journal = optunaJournal(s, familyOf('gbdt'))
  const lines = journal.trim().split('\n')

  it('reads back its own journal: studies, numbers, states, params', () => {
    const [study] = readJournal(journal)
    expect(study.name).toBe(s.id)
    expect(study.directions).toEqual(['maximize'])
    expect(study.trials.map(t => t.state)).toEqual(['COMPLETE', 'PRUNED', 'FAIL', 'COMPLETE', 'RUNNING', 'WAITING'])
    expect(study.trials[3].params.layers).toBe('[128,64]')
    const warm = warmStartFromJournal(journal, CONFIG, familyOf('gbdt'), { journal: 'j.log' })
    expect(warm.trials.map(t => t.number)).toEqual([0, 3])
    // Array choices come back as arrays; the fixed parameter is the space's.
    expect(warm.trials[1].config).toEqual(s.trials[3].config)
  })

  it('a parameter outside the space', () => {
    const space = { ...SPACE } as Record<string, unknown>
    delete space.alpha
    expect(() => warmStartFromJournal(journal, { ...CONFIG, space }, familyOf('gbdt'), { journal: 'j.log' })).toThrow(
      /^j\.log: study "sweep-[^"]+", trial 0: params\.alpha: not in the sweep's space \(space: eta, grow_policy, lambda, layers, max_bin, max_depth\)$/,
    )
  })

  it('a value outside its domain, a missing searched parameter, a fixed value that differs', () => {
    const narrow = { ...SPACE, max_depth: { type: 'int', low: 2, high: 4 } }
    expect(() =>
      warmStartFromJournal(journal, { ...CONFIG, space: narrow }, familyOf('gbdt'), { journal: 'j.log' }),
    ).toThrow('trial 3: params.max_depth: 5 is outside [2, 4]')
    const more = { ...SPACE, gamma: { type: 'uniform', low: 0, high: 1 } }
    expect(() =>
      warmStartFromJournal(journal, { ...CONFIG, space: more }, familyOf('gbdt'), { journal: 'j.log' }),
    ).toThrow('trial 0: params.gamma: missing: the sweep searches it')
    const fixedEta = { ...SPACE, eta: 0.3 }
    expect(() =>
      warmStartFromJournal(journal, { ...CONFIG, space: fixedEta }, familyOf('gbdt'), { journal: 'j.log' }),
    ).toThrow('trial 0: params.eta: fixed at 0.3 in the space, got 0.1')
  })

  it('direction or metric of another kind, no finished trial, several studies, no such study', () => {
    expect(() =>
      warmStartFromJournal(journal, { ...CONFIG, metric: 'logloss' }, familyOf('gbdt'), { journal: 'j.log' }),
    ).toThrow(/direction maximize, but the sweep's metric logloss is to minimize/)
    const gauc = optunaJournal({ ...s, id: 'g', config: { ...CONFIG, metric: 'gauc' } }, familyOf('gbdt'))
    expect(() => warmStartFromJournal(gauc, CONFIG, familyOf('gbdt'), { journal: 'j.log' })).toThrow(
      'its trials measured "gauc", the sweep auc',
    )
    const noneDone = optunaJournal({ ...s, trials: s.trials.filter(t => t.status !== 'completed') }, familyOf('gbdt'))
    expect(() => warmStartFromJournal(noneDone, CONFIG, familyOf('gbdt'), { journal: 'j.log' })).toThrow(
      'no COMPLETE trial with a value to warm-start from',
    )
    const two = journal + optunaJournal({ ...s, id: 'other' }, familyOf('gbdt'), journal)
    expect(readJournal(two).map(x => [x.id, x.name])).toEqual([
      [0, s.id],
      [1, 'other'],
    ])
    expect(() => warmStartFromJournal(two, CONFIG, familyOf('gbdt'), { journal: 'j.log' })).toThrow(
      `j.log: holds 2 studies ("${s.id}", "other"); name the study to seed from`,
    )
    expect(warmStartFromJournal(two, CONFIG, familyOf('gbdt'), { journal: 'j.log', study: 'other' }).study).toBe(
      'other',
    )
    expect(() => warmStartFromJournal(two, CONFIG, familyOf('gbdt'), { journal: 'j.log', study: 'nope' })).toThrow(
      'j.log: no study named "nope"',
    )
  })

  it('a line that is not JSON (a cut-short last line is skipped, as Optuna does), an unknown op code', () => {
    expect(readJournal(lines.join('\n') + '\n{"op_code": 4, "wor')[0].trials).toHaveLength(6)
    expect(() => readJournal([lines[0], '{oops', ...lines.slice(1)].join('\n'), 'j.log')).toThrow(
      /^j\.log line 2: not JSON/,
    )
    const bad = [lines[0], JSON.stringify({ op_code: 42, worker_id: 'w' }), ...lines.slice(1)].join('\n')
    expect(() => readJournal(bad, 'j.log')).toThrow(
      'j.log line 2: unknown op_code 42 (an Optuna 3.x journal has 0 … 9)',
    )
  })
})
