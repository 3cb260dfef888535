/**
 * The `parquet-wasm` peer's conversion (bench only): one row group decoded by parquet-wasm, as an
 * apache-arrow Table, into the typed columns the loader delivers — ids and strings hashed to 32
 * bits from Arrow's own buffers (the 8 int64 bytes, the UTF-8 bytes: src/util/hash.ts), small ints
 * as Int32Array, floats as Float32Array (null → NaN), `emb` flattened to n × length — then only
 * the unit's live rows kept. Shapes: a column of n rows → n values (n × length for fixed_list).
 */
import { type Data, DataType, type Table, Type } from 'apache-arrow'
import { hashBytes, hashInt64Words, hashInteger } from '../src/util/hash.ts'
import type { CsvColumnSpec } from './loader-csv.ts'

/** Typed column the peer delivers (the loader's value arrays). */
export type PeerColumn = Float32Array | Int32Array | Uint32Array | Uint8Array

/** One unit of a scan plan as the peer's workers read it (structured-cloneable). */
export interface WasmUnit {
  /** Unit id in the plan. */
  id: number
  url: string
  rowGroup: number
  /** File-relative index of the row group's first row. */
  groupStart: number
  /** File-relative rows [rowStart, rowEnd) of the unit. */
  rowStart: number
  rowEnd: number
  /** File-relative live rows, ascending; absent when all of [rowStart, rowEnd) are live. */
  live?: Uint32Array
}

/**
 * The unit's live rows of `table` (the whole row group `unit.rowGroup`) as typed columns, keyed
 * by column name. Throws a RangeError naming the column when it is missing or of a type the
 * peer does not convert.
 */
export function unitColumns(
  table: Table,
  columns: readonly CsvColumnSpec[],
  unit: WasmUnit,
): { rows: number; cols: Record<string, PeerColumn> } {
  const rows = selectedRows(unit, table.numRows)
  const cols: Record<string, PeerColumn> = {}
  for (const c of columns) {
    const vector = table.getChild(c.name)
    if (!vector) throw new RangeError(`column ${c.name}: not in the row group read by parquet-wasm`)
    const whole = convert(vector.data, c, table.numRows)
    cols[c.name] = rows ? gather(whole, rows, c.encoding === 'fixed_list' ? (c.length ?? 1) : 1) : whole
  }
  const n = rows ? rows.length : table.numRows
  return { rows: n, cols }
}

/** Group-relative indices of the unit's rows, or null when the unit is the whole group, all live. */
function selectedRows(unit: WasmUnit, groupRows: number): Uint32Array | null {
  const start = unit.rowStart - unit.groupStart
  const end = unit.rowEnd - unit.groupStart
  if (!unit.live && start === 0 && end === groupRows) return null
  if (unit.live) return unit.live.map(r => r - unit.groupStart)
  return Uint32Array.from({ length: end - start }, (_, i) => start + i)
}

function gather(src: PeerColumn, rows: Uint32Array, len: number): PeerColumn {
  const dst = new (src.constructor as new (n: number) => PeerColumn)(rows.length * len)
  if (len === 1) for (let i = 0; i < rows.length; i++) dst[i] = src[rows[i]!]!
  else for (let i = 0; i < rows.length; i++) dst.set(src.subarray(rows[i]! * len, (rows[i]! + 1) * len), i * len)
  return dst
}

/** All `n` rows of one column (its Arrow chunks in order) in the spec's encoding. */
function convert(chunks: readonly Data[], spec: CsvColumnSpec, n: number): PeerColumn {
  const len = spec.length ?? 1
  const out =
    spec.encoding === 'hash32'
      ? new Uint32Array(n)
      : spec.encoding === 'int32'
        ? new Int32Array(n)
        : spec.encoding === 'fixed_list'
          ? new Float32Array(n * len)
          : new Float32Array(n)
  let row = 0
  for (const d of chunks) {
    if (spec.encoding === 'hash32') hashChunk(d, out as Uint32Array, row, spec.name)
    else if (spec.encoding === 'fixed_list') listChunk(d, out as Float32Array, row, len, spec.name)
    else numberChunk(d, out as Int32Array | Float32Array, row, spec)
    row += d.length
  }
  if (row !== n) throw new RangeError(`column ${spec.name}: ${row} rows decoded, the row group has ${n}`)
  return out
}

