/**
 * Cost of a sweep: GPU-seconds spent, what the same configurations would have cost at full budget
 * (R = maxResource each), and a plan's cost in resource units for the "what this will cost" view.
 */
import type { Bracket, TrialRecord } from './types.ts'

/** Sum of the trials' GPU busy seconds. */
export function gpuSecondsTotal(trials: readonly TrialRecord[]): number {
  return trials.reduce((s, t) => s + (Number.isFinite(t.gpuSeconds) ? t.gpuSeconds : 0), 0)
}

/** Resource a trial reached: its last curve point, else its requested resource when it completed, else 0. */
export function reachedResource(t: TrialRecord): number {
  const last = t.curve.at(-1)
  if (last) return last.resource
  return t.status === 'completed' ? t.resource : 0
}

/**
 * GPU-seconds the sweep's configurations would cost trained to `maxResource` each: per
 * configuration, seconds per resource unit × R. A Hyperband promotion is the same configuration
 * as the trial it came from, so each lineage (promotedFrom chain) counts once, at the rate of its
 * member that reached the most resource (the best-measured rate). Assumes a trial's gpuSeconds
 * cover its curve from resource 0 (no warm start). Configurations without any measured resource
 * (failed before their first report) are left out.
 */
export function fullBudgetSeconds(trials: readonly TrialRecord[], maxResource: number): number {
  const byId = new Map(trials.map(t => [t.id, t]))
  const rootOf = (t: TrialRecord): number => {
    let cur = t
    for (let guard = 0; cur.promotedFrom !== undefined && byId.has(cur.promotedFrom) && guard < 64; guard++)
      cur = byId.get(cur.promotedFrom)!
    return cur.id
  }
  const rate = new Map<number, { reached: number; perUnit: number }>()
  for (const t of trials) {
    const reached = reachedResource(t)
    if (!(reached > 0 && t.gpuSeconds > 0)) continue
    const root = rootOf(t),
      prev = rate.get(root)
    if (!prev || reached > prev.reached) rate.set(root, { reached, perUnit: t.gpuSeconds / reached })
  }
  return [...rate.values()].reduce((s, r) => s + r.perUnit * maxResource, 0)
}

/** A plan's size and cost in resource units (rounds / epochs). */
export interface PlanCost {
  /** New configurations (first rungs). */
  configs: number
  /** Trial requests, promotions included. */
  trials: number
  /** Resource when every request trains from scratch (Hyperband without warm start). */
  resource: number
  /** Resource when a promotion or a surviving trial continues from its previous rung (ASHA; warm-started Hyperband). */
  resourceWarm: number
  /** The same configurations at R each (random search at full budget). */
  fullBudget: number
}

/**
 * Cost of `plan` (Strategy.plan()) in resource units. For ASHA read `resourceWarm` (its trials
 * continue rather than restart; its rung counts are the most that can survive, so an upper bound).
 */
export function planCost(plan: readonly Bracket[], maxResource: number): PlanCost {
  const c: PlanCost = { configs: 0, trials: 0, resource: 0, resourceWarm: 0, fullBudget: 0 }
  for (const b of plan) {
    c.configs += b.rungs[0]?.n ?? 0
    b.rungs.forEach((r, i) => {
      c.trials += r.n
      c.resource += r.n * r.resource
      c.resourceWarm += r.n * (r.resource - (i > 0 ? b.rungs[i - 1].resource : 0))
    })
  }
  c.fullBudget = c.configs * maxResource
  return c
}
