/**
 * Units: cutting a row group into row ranges of bounded size, and the live-row masks that tell a
 * unit which of its rows survive the deletion vector and the row filter.
 */
import { lowerBound } from '../util/lower-bound.ts'
import type { Unit } from './types.ts'

/** Default largest unit in rows (PlanOptions.maxUnitRows). */
export const DEFAULT_MAX_UNIT_ROWS = 65_536

/** A half-open range of file-relative row indices [start, end). */
export interface RowRange {
  start: number
  end: number
}

/**
 * Cuts rows [start, end) into ranges of at most `maxRows` rows, as equal as possible (so a
 * 70k-row group becomes two 35k units, not 64k + 6k: even units balance workers better).
 */
export function cutRange(start: number, end: number, maxRows: number): RowRange[] {
  if (!(maxRows >= 1) || !Number.isInteger(maxRows))
    throw new RangeError(`maxUnitRows must be a positive integer, got ${maxRows}`)
  const total = end - start
  if (total <= 0) return []
  const pieces = Math.ceil(total / maxRows)
  const ranges: RowRange[] = []
  for (let i = 0; i < pieces; i++) {
    ranges.push({
      start: start + Math.floor((total * i) / pieces),
      end: start + Math.floor((total * (i + 1)) / pieces),
    })
  }
  return ranges
}

/**
 * Live rows of [start, end) given the file's sorted deleted row indices: undefined when every
 * row is live (the common case, no mask to store), else the ascending live indices.
 */
export function liveAfterDeletes(deleted: readonly number[], start: number, end: number): Uint32Array | undefined {
  let at = lowerBound(deleted, start)
  if (at >= deleted.length || deleted[at] >= end) return undefined
  const live: number[] = []
  for (let row = start; row < end; row++) {
    if (at < deleted.length && deleted[at] === row) {
      at++
      continue
    }
    live.push(row)
  }
  return Uint32Array.from(live)
}

/**
 * Keeps the rows of a range for which `keep(offset)` holds, where offset = row − start.
 * `live` is the range's current mask (undefined = all rows). Returns the new mask, or undefined
 * when every row of [start, end) is still live.
 */
export function filterLive(
  live: Uint32Array | undefined,
  start: number,
  end: number,
  keep: (offset: number) => boolean,
): Uint32Array | undefined {
  const kept: number[] = []
  if (live) {
    for (const row of live) if (keep(row - start)) kept.push(row)
  } else for (let row = start; row < end; row++) if (keep(row - start)) kept.push(row)
  return kept.length === end - start ? undefined : Uint32Array.from(kept)
}

/** Builds a unit; liveRows follows from the mask. */
export function makeUnit(id: number, fileIndex: number, rowGroup: number, range: RowRange, live?: Uint32Array): Unit {
  const unit: Unit = {
    id,
    fileIndex,
    rowGroup,
    rowStart: range.start,
    rowEnd: range.end,
    liveRows: live ? live.length : range.end - range.start,
  }
  if (live) unit.live = live
  return unit
}

/** File-relative row index of the i-th live row of a unit. */
export function liveRowAt(unit: Unit, i: number): number {
  return unit.live ? unit.live[i] : unit.rowStart + i
}