function isNull(d: Data, i: number): boolean {
  return (
    d.nullCount > 0 &&
    d.nullBitmap !== undefined &&
    ((d.nullBitmap[(d.offset + i) >> 3]! >> ((d.offset + i) & 7)) & 1) === 0
  )
}

function hashChunk(d: Data, out: Uint32Array, at: number, name: string): void {
  if (d.nullCount > 0) throw new RangeError(`column ${name}: null value (hash32 ids have no null)`)
  const id = d.typeId
  if (DataType.isInt(d.type) && d.type.bitWidth === 64) {
    const v = d.values as BigInt64Array
    const words = new Int32Array(v.buffer, v.byteOffset + d.offset * 8, d.length * 2)
    for (let i = 0; i < d.length; i++) out[at + i] = hashInt64Words(words[2 * i]!, words[2 * i + 1]!)
    return
  }
  if (id === Type.Int) {
    const v = d.values as Int32Array
    for (let i = 0; i < d.length; i++) out[at + i] = hashInteger(v[d.offset + i]!)
    return
  }
  if (id === Type.Utf8 || id === Type.Binary) {
    const offsets = d.valueOffsets as Int32Array
    const bytes = d.values as Uint8Array
    for (let i = 0; i < d.length; i++)
      out[at + i] = hashBytes(bytes, offsets[d.offset + i]!, offsets[d.offset + i + 1]!)
    return
  }
  if (id === Type.Dictionary && d.dictionary) {
    const dict = new Uint32Array(d.dictionary.length)
    let row = 0
    for (const c of d.dictionary.data) {
      hashChunk(c, dict, row, name)
      row += c.length
    }
    const keys = d.values as ArrayLike<number>
    for (let i = 0; i < d.length; i++) out[at + i] = dict[keys[d.offset + i]!]!
    return
  }
  throw new RangeError(`column ${name}: cannot hash Arrow type ${String(d.type)}`)
}

function numberChunk(d: Data, out: Int32Array | Float32Array, at: number, spec: CsvColumnSpec): void {
  const id = d.typeId
  if (id !== Type.Int && id !== Type.Float && id !== Type.Bool)
    throw new RangeError(`column ${spec.name}: cannot convert Arrow type ${String(d.type)} to ${spec.encoding}`)
  const float = spec.encoding !== 'int32'
  if (id === Type.Bool) {
    const bits = d.values as Uint8Array
    for (let i = 0; i < d.length; i++) out[at + i] = (bits[(d.offset + i) >> 3]! >> ((d.offset + i) & 7)) & 1
  } else if (d.values instanceof BigInt64Array || d.values instanceof BigUint64Array) {
    for (let i = 0; i < d.length; i++) out[at + i] = Number(d.values[d.offset + i]!)
  } else {
    out.set((d.values as Int32Array | Float32Array | Float64Array).subarray(d.offset, d.offset + d.length), at)
  }
  if (d.nullCount === 0) return
  if (!float) throw new RangeError(`column ${spec.name}: null value in an int32 column`)
  for (let i = 0; i < d.length; i++) if (isNull(d, i)) out[at + i] = Number.NaN
}

function listChunk(d: Data, out: Float32Array, at: number, len: number, name: string): void {
  const child = d.children[0]
  if ((d.typeId !== Type.List && d.typeId !== Type.FixedSizeList) || !child || child.typeId !== Type.Float)
    throw new RangeError(`column ${name}: cannot flatten Arrow type ${String(d.type)} to a float list`)
  const values = child.values as Float32Array | Float64Array
  const fixed = DataType.isFixedSizeList(d.type) ? d.type.listSize : 0
  const offsets = fixed ? undefined : (d.valueOffsets as Int32Array)
  out.fill(Number.NaN, at * len, (at + d.length) * len)
  for (let i = 0; i < d.length; i++) {
    if (isNull(d, i)) continue
    const s = offsets ? offsets[d.offset + i]! : (d.offset + i) * fixed
    const e = Math.min(offsets ? offsets[d.offset + i + 1]! : s + fixed, s + len)
    for (let k = s; k < e; k++) out[(at + i) * len + k - s] = isNull(child, k) ? Number.NaN : values[child.offset + k]!
  }
}
