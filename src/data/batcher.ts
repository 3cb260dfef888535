/**
 * Batch assembly: rows named by (unit id, live-row index) gathered from decoded units into fresh
 * columnar typed arrays (one buffer per column, so a batch can be transferred or uploaded as is).
 * B = rows in the batch, L = elements per row of a fixed_list.
 */
import { TableError } from '../table/types.ts'
import type { Batch, DecodedColumn, DecodedUnit, ScanPlan } from './types.ts'

/** Rows of a batch: unit id and live-row index per row (RankStreamView.rowsAt). */
export interface BatchRows {
  unit: Uint32Array
  index: Uint32Array
}

/**
 * Gathers a batch. `units[u]` must hold decoded unit u for every unit named in `rows`.
 * `ids` adds (unit, file-relative row) per row, computed from the plan's units.
 * Throws TableError('schema') naming the column when units disagree on its encoding or length.
 */
export function gatherBatch(
  plan: ScanPlan,
  units: ReadonlyArray<DecodedUnit | undefined>,
  rows: BatchRows,
  position: number,
  epoch: number,
  ids = false,
): Batch {
  const size = rows.unit.length
  const columns: Record<string, DecodedColumn> = {}
  if (size > 0) {
    const first = unitOf(units, rows.unit[0])
    const layout = layoutOf(rows)
    for (const name of Object.keys(first.columns)) columns[name] = gatherColumn(name, units, rows, layout)
  }
  const batch: Batch = { size, position, epoch, columns }
  if (ids) batch.ids = { unit: rows.unit.slice(), row: fileRowsOf(plan, rows) }
  if (plan.rowKey) batch.keys = gatherKeys(units, rows)
  return batch
}

/** The row key of each batch row, from its unit's keys. */
function gatherKeys(units: ReadonlyArray<DecodedUnit | undefined>, rows: BatchRows): Uint32Array {
  const out = new Uint32Array(rows.unit.length)
  for (let i = 0; i < out.length; i++) {
    const keys = unitOf(units, rows.unit[i]).keys
    if (!keys) throw new Error(`unit ${rows.unit[i]} was decoded without row keys (loader bug)`)
    out[i] = keys[rows.index[i]]
  }
  return out
}

function unitOf(units: ReadonlyArray<DecodedUnit | undefined>, id: number): DecodedUnit {
  const unit = units[id]
  if (!unit) throw new Error(`unit ${id} is not decoded (loader bug: rows asked before their unit was read)`)
  return unit
}

/**
 * How a batch's rows map onto units, shared by all its columns: `ids` = the batch's distinct units
 * (slot s = ids[s]), `slot[i]` = row i's slot; then either `runs` = starts of runs of consecutive
 * rows of one unit with consecutive indices (table order, unshuffled windows), or, when the rows
 * are mostly single (shuffled), `groups`: the rows sorted by slot, so each column's gather reads
 * one source array at a time.
 */
interface Layout {
  ids: number[]
  slot: Uint32Array
  runs?: number[]
  groups?: SlotGroups
}

/** Rows by slot: slot s holds batch rows pos[start[s] … start[s+1]), unit rows idx[…] (same k). */
interface SlotGroups {
  start: Uint32Array
  pos: Uint32Array
  idx: Uint32Array
}

function layoutOf(rows: BatchRows): Layout {
  const n = rows.unit.length
  const { unit, index } = rows
  const ids: number[] = []
  const slots = new Map<number, number>()
  const slot = new Uint32Array(n)
  const runs: number[] = []
  // Block copies pay off only for long runs: collecting stops once runs average under 16 rows.
  let long = true
  let last = -1
  let s = 0
  for (let i = 0; i < n; i++) {
    const u = unit[i]
    if (u !== last) {
      let found = slots.get(u)
      if (found === undefined) slots.set(u, (found = ids.push(u) - 1))
      s = found
      last = u
    }
    slot[i] = s
    if (long && (i === 0 || u !== unit[i - 1] || index[i] !== index[i - 1] + 1)) {
      runs.push(i)
      long = runs.length * 16 <= n
    }
  }
  return long ? { ids, slot, runs } : { ids, slot, groups: groupBySlot(slot, index, ids.length) }
}

