/**
 * Facts the table view derives from the Delta log without reading data: per-column min / max /
 * null count aggregated over the files' stats, and rows added / removed per commit from the
 * commit's operationMetrics (Delta's metric names: WRITE numOutputRows, DELETE numDeletedRows,
 * MERGE numTargetRowsInserted / numTargetRowsDeleted; DELETE's numCopiedRows are rewritten
 * rows, not added ones).
 */
import type { AddFile, CommitInfo } from '../table/types.ts'

/** Aggregated stats of one top-level column; undefined fields when some file has no stats for it. */
export interface ColumnStats {
  min?: unknown
  max?: unknown
  nulls?: number
}

/** Orders two stat values of one column (numbers numerically, others as strings). */
function compare(a: unknown, b: unknown): number {
  return typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b))
}

/** Scalar stats only: nested structs' stats are objects and are not shown. */
const scalar = (v: unknown) => v !== null && v !== undefined && typeof v !== 'object'

/** Stats of `column` over `files`: min of mins, max of maxes, sum of null counts (when every file has them). */
export function columnStats(files: readonly AddFile[], column: string): ColumnStats {
  if (files.length === 0) return {}
  const mins = files.map(f => f.stats?.minValues?.[column]),
    maxs = files.map(f => f.stats?.maxValues?.[column])
  const nulls = files.map(f => f.stats?.nullCount?.[column])
  const out: ColumnStats = {}
  if (mins.every(scalar)) out.min = mins.reduce((m, v) => (compare(v, m) < 0 ? v : m))
  if (maxs.every(scalar)) out.max = maxs.reduce((m, v) => (compare(v, m) > 0 ? v : m))
  if (nulls.every(n => typeof n === 'number')) out.nulls = (nulls as number[]).reduce((s, n) => s + n, 0)
  return out
}

/** Rows a commit added and removed, from its operationMetrics; undefined where the commit does not say. */
export function rowsChanged(c: CommitInfo): { added?: number; removed?: number } {
  const m = c.operationMetrics ?? {}
  const pick = (...names: string[]) => {
    const k = names.find(n => m[n] !== undefined)
    return k === undefined ? undefined : Number(m[k])
  }
  return {
    added: pick('numOutputRows', 'numTargetRowsInserted'),
    removed: pick('numDeletedRows', 'numTargetRowsDeleted'),
  }
}
