import { describe, expect, it } from 'vitest'
import { createStrategy } from '../../../src/tune/strategy.ts'
import { tpeSuggest } from '../../../src/tune/tpe.ts'
import { createBohb, largestBudgetObservations } from '../../../src/tune/bohb.ts'
import { parseSpace, sample } from '../../../src/tune/space.ts'
import { Rng } from '../../../src/util/rng.ts'
import type { StrategyName, StrategyOptions, TrialConfig, TrialRequest } from '../../../src/tune/types.ts'
import { simulate } from './simulate.ts'

/** 4-D: Branin (x, y) + a log-scale dim with its optimum at 1e-2 + an int dim with its optimum at 7. Minimum 0.397887. */
const space = parseSpace({
  x: { type: 'uniform', low: -5, high: 10 },
  y: { type: 'uniform', low: 0, high: 15 },
  lr: { type: 'loguniform', low: 1e-5, high: 1 },
  k: { type: 'int', low: 0, high: 10 },
})
function objective(c: TrialConfig): number {
  const x = c.x as number,
    y = c.y as number
  const b =
    (y - (5.1 / (4 * Math.PI ** 2)) * x * x + (5 / Math.PI) * x - 6) ** 2 +
    10 * (1 - 1 / (8 * Math.PI)) * Math.cos(x) +
    10
  return b + 2 * (Math.log10(c.lr as number) + 2) ** 2 + 0.5 * ((c.k as number) - 7) ** 2
}
const opts = (strategy: StrategyName, seed: number): StrategyOptions => ({
  strategy,
  trials: 50,
  seed,
  minResource: 1,
  maxResource: 1,
  eta: 3,
  direction: 'minimize',
})

function bestOf(strategy: StrategyName, seed: number): number {
  const sim = simulate(createStrategy(space, opts(strategy, seed)), c => objective(c), 1)
  return Math.min(...[...sim.ended.values()].map(e => e.metric!))
}

describe('TPE', () => {
  it('beats random search on a 4-D shifted Branin over 50 trials (mean best of 6 seeds)', () => {
    const seeds = [1, 2, 3, 4, 5, 6]
    const tpe = seeds.map(s => bestOf('tpe', s)),
      rnd = seeds.map(s => bestOf('random', s))
    const mean = (v: number[]): number => v.reduce((a, b) => a + b, 0) / v.length
    console.log(
      `TPE vs random, mean best of ${seeds.length} seeds over 50 trials: tpe ${mean(tpe).toFixed(3)} random ${mean(rnd).toFixed(3)} (optimum 0.398)`,
    )
    expect(mean(tpe)).toBeLessThan(mean(rnd))
  })

  it('draws its first nStartup configurations at random (same as random search with the seed)', () => {
    const reqs = simulate(createStrategy(space, opts('tpe', 9)), c => objective(c)).requests
    const rng = new Rng(9)
    expect(reqs.slice(0, 10).map(r => r.config)).toEqual(reqs.slice(0, 10).map(() => sample(space, rng)))
  })

  it('ignores pending trials: with nothing finished, parallel draws stay random', () => {
    const s = createStrategy(space, opts('tpe', 2))
    const rng = new Rng(2)
    const reqs = Array.from({ length: 15 }, () => s.next() as TrialRequest)
    expect(reqs.map(r => r.config)).toEqual(reqs.map(() => sample(space, rng)))
  })

  it('concentrates near the good observations', () => {
    const s1 = parseSpace({
      u: { type: 'uniform', low: 0, high: 1 },
      c: { type: 'categorical', choices: ['a', 'b', 'c'] },
    })
    const rng = new Rng(4)
    const obs = Array.from({ length: 40 }, (_, i) => {
      const config = { u: i / 40, c: ['a', 'b', 'c'][i % 3] }
      return { config, metric: -Math.abs(config.u - 0.8) + (config.c === 'b' ? 0.5 : 0), resource: 1 }
    })
    const picks = Array.from({ length: 30 }, () => tpeSuggest(s1, obs, 'maximize', rng))
    const meanU = picks.reduce((a, p) => a + (p.u as number), 0) / picks.length
    expect(Math.abs(meanU - 0.8)).toBeLessThan(0.15)
    expect(picks.filter(p => p.c === 'b').length).toBeGreaterThan(20)
  })
})

describe('BOHB', () => {
  it('fits on the largest resource with ≥ d + 2 results', () => {
    const o = (r: number, n: number): Array<{ config: TrialConfig; metric: number; resource: number }> =>
      Array.from({ length: n }, () => ({ config: {}, metric: 0, resource: r }))
    expect(largestBudgetObservations([...o(1, 9), ...o(3, 6), ...o(9, 2)], 6)?.[0].resource).toBe(3)
    expect(largestBudgetObservations(o(1, 3), 6)).toBeUndefined()
  })

  it('keeps Hyperband brackets and switches from random to TPE once a rung has enough results', () => {
    const o: StrategyOptions = {
      strategy: 'bohb',
      seed: 3,
      minResource: 1,
      maxResource: 9,
      eta: 3,
      direction: 'minimize',
    }
    const s = createBohb(space, o)
    const hb = createStrategy(space, { ...o, strategy: 'hyperband' })
    expect(s.plan()).toEqual(hb.plan())
    const sim = simulate(s, c => objective(c), 1)
    expect(sim.requests.filter(r => r.rung === 0).length).toBe(s.plan().reduce((n, b) => n + b.rungs[0].n, 0))
    // After bracket 2's 9 first-rung results (≥ d + 2 = 6), later new configurations are TPE's: better on average.
    const firstRung = sim.requests.filter(r => r.rung === 0)
    const early = firstRung.filter(r => r.bracket === 2).map(r => objective(r.config))
    const late = firstRung.filter(r => r.bracket < 2).map(r => objective(r.config))
    const mean = (v: number[]): number => v.reduce((a, b) => a + b, 0) / v.length
    expect(mean(late)).toBeLessThan(mean(early))
  })
})
