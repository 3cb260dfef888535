/**
 * BOHB (Falkner et al. 2018), compact: Hyperband's brackets whose new configurations come from TPE
 * fitted on the finished results at the largest resource that has at least d + 2 of them
 * (d = searchable parameters), else random. BOHB's fixed fraction of random draws is not kept:
 * TPE's prior component already keeps every region reachable.
 */
import type { SearchSpace, StrategyOptions, TrialConfig } from './types.ts'
import { Rng } from '../util/rng.ts'
import { sample, searchDims, withoutParams } from './space.ts'
import { priorObservations, type Observation, type TrialBook } from './book.ts'
import { tpeSuggest } from './tpe.ts'
import { HyperbandStrategy, hyperbandPlan, priorFirst } from './hyperband.ts'

/** Results at the largest resource with ≥ `minPoints` of them; undefined when none has enough. */
export function largestBudgetObservations(obs: readonly Observation[], minPoints: number): Observation[] | undefined {
  const byResource = new Map<number, Observation[]>()
  for (const o of obs) byResource.set(o.resource, [...(byResource.get(o.resource) ?? []), o])
  const resources = [...byResource.keys()].sort((a, b) => b - a)
  const r = resources.find(x => byResource.get(x)!.length >= minPoints)
  return r === undefined ? undefined : byResource.get(r)
}

/**
 * BOHB over `space` (its `resourceParam` dropped), one Rng(seed) for all draws in issue order.
 * Warm-started, the first configuration is the best prior one and TPE fits the prior trials
 * (at the resource each reported last) with the sweep's own.
 */
export function createBohb(space: SearchSpace, o: StrategyOptions): HyperbandStrategy {
  const sp = o.resourceParam ? withoutParams(space, [o.resourceParam]) : space
  const rng = new Rng(o.seed)
  const minPoints = searchDims(sp).length + 2
  const prior = priorObservations(o.prior, o.maxResource)
  const sampler = (_: number, book: TrialBook): TrialConfig => {
    const obs = largestBudgetObservations([...prior, ...book.observations()], minPoints)
    return obs ? tpeSuggest(sp, obs, o.direction, rng, { nStartup: minPoints }) : sample(sp, rng)
  }
  return new HyperbandStrategy(
    'bohb',
    hyperbandPlan(o.minResource, o.maxResource, o.eta, o.trials),
    priorFirst(sampler, o),
    o.direction,
  )
}