/** Counting sort of the batch's rows by slot (stable: ascending batch row within a slot). */
function groupBySlot(slot: Uint32Array, index: Uint32Array, count: number): SlotGroups {
  const n = slot.length
  const start = new Uint32Array(count + 1)
  for (let i = 0; i < n; i++) start[slot[i] + 1]++
  for (let s = 0; s < count; s++) start[s + 1] += start[s]
  const next = start.slice(0, count)
  const pos = new Uint32Array(n)
  const idx = new Uint32Array(n)
  for (let i = 0; i < n; i++) {
    const k = next[slot[i]]++
    pos[k] = i
    idx[k] = index[i]
  }
  return { start, pos, idx }
}

function gatherColumn(
  name: string,
  units: ReadonlyArray<DecodedUnit | undefined>,
  rows: BatchRows,
  layout: Layout,
): DecodedColumn {
  const template = unitOf(units, rows.unit[0]).columns[name]
  if (template.encoding === 'var_list' || template.encoding === 'hash_list' || template.encoding === 'utf8')
    return gatherVarList(name, units, rows, template.encoding)
  const width = template.encoding === 'fixed_list' ? (template.length ?? 0) : 1
  const Ctor = template.values.constructor as new (n: number) => DecodedColumn['values']
  const out = new Ctor(rows.unit.length * width)
  // Every encoding but bool is 4 bytes per element: copy those through Int32Array views, so one
  // monomorphic loop serves all columns and float bits (NaN payloads included) move unchanged.
  const words = out.BYTES_PER_ELEMENT === 4
  const sources = layout.ids.map(u => {
    const values = sourceOf(name, unitOf(units, u), template).values
    return words ? asWords(values) : values
  })
  const dst = words ? asWords(out) : out
  if (layout.runs) copyRuns(dst, sources, rows, layout, width)
  else if (width === 1) copySingles(dst, sources, layout.groups!)
  else copyRows(dst, sources, layout.groups!, width)
  const column: DecodedColumn = { name, encoding: template.encoding, values: out }
  if (template.encoding === 'fixed_list') column.length = width
  return column
}

type Elements = DecodedColumn['values']

function asWords(a: Elements): Int32Array {
  return new Int32Array(a.buffer, a.byteOffset, a.length)
}

/** One block copy per run of consecutive rows (layout.runs). */
function copyRuns(out: Elements, sources: Elements[], rows: BatchRows, layout: Layout, w: number): void {
  const runs = layout.runs!
  const n = rows.unit.length
  for (let r = 0; r < runs.length; r++) {
    const i = runs[r]
    const end = r + 1 < runs.length ? runs[r + 1] : n
    const first = rows.index[i]
    out.set(sources[layout.slot[i]].subarray(first * w, (first + end - i) * w), i * w)
  }
}

/** out[pos[k]] = source[idx[k]], one source (slot) at a time (scalar columns, shuffled rows). */
function copySingles(out: Elements, sources: Elements[], g: SlotGroups): void {
  const { start, pos, idx } = g
  for (let s = 0; s < sources.length; s++) {
    const src = sources[s]
    for (let k = start[s], end = start[s + 1]; k < end; k++) out[pos[k]] = src[idx[k]]
  }
}

/** Row pos[k]'s `w` elements from its slot's source at idx[k]·w (list columns, shuffled rows). */
function copyRows(out: Elements, sources: Elements[], g: SlotGroups, w: number): void {
  const { start, pos, idx } = g
  for (let s = 0; s < sources.length; s++) {
    const src = sources[s]
    for (let k = start[s], end = start[s + 1]; k < end; k++) {
      for (let j = 0, o = pos[k] * w, a = idx[k] * w; j < w; j++) out[o + j] = src[a + j]
    }
  }
}

