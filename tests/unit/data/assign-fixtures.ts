/**
 * Synthetic scan plans for the assignment, shuffle, stream and cursor tests: units of uneven live
 * row counts, zero-row units and units with deletion/filter masks, so off-by-one errors in prefix
 * sums and masks show up. No I/O.
 */
import { Rng } from '../../../src/util/rng.ts'
import type { ScanPlan, Unit } from '../../../src/data/types.ts'
import { identityString, planRows } from '../../../src/data/assign.ts'

/** Unit shape: rows in the range, and live-row count when masked (undefined = all live). */
export interface UnitSpec {
  rows: number
  live?: number
}

/** Build a plan of `specs.length` units spread over files of `perFile` units each. */
export function syntheticPlan(
  specs: UnitSpec[],
  opts: { perFile?: number; seed?: number; version?: number } = {},
): ScanPlan {
  const perFile = opts.perFile ?? 3
  const rng = new Rng(opts.seed ?? 7)
  const units: Unit[] = []
  const files: ScanPlan['files'] = []
  let rowStart = 0
  specs.forEach((spec, id) => {
    const fileIndex = Math.floor(id / perFile)
    if (id % perFile === 0) {
      rowStart = 0
      files.push({
        index: fileIndex,
        path: `part-${fileIndex}.parquet`,
        url: `http://t.test/tbl/part-${fileIndex}.parquet`,
        size: 1000,
        partitionValues: {},
        metadata: {} as ScanPlan['files'][number]['metadata'],
      })
    }
    const unit: Unit = {
      id,
      fileIndex,
      rowGroup: id % perFile,
      rowStart,
      rowEnd: rowStart + spec.rows,
      liveRows: spec.rows,
    }
    if (spec.live !== undefined) {
      unit.live = pickLive(rowStart, spec.rows, spec.live, rng)
      unit.liveRows = spec.live
    }
    units.push(unit)
    rowStart += spec.rows
  })
  const plan: ScanPlan = {
    tableUrl: 'http://t.test/tbl',
    version: opts.version ?? 2,
    columns: ['x'],
    files,
    units,
    stats: {
      filesTotal: files.length,
      filesPruned: 0,
      rowGroupsTotal: units.length,
      rowGroupsPruned: 0,
      rowsBeforeFilter: 0,
      rows: 0,
    },
    digest: 'digest-' + specs.map(s => `${s.rows}/${s.live ?? ''}`).join(','),
  }
  plan.stats.rows = plan.stats.rowsBeforeFilter = planRows(plan)
  return plan
}

/** `live` distinct ascending file rows out of [start, start + rows). */
function pickLive(start: number, rows: number, live: number, rng: Rng): Uint32Array {
  const all = Array.from({ length: rows }, (_, i) => start + i)
  for (let i = rows - 1; i > 0; i--) {
    const j = rng.int(i + 1)
    ;[all[i], all[j]] = [all[j], all[i]]
  }
  return Uint32Array.from(all.slice(0, live).sort((a, b) => a - b))
}

/** Uneven units: zero-row units (fully deleted, empty), masks, a one-row unit, a big one. */
export const UNEVEN: UnitSpec[] = [
  { rows: 50 },
  { rows: 7, live: 3 },
  { rows: 0 },
  { rows: 120 },
  { rows: 40, live: 0 },
  { rows: 1 },
  { rows: 33, live: 30 },
  { rows: 64 },
  { rows: 9 },
  { rows: 200, live: 101 },
  { rows: 17 },
]

/** Every live row's identity string, in table order. */
export function allIdentities(plan: ScanPlan): string[] {
  const out: string[] = []
  for (const u of plan.units) for (let i = 0; i < u.liveRows; i++) out.push(identityString(plan, u.id, i))
  return out
}

/** Identity strings of rows (unit, index) pairs. */
export function idsOf(plan: ScanPlan, rows: { unit: Uint32Array; index: Uint32Array }): string[] {
  return Array.from(rows.unit, (u, i) => identityString(plan, u, rows.index[i]))
}
