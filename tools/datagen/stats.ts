/**
 * Delta file statistics (PROTOCOL.md "Per-file Statistics"): numRecords, and per column
 * minValues / maxValues / nullCount, computed from the values written so they match the data
 * exactly (readers use them to skip files; a wrong bound would silently drop rows).
 */
import { columnLength, isVectors } from './frame.ts'
import type { ColumnSpec, ColumnValues, DeltaStats, Frame } from './types.ts'

/** Delta truncates string bounds to this many characters (delta.dataSkippingStringPrefixLength). */
const STRING_PREFIX = 32

/** Statistics of one file's frame. Arrays get a nullCount only (Delta keeps no bounds for them). */
export function fileStats(specs: ColumnSpec[], frame: Frame): DeltaStats {
  const stats: DeltaStats = { numRecords: frame.numRows, minValues: {}, maxValues: {}, nullCount: {} }
  for (const spec of specs) {
    const values = frame.columns[spec.name]
    const { min, max, nulls } = isVectors(values) ? { nulls: 0 } : columnBounds(values, typeof spec.type === 'object')
    stats.nullCount[spec.name] = nulls
    if (min === undefined || max === undefined) continue
    stats.minValues[spec.name] = typeof min === 'string' ? min.slice(0, STRING_PREFIX) : min
    stats.maxValues[spec.name] = typeof max === 'string' ? truncateMax(max) : max
  }
  return stats
}

interface Bounds {
  min?: number | string
  max?: number | string
  nulls: number
}

function columnBounds(values: Exclude<ColumnValues, { width: number }>, isArray: boolean): Bounds {
  let nulls = 0
  let min: number | string | undefined
  let max: number | string | undefined
  for (let i = 0; i < columnLength(values); i++) {
    const raw = values[i]
    // NaN in a typed float column is the frame's null marker (see ColumnValues).
    if (raw === null || raw === undefined || Number.isNaN(raw)) {
      nulls++
      continue
    }
    if (isArray) continue
    const v = typeof raw === 'bigint' ? Number(raw) : (raw as number | string)
    if (min === undefined || v < min) min = v
    if (max === undefined || v > max) max = v
  }
  // -0 and 0 compare equal; write 0 so the JSON bound is the plain number readers expect.
  if (typeof min === 'number' && Object.is(min, -0)) min = 0
  if (typeof max === 'number' && Object.is(max, -0)) max = 0
  return { min, max, nulls }
}

/** A truncated max must stay an upper bound: bump the last kept character. */
function truncateMax(s: string): string {
  if (s.length <= STRING_PREFIX) return s
  const head = s.slice(0, STRING_PREFIX - 1)
  return head + String.fromCharCode(s.charCodeAt(STRING_PREFIX - 1) + 1)
}
