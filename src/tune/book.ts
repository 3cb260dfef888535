/**
 * The trials a strategy issued and what it heard about them: ids, last reported metric, final
 * status. Shared by every strategy so that ids, metrics and failure handling agree.
 */
import type { PriorTrial, TrialConfig, TrialRequest } from './types.ts'

/** What a strategy knows of one trial. */
export interface BookEntry {
  req: TrialRequest
  done: boolean
  status?: 'completed' | 'stopped' | 'failed'
  /** Final metric (complete's, else the last report; undefined when failed). */
  metric?: number
  /** Last reported resource and metric. */
  lastResource: number
  lastMetric?: number
}

/** A finished trial's configuration and metric (what TPE fits). */
export interface Observation {
  config: TrialConfig
  metric: number
  resource: number
}

/** Issued trials in id order. */
export class TrialBook {
  private entries: BookEntry[] = []

  /** Issues the next id for `fields`. */
  issue(fields: Omit<TrialRequest, 'id'>): TrialRequest {
    const req: TrialRequest = { id: this.entries.length, ...fields }
    this.entries.push({ req, done: false, lastResource: 0 })
    return req
  }

  /** The entry of trial `id`; RangeError for an id never issued. */
  get(id: number): BookEntry {
    const e = this.entries[id]
    if (!e) throw new RangeError(`trial ${id}: never issued (issued ${this.entries.length})`)
    return e
  }

  /** Records a report. */
  report(id: number, resource: number, metric: number): BookEntry {
    const e = this.get(id)
    e.lastResource = resource
    e.lastMetric = metric
    return e
  }

  /** Records the end of a trial; a second complete of the same trial is ignored. */
  complete(id: number, status: 'completed' | 'stopped' | 'failed', metric?: number): void {
    const e = this.get(id)
    if (e.done) return
    e.done = true
    e.status = status
    const m = status === 'failed' ? undefined : (metric ?? e.lastMetric)
    e.metric = m !== undefined && Number.isFinite(m) ? m : undefined
  }

  /** Trials issued so far. */
  get issued(): number {
    return this.entries.length
  }

  /** Trials issued and not yet ended. */
  running(): number {
    return this.entries.reduce((n, e) => n + (e.done ? 0 : 1), 0)
  }

  /** All entries, id order. */
  all(): readonly BookEntry[] {
    return this.entries
  }

  /** Finished (not failed) trials with a metric, at the resource they reached. */
  observations(): Observation[] {
    return this.entries
      .filter(e => e.done && e.metric !== undefined)
      .map(e => ({
        config: e.req.config,
        metric: e.metric!,
        resource: Math.max(e.lastResource, e.status === 'completed' ? e.req.resource : 0),
      }))
  }
}

/**
 * The configuration a warm-started strategy issues first: the best prior trial by `direction`
 * (ties: the earlier one), without `drop` (the resource parameter a rung strategy sets itself).
 */
export function bestPrior(
  prior: readonly PriorTrial[] | undefined,
  direction: 'maximize' | 'minimize',
  drop: readonly string[] = [],
): TrialConfig | undefined {
  let best: PriorTrial | undefined
  for (const p of prior ?? []) if (!best || score(p.metric, direction) > score(best.metric, direction)) best = p
  return best && Object.fromEntries(Object.entries(best.config).filter(([k]) => !drop.includes(k)))
}

/** Prior trials as observations (TPE / BOHB fit them with their own); a prior without a resource counts at `maxResource`. */
export function priorObservations(prior: readonly PriorTrial[] | undefined, maxResource: number): Observation[] {
  return (prior ?? []).map(p => ({ config: p.config, metric: p.metric, resource: p.resource ?? maxResource }))
}

/** Metric as a score where higher is better; missing / NaN scores lowest. */
export function score(metric: number | undefined, direction: 'maximize' | 'minimize'): number {
  if (metric === undefined || !Number.isFinite(metric)) return -Infinity
  return direction === 'maximize' ? metric : -metric
}

/**
 * The bookkeeping every strategy shares: a TrialBook, reports recorded (and answered 'continue':
 * a strategy with rungs overrides report) and trial ends recorded. Subclasses add next and plan.
 */
export abstract class BookedStrategy {
  protected readonly book = new TrialBook()

  /** Records the report; 'continue' (no early stopping unless overridden). */
  report(id: number, resource: number, metric: number): 'continue' | 'stop' {
    this.book.report(id, resource, metric)
    return 'continue'
  }

  /** Records the trial's end (its final metric ranks it where the strategy ranks trials). */
  complete(id: number, status: 'completed' | 'stopped' | 'failed', metric?: number): void {
    this.book.complete(id, status, metric)
  }
}
