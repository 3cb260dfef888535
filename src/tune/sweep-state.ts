/**
 * Plain helpers over SweepState the scheduler, the page API and the CLI share: a new state, a
 * trial record from a request, totals (GPU-seconds, early stops) and the best trial.
 */
import { bestTrial } from './best.ts'
import { gpuSecondsTotal } from './cost.ts'
import { maximize } from '../eval/metrics.ts'
import type { SweepBest, SweepConfig, SweepState, TrialRecord, TrialRequest } from './types.ts'

/** A fresh state for `config` (status 'running', no trials). */
export function newSweepState(config: SweepConfig, id: string = newSweepId()): SweepState {
  const now = new Date().toISOString()
  return {
    id,
    config,
    status: 'running',
    trials: [],
    stoppedEarly: 0,
    gpuSeconds: 0,
    gpuSecondsFullBudget: 0,
    wallSeconds: 0,
    createdAt: now,
    updatedAt: now,
  }
}

/** A sortable, unique-enough id: sweep-<ISO time>-<4 random hex digits>. */
export function newSweepId(now: Date = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
  return `sweep-${stamp}-${Math.floor(Math.random() * 0x10000)
    .toString(16)
    .padStart(4, '0')}`
}

/** A pending record of `req`. */
export function trialRecord(req: TrialRequest): TrialRecord {
  const rec: TrialRecord = {
    id: req.id,
    config: req.config,
    status: 'pending',
    bracket: req.bracket,
    rung: req.rung,
    resource: req.resource,
    curve: [],
    gpuSeconds: 0,
    wallSeconds: 0,
  }
  if (req.promotedFrom !== undefined) rec.promotedFrom = req.promotedFrom
  return rec
}

/**
 * True when the sweep's metric is minimised (every loss and error), false when maximised (auc,
 * aucpr, gauc: src/eval/metrics.ts maximize, the direction XGBoost's early stopping takes too).
 */
export function minimizes(config: Pick<SweepConfig, 'metric'>): boolean {
  return config.metric !== undefined && !maximize(config.metric)
}

/** GPU-seconds and early stops summed over the trials (in place). */
export function updateTotals(state: SweepState): void {
  state.gpuSeconds = gpuSecondsTotal(state.trials)
  state.stoppedEarly = state.trials.filter(t => t.status === 'stopped').length
}

/** The best finished trial (completed or stopped) by its last reported metric (best.ts; ties: smaller id). */
export function bestOf(state: SweepState): SweepBest | undefined {
  return bestTrial(state.trials, minimizes(state.config) ? 'minimize' : 'maximize')
}

/** True for a stored sweep, false for a config (both have a `trials` field: an array vs a count). */
export function isSweepState(x: SweepConfig | SweepState): x is SweepState {
  return Array.isArray((x as SweepState).trials)
}
