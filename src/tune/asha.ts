/**
 * ASHA (Li et al. 2020, "A System for Massively Parallel Hyperparameter Tuning"), the stopping
 * variant as Ray Tune's ASHAScheduler: every trial is requested at R and reports as it trains; at a
 * rung boundary r·η^k (< R) its metric is recorded and it is stopped when below the
 * (1 − 1/η)-quantile (linear interpolation, numpy's percentile) of the metrics that rung recorded
 * before it, i.e. only the top 1/η go on. Ties continue; the first trial at a rung always
 * continues. Paper symbols: r = minResource, R = maxResource, η = eta, s = 0.
 */
import type {
  Bracket,
  SearchSpace,
  Strategy,
  StrategyOptions,
  StrategyWait,
  TrialConfig,
  TrialRequest,
} from './types.ts'
import { Rng } from '../util/rng.ts'
import { sample, withoutParams } from './space.ts'
import { BookedStrategy, bestPrior, score } from './book.ts'
import { DEFAULT_TRIALS } from './defaults.ts'

/** Rung boundaries r·η^k below R (rounded), ascending: where ASHA decides. */
export function ashaRungs(minResource: number, maxResource: number, eta: number): number[] {
  const out: number[] = []
  for (let k = 0; minResource * eta ** k < maxResource * (1 - 1e-9); k++) out.push(Math.round(minResource * eta ** k))
  return out
}

/** numpy.percentile (linear) of `values` at q ∈ [0, 100]. */
export function percentile(values: readonly number[], q: number): number {
  const v = [...values].sort((a, b) => a - b)
  const pos = (q / 100) * (v.length - 1)
  const lo = Math.floor(pos),
    hi = Math.ceil(pos)
  return v[lo] + (v[hi] - v[lo]) * (pos - lo)
}

/** ASHA as a replayable state machine; `trials` new configurations drawn in issue order from Rng(seed). */
export class AshaStrategy extends BookedStrategy implements Strategy {
  readonly name = 'asha' as const
  private rng: Rng
  private rungs: number[]
  /** Per rung: trial id → score (higher is better) recorded there. */
  private recorded: Map<number, number>[]
  /** The best prior configuration (warm start): the first trial. */
  private first: TrialConfig | undefined

  /** `space` already without the resource parameter. */
  constructor(
    private space: SearchSpace,
    private o: StrategyOptions & { trials: number },
  ) {
    super()
    this.rng = new Rng(o.seed)
    this.rungs = ashaRungs(o.minResource, o.maxResource, o.eta)
    this.recorded = this.rungs.map(() => new Map())
    this.first = bestPrior(o.prior, o.direction, o.resourceParam ? [o.resourceParam] : [])
  }

  /**
   * A new configuration at R until `trials` were issued (warm-started, the best prior one first);
   * then 'wait' while any runs, then 'done'.
   */
  next(): TrialRequest | StrategyWait {
    if (this.book.issued < this.o.trials) {
      return this.book.issue({
        config: (this.book.issued === 0 && this.first) || sample(this.space, this.rng),
        resource: this.o.maxResource,
        bracket: 0,
        rung: 0,
      })
    }
    return this.book.running() > 0 ? 'wait' : 'done'
  }

  /**
   * At the highest rung ≤ `resource` that has not recorded this trial: 'stop' when the metric is
   * below that rung's cutoff so far, then record it. Anywhere else 'continue'.
   */
  override report(id: number, resource: number, metric: number): 'continue' | 'stop' {
    this.book.report(id, resource, metric)
    for (let k = this.rungs.length - 1; k >= 0; k--) {
      const rec = this.recorded[k]
      if (resource < this.rungs[k] || rec.has(id)) continue
      const s = score(metric, this.o.direction)
      const stop = rec.size > 0 && s < percentile([...rec.values()], (1 - 1 / this.o.eta) * 100)
      rec.set(id, s)
      return stop ? 'stop' : 'continue'
    }
    return 'continue'
  }

  /** One bracket: rung k holds (at most, in expectation) ⌊trials/η^k⌋ trials at r·η^k; the last rung is R. */
  plan(): Bracket[] {
    const resources = [...this.rungs, this.o.maxResource]
    return [
      {
        index: 0,
        rungs: resources.map((resource, k) => ({
          n: Math.max(1, Math.floor(this.o.trials / this.o.eta ** k)),
          resource,
        })),
      },
    ]
  }
}

/** ASHA over `space` (its `resourceParam` dropped); trials default DEFAULT_TRIALS. */
export function createAsha(space: SearchSpace, o: StrategyOptions): AshaStrategy {
  const sp = o.resourceParam ? withoutParams(space, [o.resourceParam]) : space
  return new AshaStrategy(sp, { ...o, trials: o.trials ?? DEFAULT_TRIALS })
}
