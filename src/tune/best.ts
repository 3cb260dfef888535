/** The best trial of a sweep by the metric's direction, and the best-so-far series for the chart. */
import type { SweepBest, TrialRecord } from './types.ts'
import { score } from './book.ts'

/** Trials that count: completed or early-stopped, with a finite metric. */
function finished(trials: readonly TrialRecord[]): TrialRecord[] {
  return trials.filter(
    t => (t.status === 'completed' || t.status === 'stopped') && t.metric !== undefined && Number.isFinite(t.metric),
  )
}

/**
 * The best finished trial (ties: lower id) with its complete parameters (TrialRecord.params: what
 * `snaptrain train --params` reproduces its model with, resource included; a trial stored without
 * them gives its config); undefined when none finished with a metric.
 */
export function bestTrial(trials: readonly TrialRecord[], direction: 'maximize' | 'minimize'): SweepBest | undefined {
  let best: TrialRecord | undefined
  for (const t of finished(trials)) {
    if (
      !best ||
      score(t.metric, direction) > score(best.metric, direction) ||
      (t.metric === best.metric && t.id < best.id)
    )
      best = t
  }
  return best && { trial: best.id, params: best.params ?? best.config, metric: best.metric! }
}

/** One point of the best-so-far series: after trial `trial` ended (at `endedAt`), the best metric was `metric`. */
export interface BestPoint {
  trial: number
  metric: number
  endedAt?: string
}

/** Best metric so far after each finished trial, in the order trials ended (endedAt, then id). */
export function bestSoFar(trials: readonly TrialRecord[], direction: 'maximize' | 'minimize'): BestPoint[] {
  const order = finished(trials).sort((a, b) => (a.endedAt ?? '').localeCompare(b.endedAt ?? '') || a.id - b.id)
  const out: BestPoint[] = []
  let best = -Infinity,
    metric = NaN
  for (const t of order) {
    if (score(t.metric, direction) > best) {
      best = score(t.metric, direction)
      metric = t.metric!
    }
    out.push(t.endedAt === undefined ? { trial: t.id, metric } : { trial: t.id, metric, endedAt: t.endedAt })
  }
  return out
}
