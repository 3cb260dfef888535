/**
 * The scheduler's log of strategy calls and its replay: a resumed sweep feeds a fresh strategy
 * the same next/report/complete sequence the first run made (strategies are replayable state
 * machines, types.ts), so it answers with the same trial ids, configurations and brackets, and
 * only the trials that had not finished are run again.
 */
import type { Strategy, SweepState, TrialRequest, TrialStatus } from './types.ts'

/**
 * One strategy call, in call order: next() → a trial id ('n') or 'wait' ('w');
 * report(id, resource, metric) ('r'); complete(id, status, metric) ('c').
 */
export type SweepLogEntry =
  | ['n', number]
  | ['w']
  | ['r', number, number, number]
  | ['c', number, 'completed' | 'stopped' | 'failed', number | null]

/** A SweepState as the scheduler stores it: with the call log (absent in imports of other writers). */
export type LoggedSweepState = SweepState & { log?: SweepLogEntry[] }

/** What a replay leaves to do. */
export interface ReplayResult {
  /** Trials started but not finished, to run again (same ids), in id order. */
  rerun: TrialRequest[]
  /** Per re-run trial, the largest resource the strategy already heard a report for. */
  reported: Map<number, number>
  /** The log to continue (the stored one, or one rebuilt from the trials). */
  log: SweepLogEntry[]
}

const FINISHED: ReadonlySet<TrialStatus> = new Set(['completed', 'stopped', 'failed'])

/** The request a trial record was made from. */
export function requestOf(t: SweepState['trials'][number]): TrialRequest {
  const r: TrialRequest = { id: t.id, config: t.config, resource: t.resource, bracket: t.bracket, rung: t.rung }
  if (t.promotedFrom !== undefined) r.promotedFrom = t.promotedFrom
  return r
}

/**
 * Replays `state`'s log into `strategy` (a fresh one, same options). Throws naming the trial
 * when the strategy answers differently (another seed, space or code version).
 */
export function replaySweep(strategy: Strategy, state: LoggedSweepState): ReplayResult {
  const log = state.log ?? logFromTrials(state)
  const byId = new Map(state.trials.map(t => [t.id, t]))
  const reported = new Map<number, number>()
  for (const e of log) {
    if (e[0] === 'n') expectTrial(strategy.next(), e[1], byId)
    else if (e[0] === 'w') expectWait(strategy.next())
    else if (e[0] === 'r') {
      strategy.report(e[1], e[2], e[3])
      reported.set(e[1], Math.max(reported.get(e[1]) ?? 0, e[2]))
    } else strategy.complete(e[1], e[2], e[3] ?? undefined)
  }
  const rerun = state.trials
    .filter(t => !FINISHED.has(t.status))
    .sort((a, b) => a.id - b.id)
    .map(requestOf)
  for (const id of reported.keys()) if (!rerun.some(r => r.id === id)) reported.delete(id)
  return { rerun, reported, log: [...log] }
}

function expectTrial(
  got: TrialRequest | 'wait' | 'done',
  id: number,
  byId: Map<number, SweepState['trials'][number]>,
): void {
  const stored = byId.get(id)
  if (typeof got === 'string')
    throw new Error(
      `resume: the strategy answered '${got}' where the stored sweep started trial ${id} (different seed, space or strategy?)`,
    )
  if (got.id !== id || !stored || JSON.stringify(got.config) !== JSON.stringify(stored.config)) {
    throw new Error(
      `resume: the strategy issued trial ${got.id} ${JSON.stringify(got.config)} where the stored sweep started trial ${id} ${JSON.stringify(stored?.config)} (different seed, space or strategy?)`,
    )
  }
}

function expectWait(got: TrialRequest | 'wait' | 'done'): void {
  if (typeof got !== 'string')
    throw new Error(
      `resume: the strategy issued trial ${got.id} where the stored sweep had to wait (different seed, space or strategy?)`,
    )
}

/**
 * A log rebuilt from the trials alone (a sweep imported without one): each trial started in id
 * order, its curve reported, then completed. Exact for sequential sweeps; a parallel sweep whose
 * strategy depended on the interleaving may diverge, which replaySweep reports.
 */
export function logFromTrials(state: SweepState): SweepLogEntry[] {
  const log: SweepLogEntry[] = []
  for (const t of [...state.trials].sort((a, b) => a.id - b.id)) {
    log.push(['n', t.id])
    for (const p of t.curve) log.push(['r', t.id, p.resource, p.metric])
    if (FINISHED.has(t.status)) log.push(['c', t.id, t.status as 'completed' | 'stopped' | 'failed', t.metric ?? null])
  }
  return log
}
