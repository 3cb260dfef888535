import { describe, expect, it } from 'vitest'
import { hyperbandPlan, hyperbandSMax, createHyperband } from '../../../src/tune/hyperband.ts'
import { createStrategy } from '../../../src/tune/strategy.ts'
import { parseSpace } from '../../../src/tune/space.ts'
import type { StrategyOptions, TrialRequest } from '../../../src/tune/types.ts'
import { replay, simulate } from './simulate.ts'

const shape = (r: number, R: number, eta: number, trials?: number): Array<[number, Array<[number, number]>]> =>
  hyperbandPlan(r, R, eta, trials).map(b => [b.index, b.rungs.map(x => [x.n, x.resource] as [number, number])])

const space = parseSpace({
  x: { type: 'uniform', low: 0, high: 1 },
  y: { type: 'loguniform', low: 1e-3, high: 1 },
  num_round: { type: 'int', low: 1, high: 81 },
})
const opts = (o: Partial<StrategyOptions> = {}): StrategyOptions => ({
  strategy: 'hyperband',
  seed: 7,
  minResource: 1,
  maxResource: 27,
  eta: 3,
  direction: 'maximize',
  resourceParam: 'num_round',
  ...o,
})
/** Higher x is better; more resource helps a little. */
const objective = (c: Record<string, unknown>, k: number): number => (c.x as number) + 0.001 * k

describe('hyperbandPlan', () => {
  it('matches the paper table for r=1, R=81, η=3', () => {
    expect(hyperbandSMax(1, 81, 3)).toBe(4)
    expect(shape(1, 81, 3)).toEqual([
      [
        4,
        [
          [81, 1],
          [27, 3],
          [9, 9],
          [3, 27],
          [1, 81],
        ],
      ],
      [
        3,
        [
          [34, 3],
          [11, 9],
          [3, 27],
          [1, 81],
        ],
      ],
      [
        2,
        [
          [15, 9],
          [5, 27],
          [1, 81],
        ],
      ],
      [
        1,
        [
          [8, 27],
          [2, 81],
        ],
      ],
      [0, [[5, 81]]],
    ])
  })
  it('pins r=1, R=27, η=3', () => {
    expect(shape(1, 27, 3)).toEqual([
      [
        3,
        [
          [27, 1],
          [9, 3],
          [3, 9],
          [1, 27],
        ],
      ],
      [
        2,
        [
          [12, 3],
          [4, 9],
          [1, 27],
        ],
      ],
      [
        1,
        [
          [6, 9],
          [2, 27],
        ],
      ],
      [0, [[4, 27]]],
    ])
  })
  it('pins r=2, R=30, η=3 (rounded rung resources, last rung = R)', () => {
    expect(hyperbandSMax(2, 30, 3)).toBe(2)
    expect(shape(2, 30, 3)).toEqual([
      [
        2,
        [
          [9, 3],
          [3, 10],
          [1, 30],
        ],
      ],
      [
        1,
        [
          [5, 10],
          [1, 30],
        ],
      ],
      [0, [[3, 30]]],
    ])
  })
  it('r = R gives one bracket of s_max + 1 = 1 configuration', () => {
    expect(shape(5, 5, 3)).toEqual([[0, [[1, 5]]]])
  })
  it('caps new configurations with trials by dropping brackets that do not fit', () => {
    expect(shape(1, 27, 3, 27).map(b => b[0])).toEqual([3])
    expect(shape(1, 27, 3, 40).map(b => b[0])).toEqual([3, 2])
    expect(shape(1, 27, 3, 45).map(b => b[0])).toEqual([3, 2, 1])
    expect(shape(1, 81, 3, 10)).toEqual([
      [
        1,
        [
          [8, 27],
          [2, 81],
        ],
      ],
    ])
    expect(shape(1, 27, 3, 2)).toEqual([[0, [[2, 27]]]])
  })
})

