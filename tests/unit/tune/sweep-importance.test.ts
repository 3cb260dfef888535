/**
 * sweepImportance (what window.snaptrain.sweepImportance answers and the UI shows): the engine's
 * fANOVA estimate over a sweep's own space and trials, leaving out the resource parameter that
 * Hyperband sets per rung, seeded by the sweep's seed.
 */
import { expect, it } from 'vitest'
import { parameterImportance, sweepImportance } from '../../../src/tune/importance.ts'
import { parseSpace } from '../../../src/tune/space.ts'
import { Rng } from '../../../src/util/rng.ts'
import type { SweepState, TrialRecord } from '../../../src/tune/types.ts'
import { MODEL_PARAMS } from '../../../src/sweep/model-params.ts'
import { familyOf } from '../../../src/models/registry.ts'

const SPACE = {
  num_round: { type: 'int', low: 1, high: 27 },
  max_depth: { type: 'int', low: 2, high: 8 },
  eta: { type: 'loguniform', low: 0.01, high: 0.3 },
}

/** n completed trials at resource 9 whose metric follows max_depth; Hyperband-like configs (no num_round). */
function trials(n: number, seed = 5): TrialRecord[] {
  const rng = new Rng(seed)
  return Array.from({ length: n }, (_, id) => {
    const max_depth = 2 + Math.floor(rng.next() * 7),
      eta = 0.01 * 30 ** rng.next()
    const metric = 0.6 + 0.03 * max_depth + 0.001 * rng.next()
    return {
      id,
      config: { max_depth, eta },
      status: 'completed',
      bracket: 0,
      rung: 1,
      resource: 9,
      metric,
      curve: [{ resource: 9, metric, elapsedMs: 1 }],
      gpuSeconds: 1,
      wallSeconds: 1,
    } satisfies TrialRecord
  })
}

function state(ts: TrialRecord[], space: Record<string, unknown> | undefined = SPACE): SweepState {
  return {
    id: 's',
    config: { model: 'gbdt', table: 'http://h/t/', label: 'y', strategy: 'hyperband', seed: 2, space },
    status: 'running',
    trials: ts,
    stoppedEarly: 0,
    gpuSeconds: 0,
    gpuSecondsFullBudget: 0,
    wallSeconds: 0,
    createdAt: '',
    updatedAt: '',
  }
}

it('undefined below 8 finished trials; then the searched parameters, the driving one first, shares in [0, 1]', () => {
  expect(sweepImportance(state(trials(7)), familyOf('gbdt'))).toBeUndefined()
  const imp = sweepImportance(state(trials(20)), familyOf('gbdt'))!
  expect(imp.map(x => x.param).sort()).toEqual(['eta', 'max_depth']) // num_round is set per rung, not searched
  expect(imp[0]!.param).toBe('max_depth')
  for (const x of imp) expect(x.importance).toBeGreaterThanOrEqual(0), expect(x.importance).toBeLessThanOrEqual(1)
  expect(imp[0]!.importance).toBeGreaterThan(imp[1]!.importance)
})

it('equals parameterImportance over the space without the unsampled parameter, seeded by the sweep', () => {
  const ts = trials(20)
  const want = parameterImportance(parseSpace({ max_depth: SPACE.max_depth, eta: SPACE.eta }, MODEL_PARAMS.gbdt), ts, {
    seed: 2,
  })
  expect(sweepImportance(state(ts), familyOf('gbdt'))).toEqual(want)
})

it("a sweep without a space uses the model's default space; a bad space throws naming it", () => {
  const ts = trials(12).map(t => ({ ...t, config: { eta: t.config.eta, max_depth: t.config.max_depth } }))
  expect(
    sweepImportance(state(ts, undefined), familyOf('gbdt'))!
      .map(x => x.param)
      .sort(),
  ).toEqual(['eta', 'max_depth'])
  expect(() => sweepImportance(state(ts, { eta: { type: 'uniform', low: 1, high: 0 } }), familyOf('gbdt'))).toThrow(
    /eta/,
  )
})
