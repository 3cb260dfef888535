/**
 * Pure helpers of the trial table: the column keys per strategy, a cell's value, sorting and
 * filtering by state and text (the trials CSV is the CLI's, tune/export.ts `trialsCsv`). Parameter
 * columns are keyed `param:<name>` so any parameter of the space sorts like a built-in column.
 * A TrialView gives each trial's state word (tune/trial-state.ts, as Optuna reads it) and, for
 * ASHA, the rung it reached; without one the record's own status and rung are shown.
 */
import { formatNumber } from './format.ts'
import type { StrategyName } from '../tune/types.ts'
import type { TrialRecord, TrialStatus } from './types.ts'

/** Built-in columns of the trial table, in display order ('from': the trial a promotion continues). */
export const TRIAL_COLUMNS = ['id', 'status', 'bracket', 'rung', 'from', 'resource', 'metric', 'gpuSeconds'] as const

/** A sortable column: a built-in one or `param:<name>`. */
export type TrialColumn = (typeof TRIAL_COLUMNS)[number] | `param:${string}`

/**
 * The built-in columns a strategy's table shows: Hyperband and BOHB all (brackets, rungs,
 * promotions); ASHA the rung reached, no bracket or promotion; grid, random and TPE none of those.
 */
export function trialColumns(strategy?: StrategyName): ReadonlyArray<(typeof TRIAL_COLUMNS)[number]> {
  if (strategy === undefined || strategy === 'hyperband' || strategy === 'bohb') return TRIAL_COLUMNS
  const hidden = strategy === 'asha' ? ['bracket', 'from'] : ['bracket', 'rung', 'from']
  return TRIAL_COLUMNS.filter(c => !hidden.includes(c))
}

/** What the table shows besides a record: each trial's state word and (ASHA) the rung it reached. */
export interface TrialView {
  words?: ReadonlyMap<number, string>
  rungs?: ReadonlyMap<number, number | undefined>
}

/** How the table is filtered: a state word or record status (or 'all') and free text matched against it, params and error. */
export interface TrialFilter {
  status: TrialStatus | string | 'all'
  text: string
}

/** A trial's status as shown: its state word when the view has one, else the record's status. */
function statusOf(t: TrialRecord, view: TrialView): string {
  return view.words?.get(t.id) ?? t.status
}

/** Sort direction. */
export type SortDir = 'asc' | 'desc'

/** Every parameter name used by any trial, sorted (the parameter columns). */
export function paramNames(trials: readonly TrialRecord[]): string[] {
  return [...new Set(trials.flatMap(t => Object.keys(t.config)))].sort()
}

/**
 * The value of `column` for trial `t`: numbers stay numbers (so they sort numerically), params
 * that are not numbers become their JSON text; a missing value is undefined.
 */
export function trialValue(t: TrialRecord, column: TrialColumn, view: TrialView = {}): number | string | undefined {
  if (column === 'status') return statusOf(t, view)
  if (column === 'from') return t.promotedFrom
  if (column === 'rung' && view.rungs) return view.rungs.get(t.id)
  if (column.startsWith('param:')) {
    const v = t.config[column.slice(6)]
    if (v === undefined) return undefined
    return typeof v === 'number' || typeof v === 'string' ? v : JSON.stringify(v)
  }
  const v = (t as unknown as Record<string, unknown>)[column]
  return typeof v === 'number' || typeof v === 'string' ? v : undefined
}

/** Display text of a cell: numbers to 6 significant digits, '–' when missing. */
export function cellText(t: TrialRecord, column: TrialColumn, view: TrialView = {}): string {
  const v = trialValue(t, column, view)
  if (v === undefined) return '–'
  if (typeof v !== 'number') return v
  return column === 'gpuSeconds' ? v.toFixed(2) : column === 'from' ? `#${v}` : formatNumber(v)
}

/**
 * A sorted copy of `trials` by `column`; missing values always go last, ties keep id order, so
 * the order is stable while a sweep streams updates.
 */
export function sortTrials(
  trials: readonly TrialRecord[],
  column: TrialColumn,
  dir: SortDir,
  view: TrialView = {},
): TrialRecord[] {
  const sign = dir === 'asc' ? 1 : -1
  return [...trials].sort((a, b) => {
    const x = trialValue(a, column, view),
      y = trialValue(b, column, view)
    if (x === undefined || y === undefined) return x === y ? a.id - b.id : x === undefined ? 1 : -1
    const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y))
    return c === 0 ? a.id - b.id : sign * c
  })
}

/** Trials matching `filter` (status as shown exactly, text case-insensitively in it, params JSON or error). */
export function filterTrials(trials: readonly TrialRecord[], filter: TrialFilter, view: TrialView = {}): TrialRecord[] {
  const text = filter.text.trim().toLowerCase()
  return trials.filter(
    t =>
      (filter.status === 'all' || statusOf(t, view) === filter.status) &&
      (!text ||
        `${t.id} ${statusOf(t, view)} ${JSON.stringify(t.config)} ${t.error ?? ''}`.toLowerCase().includes(text)),
  )
}

/** Share of its requested resource a trial has reached, in [0, 1] (the per-trial progress bar). */
export function trialProgress(t: TrialRecord): number {
  const reached = t.curve[t.curve.length - 1]?.resource ?? 0
  if (t.status === 'completed') return 1
  return t.resource > 0 ? Math.min(1, reached / t.resource) : 0
}