describe('HyperbandStrategy', () => {
  it('runs every planned rung, promotes the best ⌊n/η⌋ and never stops a trial', () => {
    const s = createHyperband(space, opts())
    const sim = simulate(s, objective, 1)
    const plan = s.plan()
    for (const b of plan) {
      b.rungs.forEach((r, i) => {
        const reqs = sim.requests.filter(q => q.bracket === b.index && q.rung === i)
        expect(reqs.length, `bracket ${b.index} rung ${i}`).toBe(r.n)
        expect(reqs.every(q => q.resource === r.resource)).toBe(true)
        if (i > 0) {
          // The promoted are the best of the rung below.
          const below = sim.requests.filter(q => q.bracket === b.index && q.rung === i - 1)
          const best = below
            .map(q => q.id)
            .sort((a, c) => sim.ended.get(c)!.metric! - sim.ended.get(a)!.metric!)
            .slice(0, r.n)
          expect(reqs.map(q => q.promotedFrom).sort()).toEqual(best.sort())
          reqs.forEach(q => expect(q.config).toEqual(sim.requests[q.promotedFrom!].config))
        }
      })
    }
    expect([...sim.ended.values()].every(e => e.status === 'completed')).toBe(true)
    expect(sim.requests.every(q => !('num_round' in q.config))).toBe(true)
    expect(sim.requests.map(q => q.id)).toEqual(sim.requests.map((_, i) => i))
  })

  it('waits for every trial of a rung before promoting (synchronous SH), failed ranked last', () => {
    const s = createHyperband(space, opts({ trials: 27 }))
    const reqs: TrialRequest[] = []
    for (let i = 0; i < 27; i++) reqs.push(s.next() as TrialRequest)
    expect(reqs.every(r => r.bracket === 3 && r.rung === 0 && r.resource === 1)).toBe(true)
    for (let i = 0; i < 26; i++) s.complete(i, i === 0 ? 'failed' : 'completed', i === 0 ? undefined : i)
    expect(s.next()).toBe('wait')
    expect(s.report(26, 1, 0.5)).toBe('continue')
    s.complete(26, 'completed')
    const promoted = [0, 1, 2, 3, 4, 5, 6, 7, 8].map(() => s.next() as TrialRequest)
    expect(promoted.map(p => p.promotedFrom)).toEqual([25, 24, 23, 22, 21, 20, 19, 18, 17])
    expect(promoted.every(p => p.rung === 1 && p.resource === 3)).toBe(true)
    expect(s.next()).toBe('wait')
  })

  it('does not promote failed trials even when too few succeeded', () => {
    const s = createHyperband(space, opts({ trials: 27 }))
    for (let i = 0; i < 27; i++) s.next()
    for (let i = 0; i < 27; i++) s.complete(i, i < 2 ? 'completed' : 'failed', i < 2 ? i : undefined)
    const a = s.next() as TrialRequest,
      b = s.next() as TrialRequest
    expect([a.promotedFrom, b.promotedFrom]).toEqual([1, 0])
    expect(s.next()).toBe('wait')
  })

  it('is seeded: same seed → same configs, brackets and order; another seed differs', () => {
    const run = (seed: number, parallel: number): TrialRequest[] =>
      simulate(createHyperband(space, opts({ seed })), objective, parallel).requests
    expect(run(7, 1)).toEqual(run(7, 1))
    expect(run(7, 4)).toEqual(run(7, 4))
    expect(run(8, 1).map(r => r.config)).not.toEqual(run(7, 1).map(r => r.config))
    // Bracket assignment does not depend on timing: the first-rung configs per bracket agree for 1 and 4 workers.
    const firstRung = (rs: TrialRequest[]): string[] =>
      rs
        .filter(r => r.rung === 0)
        .map(r => `${r.bracket}:${JSON.stringify(r.config)}`)
        .sort()
    expect(firstRung(run(7, 4))).toEqual(firstRung(run(7, 1)))
  })

  it('replays: a fresh strategy fed the same calls answers the same', () => {
    const sim = simulate(createHyperband(space, opts()), objective, 3)
    expect(replay(createHyperband(space, opts()), sim.calls)).toEqual(sim.calls)
  })

  it('with parallel workers fills idle workers from the next bracket instead of waiting', () => {
    const s = createStrategy(space, opts())
    const first: TrialRequest[] = []
    for (let i = 0; i < 30; i++) first.push(s.next() as TrialRequest)
    expect(first.slice(0, 27).every(r => r.bracket === 3)).toBe(true)
    expect(first.slice(27).every(r => r.bracket === 2 && r.rung === 0)).toBe(true)
  })

  it('minimize ranks lower metrics first', () => {
    const s = createHyperband(space, opts({ trials: 27, direction: 'minimize' }))
    for (let i = 0; i < 27; i++) s.next()
    for (let i = 0; i < 27; i++) s.complete(i, 'completed', i)
    expect((s.next() as TrialRequest).promotedFrom).toBe(0)
  })
})
