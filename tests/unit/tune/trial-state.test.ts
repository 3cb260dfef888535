/**
 * Trial states as Optuna reads them (tune/trial-state.ts, the one mapping of the journal, the page
 * and the CLI): a Hyperband trial left at a rung below its bracket's last is PRUNED once the rung's
 * promotions are issued, COMPLETE while they are not and when promoted; ASHA's stopped trials are
 * PRUNED; random search has none. The best trial's params are its complete train parameters. The
 * strategy's sentence and rungs.
 */
import { describe, expect, it } from 'vitest'
import { bestTrial } from '../../../src/tune/best.ts'
import { rungReached, stateCounts, strategyLine, trialStates } from '../../../src/tune/trial-state.ts'
import { newSweepState } from '../../../src/tune/sweep-state.ts'
import type { SweepConfig, SweepFamily, SweepState, TrialRecord } from '../../../src/tune/types.ts'

const FAMILY: SweepFamily = {
  name: 'gbdt',
  resource: { param: 'num_round', many: 'boosting rounds' },
  sweep: { resources: { minResource: 1, maxResource: 9, eta: 3 }, space: {} },
}

function trial(id: number, status: TrialRecord['status'], over: Partial<TrialRecord> = {}): TrialRecord {
  const resource = over.resource ?? 1
  return {
    id,
    config: { eta: id / 10 },
    status,
    bracket: 2,
    rung: 0,
    resource,
    curve: status === 'pending' ? [] : [{ resource, metric: 0.5 + id / 100, elapsedMs: 1 }],
    ...(status === 'pending' || status === 'failed' ? {} : { metric: 0.5 + id / 100 }),
    gpuSeconds: 1,
    wallSeconds: 1,
    ...over,
  }
}

function sweep(config: Partial<SweepConfig>, trials: TrialRecord[], status: SweepState['status'] = 'running') {
  const s = newSweepState({ model: 'gbdt', table: 't', label: 'y', strategy: 'hyperband', ...config }, 's')
  return { ...s, status, trials }
}

const states = (s: SweepState) => [...trialStates(s, FAMILY).values()]

describe('trialStates', () => {
  // Bracket 2 of Hyperband 1 → 9 (η 3): 9 configurations at 1 round, 3 promoted to 3, 1 to 9.
  const rung0 = Array.from({ length: 9 }, (_, i) => trial(i, 'completed'))

  it('Hyperband: a rung left without promotion is pruned once its promotions are issued, not before', () => {
    // All 9 ended, the first 2 of 3 promotions issued: the rung is not decided, all read COMPLETE.
    const promoted = (id: number, from: number, st: TrialRecord['status'] = 'running') =>
      trial(id, st, { rung: 1, resource: 3, promotedFrom: from })
    let s = sweep({}, [...rung0, promoted(9, 8), promoted(10, 7)])
    expect(states(s).slice(0, 9)).toEqual(Array(9).fill('COMPLETE'))
    // The third promotion issued: the 6 left behind are PRUNED, the promoted ones COMPLETE.
    s = sweep({}, [...rung0, promoted(9, 8), promoted(10, 7), promoted(11, 6)])
    expect(states(s)).toEqual([...Array(6).fill('PRUNED'), ...Array(3).fill('COMPLETE'), ...Array(3).fill('RUNNING')])
    expect(stateCounts(trialStates(s, FAMILY))).toEqual({ running: 3, complete: 3, pruned: 6, failed: 0, waiting: 0 })
    // A stopped (resumable) sweep whose rung was never decided: nothing is pruned.
    expect(states(sweep({}, rung0, 'stopped'))).toEqual(Array(9).fill('COMPLETE'))
    // A finished one: every rung decided; the bracket's last rung is COMPLETE.
    const done = sweep({}, [...rung0, trial(9, 'completed', { rung: 2, resource: 9, promotedFrom: 8 })], 'finished')
    expect(states(done)).toEqual([...Array(8).fill('PRUNED'), 'COMPLETE', 'COMPLETE'])
  })

  it('rung 1 → 2: the two of three not promoted are pruned once the one promotion is issued', () => {
    const rung1 = [8, 7, 6].map((from, i) => trial(9 + i, 'completed', { rung: 1, resource: 3, promotedFrom: from }))
    const base = [...rung0, ...rung1]
    expect(states(sweep({}, base)).slice(9)).toEqual(Array(3).fill('COMPLETE'))
    const s = sweep({}, [...base, trial(12, 'running', { rung: 2, resource: 9, promotedFrom: 10 })])
    expect(states(s).slice(9)).toEqual(['PRUNED', 'COMPLETE', 'PRUNED', 'RUNNING'])
  })

  it('ASHA: stopped → PRUNED; random: completed below the largest resource stays COMPLETE; the other states', () => {
    const asha = sweep({ strategy: 'asha' }, [
      trial(0, 'completed', { bracket: 0, resource: 9 }),
      trial(1, 'stopped', { bracket: 0, resource: 9 }),
    ])
    expect(states(asha)).toEqual(['COMPLETE', 'PRUNED'])
    const random = sweep({ strategy: 'random' }, [
      trial(0, 'completed', { bracket: 0, rung: 0, resource: 3 }),
      trial(1, 'failed', { bracket: 0 }),
      trial(2, 'completed', { bracket: 0, metric: Number.NaN }),
      trial(3, 'running', { bracket: 0 }),
      trial(4, 'pending', { bracket: 0 }),
    ])
    expect(states(random)).toEqual(['COMPLETE', 'FAIL', 'FAIL', 'RUNNING', 'WAITING'])
  })
})

