import { describe, expect, it } from 'vitest'
import { ashaRungs, createAsha, percentile } from '../../../src/tune/asha.ts'
import { parseSpace } from '../../../src/tune/space.ts'
import type { StrategyOptions, TrialRequest } from '../../../src/tune/types.ts'
import { replay, simulate } from './simulate.ts'

const space = parseSpace({ x: { type: 'uniform', low: 0, high: 1 }, num_round: { type: 'int', low: 1, high: 81 } })
const opts = (o: Partial<StrategyOptions> = {}): StrategyOptions => ({
  strategy: 'asha',
  trials: 12,
  seed: 3,
  minResource: 1,
  maxResource: 27,
  eta: 3,
  direction: 'maximize',
  resourceParam: 'num_round',
  ...o,
})

describe('ashaRungs', () => {
  it('pins rung boundaries r·η^k below R', () => {
    expect(ashaRungs(1, 81, 3)).toEqual([1, 3, 9, 27])
    expect(ashaRungs(1, 27, 3)).toEqual([1, 3, 9])
    expect(ashaRungs(2, 30, 3)).toEqual([2, 6, 18])
    expect(ashaRungs(1, 16, 2)).toEqual([1, 2, 4, 8])
    expect(ashaRungs(5, 5, 3)).toEqual([])
  })
  it('plan: one bracket, ⌊trials/η^k⌋ at each rung, R last', () => {
    expect(createAsha(space, opts({ trials: 81, maxResource: 81 })).plan()).toEqual([
      {
        index: 0,
        rungs: [
          { n: 81, resource: 1 },
          { n: 27, resource: 3 },
          { n: 9, resource: 9 },
          { n: 3, resource: 27 },
          { n: 1, resource: 81 },
        ],
      },
    ])
  })
  it('percentile interpolates linearly like numpy', () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2.5)
    expect(percentile([3, 1, 2], 100 * (1 - 1 / 3))).toBeCloseTo(2 + 1 / 3, 12)
    expect(percentile([5], 66)).toBe(5)
  })
})

describe('AshaStrategy', () => {
  it('requests every trial at R and stops below the rung cutoff of the results recorded so far', () => {
    const s = createAsha(space, opts())
    const reqs = [0, 1, 2, 3].map(() => s.next() as TrialRequest)
    expect(reqs.every(r => r.resource === 27 && r.bracket === 0 && r.rung === 0 && !('num_round' in r.config))).toBe(
      true,
    )
    expect(s.report(0, 1, 0.5)).toBe('continue') // first at the rung always continues
    expect(s.report(1, 1, 0.4)).toBe('stop') // cutoff = percentile([0.5], 66.7) = 0.5
    expect(s.report(2, 1, 0.5)).toBe('continue') // tie with the cutoff continues
    // recorded [0.5, 0.4, 0.5] → cutoff 0.5: 0.45 stops, 0.6 continues
    expect(s.report(3, 1, 0.45)).toBe('stop')
    // Between rungs nothing is decided; a second report at a recorded rung is not judged again.
    expect(s.report(0, 2, 0.1)).toBe('continue')
    expect(s.report(0, 1, 0.0)).toBe('continue')
    // Rung 3: trial 0 first there.
    expect(s.report(0, 3, 0.55)).toBe('continue')
    expect(s.report(2, 3, 0.54)).toBe('stop')
  })

  it('judges the highest rung reached when a report skips boundaries', () => {
    const s = createAsha(space, opts())
    s.next()
    s.next()
    expect(s.report(0, 10, 0.9)).toBe('continue') // recorded at rung 9
    expect(s.report(1, 10, 0.8)).toBe('stop') // judged at rung 9, not rung 1 (empty)
  })

  it('minimize stops the larger metrics', () => {
    const s = createAsha(space, opts({ direction: 'minimize' }))
    s.next()
    s.next()
    s.next()
    expect(s.report(0, 1, 0.3)).toBe('continue')
    expect(s.report(1, 1, 0.2)).toBe('continue')
    expect(s.report(2, 1, 0.4)).toBe('stop')
  })

  it('issues `trials` configurations without waiting, then waits for the running, then is done', () => {
    const s = createAsha(space, opts({ trials: 3 }))
    expect([s.next(), s.next(), s.next()].every(r => typeof r === 'object')).toBe(true)
    expect(s.next()).toBe('wait')
    s.complete(0, 'stopped', 0.1)
    s.complete(1, 'failed')
    expect(s.next()).toBe('wait')
    s.complete(2, 'completed', 0.2)
    expect(s.next()).toBe('done')
  })

  it('stops trials early in a simulation: only a top fraction reaches R', () => {
    const sim = simulate(createAsha(space, opts({ trials: 27 })), c => c.x as number, 4)
    const ended = [...sim.ended.values()]
    expect(ended.length).toBe(27)
    const full = ended.filter(e => e.reached === 27).length
    expect(full).toBeGreaterThan(0)
    expect(full).toBeLessThan(14)
    expect(ended.filter(e => e.status === 'stopped').every(e => [1, 3, 9].includes(e.reached))).toBe(true)
  })

  it('is seeded and replayable', () => {
    const run = (seed: number): ReturnType<typeof simulate> =>
      simulate(createAsha(space, opts({ seed, trials: 20 })), c => c.x as number, 3)
    expect(run(3).calls).toEqual(run(3).calls)
    expect(run(4).requests.map(r => r.config)).not.toEqual(run(3).requests.map(r => r.config))
    const sim = run(3)
    expect(replay(createAsha(space, opts({ trials: 20 })), sim.calls)).toEqual(sim.calls)
  })
})
