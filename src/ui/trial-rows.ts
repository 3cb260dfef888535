/**
 * Pure helpers of the trial table: the column keys, a cell's value, sorting and filtering by
 * status and text (the trials CSV is the CLI's, tune/export.ts `trialsCsv`). Parameter columns
 * are keyed `param:<name>` so any parameter of the space sorts like a built-in column.
 */
import { formatNumber } from './format.ts'
import type { TrialRecord, TrialStatus } from './types.ts'

/** Built-in columns of the trial table, in display order. */
export const TRIAL_COLUMNS = ['id', 'status', 'bracket', 'rung', 'resource', 'metric', 'gpuSeconds'] as const

/** A sortable column: a built-in one or `param:<name>`. */
export type TrialColumn = (typeof TRIAL_COLUMNS)[number] | `param:${string}`

/** How the table is filtered: a status (or 'all') and free text matched against status, params and error. */
export interface TrialFilter {
  status: TrialStatus | 'all'
  text: string
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
export function trialValue(t: TrialRecord, column: TrialColumn): number | string | undefined {
  if (column.startsWith('param:')) {
    const v = t.config[column.slice(6)]
    if (v === undefined) return undefined
    return typeof v === 'number' || typeof v === 'string' ? v : JSON.stringify(v)
  }
  const v = (t as unknown as Record<string, unknown>)[column]
  return typeof v === 'number' || typeof v === 'string' ? v : undefined
}

/** Display text of a cell: numbers to 6 significant digits, '–' when missing. */
export function cellText(t: TrialRecord, column: TrialColumn): string {
  const v = trialValue(t, column)
  if (v === undefined) return '–'
  if (typeof v !== 'number') return v
  return column === 'gpuSeconds' ? v.toFixed(2) : formatNumber(v)
}

/**
 * A sorted copy of `trials` by `column`; missing values always go last, ties keep id order, so
 * the order is stable while a sweep streams updates.
 */
export function sortTrials(trials: readonly TrialRecord[], column: TrialColumn, dir: SortDir): TrialRecord[] {
  const sign = dir === 'asc' ? 1 : -1
  return [...trials].sort((a, b) => {
    const x = trialValue(a, column),
      y = trialValue(b, column)
    if (x === undefined || y === undefined) return x === y ? a.id - b.id : x === undefined ? 1 : -1
    const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y))
    return c === 0 ? a.id - b.id : sign * c
  })
}

/** Trials matching `filter` (status exactly, text case-insensitively in status, params JSON or error). */
export function filterTrials(trials: readonly TrialRecord[], filter: TrialFilter): TrialRecord[] {
  const text = filter.text.trim().toLowerCase()
  return trials.filter(
    t =>
      (filter.status === 'all' || t.status === filter.status) &&
      (!text || `${t.id} ${t.status} ${JSON.stringify(t.config)} ${t.error ?? ''}`.toLowerCase().includes(text)),
  )
}

/** Share of its requested resource a trial has reached, in [0, 1] (the per-trial progress bar). */
export function trialProgress(t: TrialRecord): number {
  const reached = t.curve[t.curve.length - 1]?.resource ?? 0
  if (t.status === 'completed') return 1
  return t.resource > 0 ? Math.min(1, reached / t.resource) : 0
}