describe('best params and words', () => {
  it("the best trial's params are its complete train parameters (resource included), its config without them", () => {
    const t = trial(3, 'stopped', { params: { eta: 0.3, max_depth: 4, num_round: 2 } })
    expect(bestTrial([t], 'maximize')!.params).toEqual({ eta: 0.3, max_depth: 4, num_round: 2 })
    expect(bestTrial([{ ...t, params: undefined }], 'maximize')!.params).toEqual({ eta: 0.3 })
  })

  it('says each strategy in its own words; ASHA rungs reached', () => {
    const s = (strategy: SweepConfig['strategy'], trials: TrialRecord[], more: Partial<SweepConfig> = {}) =>
      strategyLine(sweep({ strategy, maxResource: 27, minResource: 1, ...more }, trials), FAMILY)
    const plain = [trial(0, 'completed', { resource: 27 }), trial(1, 'completed', { resource: 27 })]
    expect(s('random', plain)).toBe('random search: 2 trials at 27 boosting rounds')
    expect(s('tpe', plain)).toBe('TPE: 2 trials at 27 boosting rounds')
    expect(s('grid', [trial(0, 'completed', { resource: 3 }), trial(1, 'completed', { resource: 27 })])).toBe(
      'grid search: 2 trials at 3–27 boosting rounds',
    )
    expect(s('asha', plain)).toBe('ASHA: 2 trials up to 27 boosting rounds, rungs at 1, 3, 9 (η 3)')
    expect(s('hyperband', [...plain, trial(2, 'running', { promotedFrom: 0 })])).toBe(
      'Hyperband: 4 brackets, rungs at 1, 3, 9, 27 boosting rounds (η 3); 3 trials, 1 of them promotion',
    )
    const asha = sweep({ strategy: 'asha', minResource: 1, maxResource: 27 }, [])
    const at = (r: number) =>
      rungReached(trial(0, 'stopped', { curve: [{ resource: r, metric: 1, elapsedMs: 1 }] }), asha, FAMILY)
    expect([1, 2, 3, 8, 9, 26, 27].map(at)).toEqual([0, 0, 1, 1, 2, 2, 3])
    expect(rungReached(trial(0, 'completed'), sweep({ strategy: 'random' }, []), FAMILY)).toBeUndefined()
  })
})
