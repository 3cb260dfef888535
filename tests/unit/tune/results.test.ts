import { describe, expect, it } from 'vitest'
import { bestSoFar, bestTrial } from '../../../src/tune/best.ts'
import { fullBudgetSeconds, gpuSecondsTotal, planCost } from '../../../src/tune/cost.ts'
import { parameterImportance } from '../../../src/tune/importance.ts'
import { hyperbandPlan } from '../../../src/tune/hyperband.ts'
import { createAsha } from '../../../src/tune/asha.ts'
import { parseSpace, sample } from '../../../src/tune/space.ts'
import { Rng } from '../../../src/util/rng.ts'
import type { TrialRecord } from '../../../src/tune/types.ts'

function trial(id: number, patch: Partial<TrialRecord> = {}): TrialRecord {
  return {
    id,
    config: { a: id },
    status: 'completed',
    bracket: 0,
    rung: 0,
    resource: 9,
    curve: [],
    gpuSeconds: 0,
    wallSeconds: 0,
    ...patch,
  }
}
const curve = (upTo: number): TrialRecord['curve'] =>
  Array.from({ length: upTo }, (_, i) => ({ resource: i + 1, metric: 0.5, elapsedMs: i }))

describe('bestTrial / bestSoFar', () => {
  const ts = [
    trial(0, { metric: 0.7, endedAt: '2026-01-01T00:00:03Z' }),
    trial(1, { metric: 0.9, status: 'stopped', endedAt: '2026-01-01T00:00:01Z' }),
    trial(2, { status: 'failed', error: 'boom' }),
    trial(3, { metric: 0.95, status: 'running' }),
    trial(4, { metric: 0.6, endedAt: '2026-01-01T00:00:02Z' }),
  ]
  it('picks by direction among completed / stopped trials', () => {
    expect(bestTrial(ts, 'maximize')).toEqual({ trial: 1, params: { a: 1 }, metric: 0.9 })
    expect(bestTrial(ts, 'minimize')).toEqual({ trial: 4, params: { a: 4 }, metric: 0.6 })
    expect(bestTrial([trial(0, { status: 'failed' })], 'maximize')).toBeUndefined()
  })
  it('best so far in end order', () => {
    expect(bestSoFar(ts, 'maximize').map(p => [p.trial, p.metric])).toEqual([
      [1, 0.9],
      [4, 0.9],
      [0, 0.9],
    ])
    expect(bestSoFar(ts, 'minimize').map(p => [p.trial, p.metric])).toEqual([
      [1, 0.9],
      [4, 0.6],
      [0, 0.6],
    ])
  })
})

describe('cost', () => {
  it('sums GPU-seconds and scales each configuration to R at its own rate, once per promotion lineage', () => {
    const ts = [
      trial(0, { gpuSeconds: 2, curve: curve(1), resource: 1 }), // 2 s/unit, promoted to 3
      trial(1, { gpuSeconds: 1, curve: curve(1), resource: 1 }), // 1 s/unit
      trial(2, { gpuSeconds: 3, curve: curve(3), resource: 3, promotedFrom: 0 }), // lineage 0 best measured: 1 s/unit
      trial(3, { gpuSeconds: 0, status: 'failed', curve: [] }),
      trial(4, { gpuSeconds: 4, status: 'stopped', curve: curve(2), resource: 9 }), // stopped at 2: 2 s/unit
    ]
    expect(gpuSecondsTotal(ts)).toBe(10)
    expect(fullBudgetSeconds(ts, 9)).toBe(9 * 1 + 9 * 1 + 9 * 2)
  })
  it('prices plans in resource units', () => {
    const c = planCost(hyperbandPlan(1, 27, 3), 27)
    // bracket 3: 27·1 + 9·3 + 3·9 + 1·27 = 108; 2: 12·3 + 4·9 + 1·27 = 99; 1: 6·9 + 2·27 = 108; 0: 4·27 = 108
    expect(c).toMatchObject({
      configs: 49,
      trials: 27 + 9 + 3 + 1 + 12 + 4 + 1 + 6 + 2 + 4,
      resource: 423,
      fullBudget: 49 * 27,
    })
    // warm: bracket 3: 27 + 9·2 + 3·6 + 1·18 = 81; 2: 36 + 4·6 + 18 = 78; 1: 54 + 2·18 = 90; 0: 108
    expect(c.resourceWarm).toBe(357)
    const space = parseSpace({ x: { type: 'uniform', low: 0, high: 1 } })
    const asha = planCost(
      createAsha(space, {
        strategy: 'asha',
        trials: 27,
        seed: 0,
        minResource: 1,
        maxResource: 27,
        eta: 3,
        direction: 'maximize',
      }).plan(),
      27,
    )
    expect(asha).toMatchObject({ configs: 27, resourceWarm: 27 + 9 * 2 + 3 * 6 + 1 * 18, fullBudget: 729 })
  })
})

describe('parameterImportance', () => {
  const space = parseSpace({
    strong: { type: 'uniform', low: 0, high: 1 },
    weak: { type: 'loguniform', low: 1e-3, high: 1 },
    none: { type: 'categorical', choices: ['a', 'b'] },
    f: 1,
  })
  const make = (n: number): TrialRecord[] => {
    const rng = new Rng(3)
    return Array.from({ length: n }, (_, i) => {
      const config = sample(space, rng)
      const metric = 10 * (config.strong as number) + Math.log10(config.weak as number) * 0.5 + 0.01 * rng.normal()
      return trial(i, { config, metric, curve: curve(9) })
    })
  }
  it('uses one resource in multi-fidelity sweeps, every trial otherwise', () => {
    const ts = make(30).map((t, i) => ({ ...t, curve: curve(i < 10 ? 9 : 3) }))
    // Trials at resource 3 get a metric unrelated to `strong`: only the 10 at resource 9 carry its signal.
    ts.slice(10).forEach(t => {
      t.metric = t.config.none === 'a' ? 30 : 0
    })
    expect(parameterImportance(space, ts)![0].param).toBe('none')
    ts[5].status = 'stopped'
    expect(parameterImportance(space, ts)![0].param).toBe('strong')
  })
  it('is undefined below minTrials', () => {
    expect(parameterImportance(space, make(7))).toBeUndefined()
  })
  it('ranks the parameter that drives the metric first, deterministically', () => {
    const ts = make(40)
    const imp = parameterImportance(space, ts)!
    expect(imp.map(p => p.param)).toEqual(['strong', 'weak', 'none'])
    expect(imp[0].importance).toBeGreaterThan(0.6)
    expect(imp[2].importance).toBeLessThan(0.05)
    expect(parameterImportance(space, ts)).toEqual(imp)
  })
})
