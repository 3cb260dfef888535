/**
 * The read schedule of a rank's epoch: which units to read, in the order first needed, and for
 * which stream positions each read's decoded rows must stay in memory. A unit needed twice far
 * apart (pad repeats the epoch's head) is read twice rather than held the whole epoch.
 */
import type { RankSegment } from './types.ts'

/** One read of a unit whose rows are delivered at stream positions [from, to). */
export interface UnitRead {
  unit: number
  from: number
  to: number
}

/**
 * Reads for `segments` (RankStreamView.segments()): per unit, the segments' need ranges merged
 * where they overlap or touch, sorted by first need (ties in segment order). Reads whose rows
 * are all delivered before `start` are left out (resuming from a cursor).
 */
export function readSchedule(segments: readonly RankSegment[], start = 0): UnitRead[] {
  const byUnit = new Map<number, UnitRead[]>()
  for (const s of segments) {
    const list = byUnit.get(s.unit) ?? []
    if (!byUnit.has(s.unit)) byUnit.set(s.unit, list)
    list.push({ unit: s.unit, from: s.needFrom, to: s.needTo })
  }
  const reads: UnitRead[] = []
  for (const list of byUnit.values()) reads.push(...mergeRanges(list))
  const order = new Map([...byUnit.keys()].map((unit, i) => [unit, i]))
  return reads.filter(r => r.to > start).sort((a, b) => a.from - b.from || order.get(a.unit)! - order.get(b.unit)!)
}

function mergeRanges(list: UnitRead[]): UnitRead[] {
  const sorted = [...list].sort((a, b) => a.from - b.from)
  const out: UnitRead[] = []
  for (const r of sorted) {
    const last = out[out.length - 1]
    if (last && r.from <= last.to) last.to = Math.max(last.to, r.to)
    else out.push({ ...r })
  }
  return out
}
