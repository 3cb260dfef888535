/**
 * How far a run is, from its progress events (config.ts TrainProgress), for every place that
 * shows it: the CLI's progress line and the page's train panel. Type-only imports, so the page's
 * first bundle does not pull the run's modules in with it.
 */
import type { TrainProgress } from './config.ts'

/** What a round event says is done of the run: rounds (GBDT) or optimizer steps (the recommender). */
export function progressDone(p: Extract<TrainProgress, { kind: 'round' }>): { done: number; total: number } {
  return p.steps ?? { done: p.round + 1, total: p.rounds }
}