/** The unit's column, checked to match the batch's first unit (same encoding, same list length). */
function sourceOf(name: string, unit: DecodedUnit, template: DecodedColumn): DecodedColumn {
  const column = unit.columns[name]
  if (!column || column.encoding !== template.encoding || column.length !== template.length) {
    const got = column
      ? `${column.encoding}${column.length !== undefined ? ` of length ${column.length}` : ''}`
      : 'nothing'
    const want = `${template.encoding}${template.length !== undefined ? ` of length ${template.length}` : ''}`
    throw new TableError(`column '${name}': unit ${unit.unitId} decoded as ${got}, other units as ${want}`, 'schema')
  }
  return column
}

/** Encodings of a variable length per row: offsets (n + 1) into values. */
type VarEncoding = 'var_list' | 'hash_list' | 'utf8'

/**
 * var_list (Float32Array values), hash_list (Uint32Array item hashes) or utf8 (Uint8Array bytes):
 * offsets re-based, values copied per row.
 */
function gatherVarList(
  name: string,
  units: ReadonlyArray<DecodedUnit | undefined>,
  rows: BatchRows,
  encoding: VarEncoding,
): DecodedColumn {
  const n = rows.unit.length
  const offsets = new Uint32Array(n + 1)
  for (let i = 0; i < n; i++) {
    const src = listOf(name, unitOf(units, rows.unit[i]), encoding)
    offsets[i + 1] = offsets[i] + src.offsets[rows.index[i] + 1] - src.offsets[rows.index[i]]
  }
  const values =
    encoding === 'var_list'
      ? new Float32Array(offsets[n])
      : encoding === 'utf8'
        ? new Uint8Array(offsets[n])
        : new Uint32Array(offsets[n])
  for (let i = 0; i < n; i++) {
    const src = listOf(name, unitOf(units, rows.unit[i]), encoding)
    const from = src.values.subarray(src.offsets[rows.index[i]], src.offsets[rows.index[i] + 1])
    if (encoding === 'var_list') (values as Float32Array).set(from as Float32Array, offsets[i])
    else if (encoding === 'utf8') (values as Uint8Array).set(from as Uint8Array, offsets[i])
    else (values as Uint32Array).set(from as Uint32Array, offsets[i])
  }
  return { name, encoding, values, offsets }
}

function listOf(
  name: string,
  unit: DecodedUnit,
  encoding: VarEncoding,
): { values: Float32Array | Uint32Array | Uint8Array; offsets: Uint32Array } {
  const column = unit.columns[name]
  if (column?.encoding !== encoding || !column.offsets) {
    throw new TableError(`column '${name}': unit ${unit.unitId} is not a ${encoding}`, 'schema')
  }
  return { values: column.values as Float32Array | Uint32Array | Uint8Array, offsets: column.offsets }
}

/** File-relative row index of each batch row, from the plan's unit masks. */
function fileRowsOf(plan: ScanPlan, rows: BatchRows): Uint32Array {
  const out = new Uint32Array(rows.unit.length)
  for (let i = 0; i < out.length; i++) {
    const unit = plan.units[rows.unit[i]]
    out[i] = unit.live ? unit.live[rows.index[i]] : unit.rowStart + rows.index[i]
  }
  return out
}

/** Bytes held by a decoded unit's typed arrays. */
export function unitBytes(unit: DecodedUnit): number {
  let bytes = (unit.rowIds?.byteLength ?? 0) + (unit.keys?.byteLength ?? 0)
  for (const c of Object.values(unit.columns)) bytes += c.values.byteLength + (c.offsets?.byteLength ?? 0)
  return bytes
}

/** Bytes held by a batch's typed arrays. */
export function batchBytes(batch: Batch): number {
  let bytes = (batch.ids ? batch.ids.unit.byteLength + batch.ids.row.byteLength : 0) + (batch.keys?.byteLength ?? 0)
  for (const c of Object.values(batch.columns)) bytes += c.values.byteLength + (c.offsets?.byteLength ?? 0)
  return bytes
}
