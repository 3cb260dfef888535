/**
 * Sweep validation before anything runs (planSweep / checkParallel / resolveParallel), the
 * full-budget figure per strategy kind, and resume from a sweep stored without its call log.
 */
import { describe, expect, it } from 'vitest'
import { checkParallel, planSweep, resolveParallel } from '../../../src/sweep/plan.ts'
import { fullBudget } from '../../../src/sweep/plan.ts'
import { logFromTrials, replaySweep } from '../../../src/tune/replay.ts'
import { newSweepState } from '../../../src/tune/sweep-state.ts'
import type { AdapterSummary } from '../../../src/gpu/types.ts'
import type { SweepConfig, SweepState, TrialRecord } from '../../../src/tune/types.ts'
import { createStrategy, resolveStrategyOptions } from '../../../src/tune/strategy.ts'
import { parseSpace } from '../../../src/tune/space.ts'
import { MODEL_PARAMS } from '../../../src/sweep/model-params.ts'
import { familyOf } from '../../../src/models/registry.ts'

const BASE: SweepConfig = {
  model: 'gbdt',
  table: 'http://h/t/',
  label: 'y',
  strategy: 'hyperband',
  minResource: 1,
  maxResource: 27,
  eta: 3,
}
const SOFTWARE = {
  vendor: 'google',
  architecture: 'swiftshader',
  device: '',
  description: '',
  isFallbackAdapter: true,
  features: [],
  limits: {},
} as AdapterSummary
const GPU = { ...SOFTWARE, vendor: 'nvidia', architecture: 'hopper', isFallbackAdapter: false } as AdapterSummary

describe('planSweep', () => {
  it('plans Hyperband: trials, brackets and resource vs full budget', () => {
    const p = planSweep(BASE)
    expect(p.errors).toEqual([])
    expect(p.brackets.map(b => b.rungs.map(r => `${r.n}@${r.resource}`).join(' '))).toEqual([
      '27@1 9@3 3@9 1@27',
      '12@3 4@9 1@27',
      '6@9 2@27',
      '4@27',
    ])
    expect([p.trials, p.resourceTotal, p.resourceFullBudget]).toEqual([69, 423, 49 * 27])
  })

  it('names every bad input: space, trials, parallel', () => {
    const p = planSweep({ ...BASE, space: { eta: { type: 'loguniform', low: -1, high: 1 } }, parallel: 99 })
    expect(p.errors).toEqual([
      expect.stringMatching(/^space\.eta: /),
      'parallel: at most 8 trials in parallel on any adapter, got 99',
    ])
    expect(planSweep({ ...BASE, strategy: 'random', trials: 0 }).errors).toEqual([
      'trials: must be a positive integer, got 0',
    ])
    expect(planSweep({ ...BASE, model: 'svm' as never }).errors[0]).toMatch(/^model: must be 'gbdt'(, | or )'recsys'/)
  })

  it('limits parallelism by adapter and picks its default', () => {
    expect(() => checkParallel(5, SOFTWARE)).toThrow(
      'parallel: at most 4 trials in parallel on google swiftshader (fallback), got 5',
    )
    expect(() => checkParallel(8, GPU)).not.toThrow()
    expect(resolveParallel(BASE, SOFTWARE)).toBe(2)
    expect(resolveParallel(BASE, GPU)).toBe(4)
    expect(resolveParallel({ ...BASE, parallel: 3 }, SOFTWARE)).toBe(3)
  })
})

function trial(id: number, resource: number, reached: number, gpuSeconds: number, promotedFrom?: number): TrialRecord {
  const curve = Array.from({ length: reached }, (_, i) => ({ resource: i + 1, metric: 0.5, elapsedMs: 0 }))
  return {
    id,
    config: { x: id },
    status: 'completed',
    bracket: 0,
    rung: 0,
    resource,
    curve,
    metric: 0.5,
    gpuSeconds,
    wallSeconds: 1,
    ...(promotedFrom !== undefined ? { promotedFrom } : {}),
  }
}

describe('fullBudget', () => {
  it('Hyperband: each lineage at R; random: each trial at its own requested resource', () => {
    const hb: SweepState = {
      ...newSweepState(BASE),
      trials: [trial(0, 3, 3, 3), trial(1, 3, 3, 6), trial(2, 9, 9, 9, 0)],
    }
    expect(fullBudget(hb, 27)).toBeCloseTo(27 + 6 * 9, 9)
    const rnd: SweepState = {
      ...newSweepState({ ...BASE, strategy: 'random' }),
      trials: [trial(0, 5, 5, 10), trial(1, 20, 2, 1)],
    }
    expect(fullBudget(rnd, 81)).toBeCloseTo(10 + 10, 9)
  })
})

describe('replay without a stored log', () => {
  it('rebuilds the log from the trials and leaves only the unfinished trial to run', () => {
    const space = parseSpace({ eta: { type: 'uniform', low: 0.1, high: 0.3 } }, MODEL_PARAMS.gbdt)
    const o = resolveStrategyOptions(familyOf('gbdt'), { strategy: 'random', trials: 3, seed: 4, maxResource: 5 })
    const first = createStrategy(space, o)
    const reqs = [first.next(), first.next(), first.next()].map(r => (typeof r === 'string' ? undefined : r)!)
    const state: SweepState = {
      ...newSweepState({ ...BASE, strategy: 'random' }),
      trials: reqs.map((r, i) => ({
        ...trial(r.id, r.resource, i === 2 ? 1 : r.resource, 1),
        config: r.config,
        status: i === 2 ? 'running' : 'completed',
      })),
    }
    expect(logFromTrials(state).filter(e => e[0] === 'c')).toHaveLength(2)
    const { rerun, reported } = replaySweep(createStrategy(space, o), state)
    expect(rerun.map(r => r.id)).toEqual([reqs[2].id])
    expect(reported.get(reqs[2].id)).toBe(1)
  })
})
