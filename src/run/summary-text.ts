/**
 * The metrics part of a finished run's one-line summary (families' `describe`): every validation
 * metric by its XGBoost name, or, without validation rows, a line saying so and how to get some —
 * never a row of dashes.
 */
import type { TrainSummary } from './config.ts'

/** `mlogloss 0.412345 merror 0.1234` (6 significant digits), or why there are none. */
export function evalText(s: Pick<TrainSummary, 'eval' | 'auc' | 'logloss' | 'rows_valid'>): string {
  const named = Object.entries(s.eval ?? {})
  if (named.length === 0)
    for (const [k, v] of [
      ['auc', s.auc],
      ['logloss', s.logloss],
    ] as const)
      if (v !== null) named.push([k, v])
  if (named.length > 0) return named.map(([k, v]) => `${k} ${Number.isFinite(v) ? v.toPrecision(6) : v}`).join(' ')
  return s.rows_valid > 0
    ? 'no validation metrics'
    : 'no validation rows, so no metrics (--valid-fraction F or --valid-table URL gives some)'
}
