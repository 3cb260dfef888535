import { describe, expect, it } from 'vitest'
import { createStrategy, resolveStrategyOptions, validateStrategyOptions } from '../../../src/tune/strategy.ts'
import { parseSpace, sample } from '../../../src/tune/space.ts'
import { defaultSpace } from '../../../src/tune/defaults.ts'
import { Rng } from '../../../src/util/rng.ts'
import type { StrategyName, StrategyOptions, TrialRequest } from '../../../src/tune/types.ts'
import { replay, simulate } from './simulate.ts'
import { MODEL_PARAMS } from '../../../src/sweep/model-params.ts'
import { familyOf } from '../../../src/models/registry.ts'

const base: StrategyOptions = {
  strategy: 'random',
  trials: 10,
  seed: 1,
  minResource: 1,
  maxResource: 9,
  eta: 3,
  direction: 'maximize',
}

describe('validateStrategyOptions', () => {
  it.each([
    [{ trials: 0 }, /trials: must be a positive integer, got 0/],
    [{ trials: -3 }, /trials: must be a positive integer, got -3/],
    [{ trials: 2.5 }, /trials: must be a positive integer/],
    [{ eta: 1.5 }, /eta: must be a number ≥ 2, got 1\.5/],
    [{ minResource: 10, maxResource: 5 }, /minResource 10 > maxResource 5/],
    [{ minResource: 0 }, /minResource: must be an integer ≥ 1, got 0/],
    [{ gridPoints: 0 }, /gridPoints: must be an integer ≥ 1/],
    [{ strategy: 'bayes' }, /strategy: must be one of grid, random, hyperband, asha, tpe, bohb, got "bayes"/],
    [{ seed: 0.5 }, /seed: must be an integer/],
    [{ direction: 'up' }, /direction: must be 'maximize' or 'minimize'/],
  ] as const)('refuses %j', (patch, msg) => {
    expect(() => validateStrategyOptions({ ...base, ...patch } as StrategyOptions)).toThrow(msg)
    expect(() => createStrategy(parseSpace({ x: 1 }), { ...base, ...patch } as StrategyOptions)).toThrow(RangeError)
  })

  it('resolves defaults per model', () => {
    expect(resolveStrategyOptions(familyOf('gbdt'), { strategy: 'hyperband' })).toEqual({
      strategy: 'hyperband',
      seed: 0,
      minResource: 3,
      maxResource: 81,
      eta: 3,
      direction: 'maximize',
      resourceParam: 'num_round',
    })
    expect(resolveStrategyOptions(familyOf('recsys'), { strategy: 'asha', trials: 5, maxResource: 4 })).toMatchObject({
      minResource: 1,
      maxResource: 4,
      trials: 5,
      resourceParam: 'epochs',
    })
    expect(() => resolveStrategyOptions(familyOf('gbdt'), { strategy: 'random', trials: 0 })).toThrow(/trials/)
  })
})

describe('grid / random / tpe strategies', () => {
  const space = parseSpace(defaultSpace(familyOf('gbdt')), MODEL_PARAMS.gbdt)

  it('random: `trials` draws from Rng(seed), each at its num_round', () => {
    const o = resolveStrategyOptions(familyOf('gbdt'), { strategy: 'random', trials: 6, seed: 4 })
    const s = createStrategy(space, o)
    const reqs = Array.from({ length: 6 }, () => s.next() as TrialRequest)
    const rng = new Rng(4)
    expect(reqs.map(r => r.config)).toEqual(reqs.map(() => sample(space, rng)))
    expect(reqs.every(r => r.resource === r.config.num_round)).toBe(true)
    expect(s.next()).toBe('wait')
    reqs.forEach(r => expect(s.report(r.id, 1, 0.5)).toBe('continue'))
    reqs.forEach(r => s.complete(r.id, 'completed'))
    expect(s.next()).toBe('done')
    expect(s.plan()).toEqual([{ index: 0, rungs: [{ n: 6, resource: 81 }] }])
  })

  it('refuses reports for trials it never issued', () => {
    for (const name of ['random', 'hyperband', 'asha'] as StrategyName[]) {
      const s = createStrategy(space, resolveStrategyOptions(familyOf('gbdt'), { strategy: name, trials: 3 }))
      s.next()
      expect(() => s.report(5, 1, 0.5), name).toThrow(/trial 5: never issued/)
      expect(() => s.complete(7, 'completed', 0.5), name).toThrow(/trial 7: never issued/)
    }
  })

  it('random without the resource parameter in the space trains to maxResource', () => {
    const s = createStrategy(parseSpace({ eta: { type: 'uniform', low: 0.1, high: 0.3 } }), {
      ...base,
      resourceParam: 'num_round',
    })
    expect((s.next() as TrialRequest).resource).toBe(9)
  })

  it('grid: capped at trials, in grid order', () => {
    const sp = parseSpace({
      max_depth: { type: 'int', low: 2, high: 4 },
      eta: { type: 'categorical', choices: [0.1, 0.3] },
    })
    const s = createStrategy(sp, { ...base, strategy: 'grid', trials: 5 })
    const got = simulate(s, c => c.max_depth as number).requests.map(r => r.config)
    expect(got).toEqual([
      { eta: 0.1, max_depth: 2 },
      { eta: 0.1, max_depth: 3 },
      { eta: 0.1, max_depth: 4 },
      { eta: 0.3, max_depth: 2 },
      { eta: 0.3, max_depth: 3 },
    ])
    const all = simulate(createStrategy(sp, { ...base, strategy: 'grid', trials: undefined }), () => 0).requests
    expect(all).toHaveLength(6)
  })

  it.each(['grid', 'random', 'tpe', 'hyperband', 'asha', 'bohb'] as StrategyName[])(
    '%s: same seed and calls → same answers; replay agrees',
    name => {
      const o = resolveStrategyOptions(familyOf('gbdt'), { strategy: name, trials: 30, seed: 11, gridPoints: 2 })
      const f = (c: Record<string, unknown>, k: number): number =>
        (c.eta as number) - 0.01 * (c.max_depth as number) + 0.0001 * k
      const a = simulate(createStrategy(space, o), f, 3)
      expect(simulate(createStrategy(space, o), f, 3).calls).toEqual(a.calls)
      expect(replay(createStrategy(space, o), a.calls)).toEqual(a.calls)
      if (name !== 'grid') {
        const b = simulate(createStrategy(space, { ...o, seed: 12 }), f, 3)
        expect(b.requests.map(r => r.config)).not.toEqual(a.requests.map(r => r.config))
      }
    },
  )
})
