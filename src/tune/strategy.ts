/**
 * Strategy construction: options validated (RangeError naming the option and the bad value)
 * before anything runs, defaults filled per model, then the strategy for `strategy`.
 */
import type { SearchSpace, Strategy, StrategyName, StrategyOptions, SweepFamily } from './types.ts'
import { createGrid } from './grid.ts'
import { createRandom } from './random.ts'
import { createTpe } from './tpe.ts'
import { createHyperband } from './hyperband.ts'
import { createAsha } from './asha.ts'
import { createBohb } from './bohb.ts'

/** Every strategy name. */
export const STRATEGY_NAMES: readonly StrategyName[] = ['grid', 'random', 'hyperband', 'asha', 'tpe', 'bohb']

/**
 * Throws RangeError when an option is out of range: unknown strategy, trials not a positive
 * integer, minResource not an integer ≥ 1, maxResource < minResource, eta < 2, gridPoints < 1,
 * seed not an integer, direction not maximize/minimize, a prior trial without a config or a finite metric.
 */
export function validateStrategyOptions(o: StrategyOptions): void {
  const bad = (name: string, must: string, v: unknown): never => {
    throw new RangeError(`${name}: must be ${must}, got ${JSON.stringify(v)}`)
  }
  if (!STRATEGY_NAMES.includes(o.strategy)) bad('strategy', `one of ${STRATEGY_NAMES.join(', ')}`, o.strategy)
  if (o.trials !== undefined && !(Number.isInteger(o.trials) && o.trials >= 1))
    bad('trials', 'a positive integer', o.trials)
  if (!Number.isInteger(o.seed)) bad('seed', 'an integer', o.seed)
  if (!(Number.isInteger(o.minResource) && o.minResource >= 1)) bad('minResource', 'an integer ≥ 1', o.minResource)
  if (!(Number.isInteger(o.maxResource) && o.maxResource >= 1)) bad('maxResource', 'an integer ≥ 1', o.maxResource)
  if (o.minResource > o.maxResource) throw new RangeError(`minResource ${o.minResource} > maxResource ${o.maxResource}`)
  if (!(Number.isFinite(o.eta) && o.eta >= 2)) bad('eta', 'a number ≥ 2', o.eta)
  if (o.gridPoints !== undefined && !(Number.isInteger(o.gridPoints) && o.gridPoints >= 1))
    bad('gridPoints', 'an integer ≥ 1', o.gridPoints)
  if (o.direction !== 'maximize' && o.direction !== 'minimize')
    bad('direction', "'maximize' or 'minimize'", o.direction)
  if (o.prior !== undefined && !Array.isArray(o.prior)) bad('prior', 'an array of trials', o.prior)
  o.prior?.forEach((p, i) => {
    if (typeof p?.config !== 'object' || p.config === null || Array.isArray(p.config))
      bad(`prior[${i}].config`, 'an object of parameters', p?.config)
    if (!Number.isFinite(p.metric)) bad(`prior[${i}].metric`, 'a finite number', p.metric)
  })
}

/**
 * Full options from a partial set: the family's default resources and η (family.sweep.resources),
 * seed 0, direction 'maximize', resourceParam = family.resource.param; then validated.
 */
export function resolveStrategyOptions(
  family: SweepFamily,
  p: Partial<StrategyOptions> & { strategy: StrategyName },
): StrategyOptions {
  const d = family.sweep.resources
  const o: StrategyOptions = {
    strategy: p.strategy,
    seed: p.seed ?? 0,
    minResource: p.minResource ?? Math.min(d.minResource, p.maxResource ?? d.minResource),
    maxResource: p.maxResource ?? d.maxResource,
    eta: p.eta ?? d.eta,
    direction: p.direction ?? 'maximize',
    resourceParam: p.resourceParam ?? family.resource.param,
  }
  if (p.trials !== undefined) o.trials = p.trials
  if (p.gridPoints !== undefined) o.gridPoints = p.gridPoints
  if (p.prior !== undefined) o.prior = p.prior
  validateStrategyOptions(o)
  return o
}

/** A fresh strategy for a validated `space` (parseSpace) and options (validated here). */
export function createStrategy(space: SearchSpace, o: StrategyOptions): Strategy {
  validateStrategyOptions(o)
  switch (o.strategy) {
    case 'grid':
      return createGrid(space, o)
    case 'random':
      return createRandom(space, o)
    case 'tpe':
      return createTpe(space, o)
    case 'hyperband':
      return createHyperband(space, o)
    case 'asha':
      return createAsha(space, o)
    case 'bohb':
      return createBohb(space, o)
  }
}
