/**
 * Hyperband (Li et al. 2018, JMLR 18(185)): brackets s = s_max … 0 of synchronous successive
 * halving. Paper symbols: r = minResource, R = maxResource, η = eta,
 * s_max = ⌊log_η(R/r)⌋; bracket s starts n = ⌈(s_max+1)/(s+1) · η^s⌉ configurations at
 * r_0 = R·η^(−s) and keeps ⌊n_i/η⌋ of them at each rung i, r_i = R·η^(i−s) (rounded, ≥ 1; the
 * last rung is R). A rung's promotions are new requests (promotedFrom = the earlier trial), issued
 * once every trial of the rung has ended; failed trials rank last and are never promoted.
 */
import type {
  Bracket,
  Rung,
  SearchSpace,
  Strategy,
  StrategyOptions,
  StrategyWait,
  TrialConfig,
  TrialRequest,
} from './types.ts'
import { bracketSeed } from '../util/hash.ts'
import { Rng } from '../util/rng.ts'
import { sample, withoutParams } from './space.ts'
import { BookedStrategy, bestPrior, score, type TrialBook } from './book.ts'

/** s_max = ⌊log_η(R/r)⌋, computed by multiplication so that exact powers are not lost to rounding. */
export function hyperbandSMax(minResource: number, maxResource: number, eta: number): number {
  let s = 0
  while (minResource * eta ** (s + 1) <= maxResource * (1 + 1e-9)) s++
  return s
}

/** Bracket s of Hyperband with s_max, R and η: its rungs (configurations, resource). */
export function hyperbandBracket(s: number, sMax: number, maxResource: number, eta: number): Bracket {
  const n0 = Math.ceil(((sMax + 1) * eta ** s) / (s + 1) - 1e-9)
  const rungs: Rung[] = []
  for (let i = 0, n = n0; i <= s; i++, n = Math.max(1, Math.floor(n / eta))) {
    const resource = i === s ? maxResource : Math.max(1, Math.round(maxResource * eta ** (i - s)))
    rungs.push({ n, resource })
  }
  return { index: s, rungs }
}

/**
 * Hyperband's brackets s_max … 0. With `trials`, the total of new configurations is capped:
 * brackets are taken in order s_max … 0 and any that does not fit in what is left is dropped;
 * when none fits, one bracket s = 0 of `trials` configurations at R remains (plain random search).
 */
export function hyperbandPlan(minResource: number, maxResource: number, eta: number, trials?: number): Bracket[] {
  const sMax = hyperbandSMax(minResource, maxResource, eta)
  const all = Array.from({ length: sMax + 1 }, (_, k) => hyperbandBracket(sMax - k, sMax, maxResource, eta))
  if (trials === undefined) return all
  let left = trials
  const kept = all.filter(b => (b.rungs[0].n <= left ? ((left -= b.rungs[0].n), true) : false))
  return kept.length > 0 ? kept : [{ index: 0, rungs: [{ n: trials, resource: maxResource }] }]
}

/** Draws the next new configuration of bracket `bracket` (random: per-bracket stream; BOHB: TPE). */
export type BracketSampler = (bracket: number, book: TrialBook) => TrialConfig

interface BracketRun {
  plan: Bracket
  rung: number
  /** Trial ids per rung. */
  ids: number[][]
  /** New configurations issued so far at rung 0. */
  sampled: number
  queue: Array<{ config: TrialConfig; promotedFrom: number }>
  finished: boolean
}

/**
 * Hyperband as a replayable state machine. next() scans brackets s_max … 0 and issues the first
 * request available: a new configuration of a bracket's first rung, or a promotion whose rung has
 * ended. So one worker runs the brackets one after another, and parallel workers that would wait
 * on a rung start the next bracket instead. 'wait' when every bracket waits; 'done' when all ended.
 */
export class HyperbandStrategy extends BookedStrategy implements Strategy {
  private runs: BracketRun[]

