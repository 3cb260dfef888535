/**
 * A strategy without rungs (grid, random, TPE): `total` configurations, each trained to its full
 * resource, never stopped early. Configurations are proposed at issue time from what finished.
 */
import type { Bracket, StrategyName, StrategyWait, Strategy, TrialConfig, TrialRequest } from './types.ts'
import { BookedStrategy, type TrialBook } from './book.ts'

/** Proposes the `index`-th configuration given the trials so far. */
export type Propose = (index: number, book: TrialBook) => TrialConfig

/** Grid / random / TPE as one state machine; `resourceOf` maps a configuration to its resource. */
export class FlatStrategy extends BookedStrategy implements Strategy {
  /** `total`: configurations to issue; `maxResource`: R, for the plan. */
  constructor(
    readonly name: StrategyName,
    private total: number,
    private maxResource: number,
    private propose: Propose,
    private resourceOf: (c: TrialConfig) => number,
  ) {
    super()
  }

  /** The next configuration until `total` were issued; then 'wait' while any runs, then 'done'. */
  next(): TrialRequest | StrategyWait {
    if (this.book.issued < this.total) {
      const config = this.propose(this.book.issued, this.book)
      return this.book.issue({ config, resource: this.resourceOf(config), bracket: 0, rung: 0 })
    }
    return this.book.running() > 0 ? 'wait' : 'done'
  }

  /** One bracket, one rung: `total` configurations at R. */
  plan(): Bracket[] {
    return [{ index: 0, rungs: [{ n: this.total, resource: this.maxResource }] }]
  }
}

/**
 * The resource of a configuration: its integer value of `resourceParam` (≥ 1) when it has one,
 * else `maxResource`.
 */
export function resourceFrom(resourceParam: string | undefined, maxResource: number): (c: TrialConfig) => number {
  return c => {
    const v = resourceParam === undefined ? undefined : c[resourceParam]
    return typeof v === 'number' && Number.isFinite(v) ? Math.max(1, Math.round(v)) : maxResource
  }
}