  /** `brackets` from hyperbandPlan; `sampler` draws new configurations. */
  constructor(
    readonly name: 'hyperband' | 'bohb',
    private brackets: Bracket[],
    private sampler: BracketSampler,
    private direction: 'maximize' | 'minimize',
  ) {
    super()
    this.runs = brackets.map(plan => ({
      plan,
      rung: 0,
      ids: plan.rungs.map(() => []),
      sampled: 0,
      queue: [],
      finished: false,
    }))
  }

  /** See the class comment. */
  next(): TrialRequest | StrategyWait {
    for (const b of this.runs) {
      const req = this.nextIn(b)
      if (req) return req
    }
    return this.book.running() > 0 ? 'wait' : 'done'
  }

  /** The brackets (s_max … 0), as planned. */
  plan(): Bracket[] {
    return this.brackets
  }

  private nextIn(b: BracketRun): TrialRequest | undefined {
    if (b.finished) return undefined
    if (b.rung === 0 && b.sampled < b.plan.rungs[0].n) {
      b.sampled++
      return this.issue(b, this.sampler(b.plan.index, this.book))
    }
    if (b.queue.length === 0) this.promote(b)
    const p = b.queue.shift()
    return p ? this.issue(b, p.config, p.promotedFrom) : undefined
  }

  private issue(b: BracketRun, config: TrialConfig, promotedFrom?: number): TrialRequest {
    const fields = { config, resource: b.plan.rungs[b.rung].resource, bracket: b.plan.index, rung: b.rung }
    const req = this.book.issue(promotedFrom === undefined ? fields : { ...fields, promotedFrom })
    b.ids[b.rung].push(req.id)
    return req
  }

  /** Once every trial of the current rung ended: queue the best ⌊n/η⌋ (plan's next n) one rung up. */
  private promote(b: BracketRun): void {
    const ids = b.ids[b.rung]
    if (!ids.every(id => this.book.get(id).done)) return
    if (b.rung === b.plan.rungs.length - 1) {
      b.finished = true
      return
    }
    const ranked = ids
      .map(id => this.book.get(id))
      .filter(e => e.status !== 'failed' && e.metric !== undefined)
      .sort((x, y) => score(y.metric, this.direction) - score(x.metric, this.direction) || x.req.id - y.req.id)
    const up = ranked.slice(0, b.plan.rungs[b.rung + 1].n)
    b.rung++
    b.queue = up.map(e => ({ config: e.req.config, promotedFrom: e.req.id }))
    if (up.length === 0) b.finished = true
  }
}

/**
 * `sampler` with the best prior configuration (resource parameter dropped) as its first answer:
 * a warm-started Hyperband or BOHB starts its first bracket from it.
 */
export function priorFirst(sampler: BracketSampler, o: StrategyOptions): BracketSampler {
  let first = bestPrior(o.prior, o.direction, o.resourceParam ? [o.resourceParam] : [])
  return (bracket, book) => {
    const c = first ?? sampler(bracket, book)
    first = undefined
    return c
  }
}

/**
 * Hyperband over `space` (its `resourceParam` dropped: the rung resource replaces it). Each
 * bracket draws its configurations from its own seeded stream, so the same seed gives the same
 * configurations per bracket whatever the order trials finish in. Warm-started, the first
 * configuration of the first bracket is the best prior one.
 */
export function createHyperband(space: SearchSpace, o: StrategyOptions): HyperbandStrategy {
  const sp = o.resourceParam ? withoutParams(space, [o.resourceParam]) : space
  const brackets = hyperbandPlan(o.minResource, o.maxResource, o.eta, o.trials)
  const rngs = new Map(brackets.map(b => [b.index, new Rng(bracketSeed(o.seed, b.index))]))
  return new HyperbandStrategy(
    'hyperband',
    brackets,
    priorFirst(s => sample(sp, rngs.get(s)!), o),
    o.direction,
  )
}
