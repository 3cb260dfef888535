/**
 * Column decoders: hyparquet's column chunks (typed arrays for required primitives, JS arrays
 * otherwise) → one DecodedColumn (types.ts) holding only the selected rows, in row order.
 *
 * N = rows selected (a unit's live rows), L = elements per row of a fixed_list.
 * The selection is file-relative row indices; chunks carry their first file-relative row, so
 * rows are picked while copying and no intermediate per-row objects are built.
 */
import { TableError, type DeltaType } from '../table/types.ts'
import { hashInt64Words, hashString } from '../util/hash.ts'
import { lowerBound } from '../util/lower-bound.ts'
import { ValueError, describe, toBool, toFloat, toHash, toInteger } from './decode-values.ts'
import type { ColumnEncoding, DecodedColumn } from './types.ts'

/** A piece of one column as hyparquet hands it over: values of file rows [rowStart, rowStart + data.length). */
export interface ColumnChunk {
  rowStart: number
  data: ArrayLike<unknown>
}

/** Rows to keep: file-relative [start, end), or the ascending `live` indices within it. */
export interface RowSelection {
  start: number
  end: number
  live?: Uint32Array
}

/** Where a column comes from, for error messages. */
export interface DecodeContext {
  column: string
  url: string
}

const INT32_MIN = -0x80000000
const INT32_MAX = 0x7fffffff
const UINT32_MAX = 0xffffffff
/** Array elements hashed as ids (hash_list), and those read as numbers (fixed_list). */
const HASHABLE = new Set(['string', 'binary', 'boolean', 'byte', 'short', 'integer', 'long'])
const FLOATS = new Set(['float', 'double'])

/**
 * Default encoding of a Delta type: byte/short/integer → int32; long, float, double, decimal,
 * date (days), timestamp (seconds since the epoch; float32 keeps ~7 digits) → float32; boolean →
 * bool; string/binary → hash32; array of float, double or decimal → fixed_list; array of ids
 * (strings, binary, booleans, integers) → hash_list (var_list reads integer arrays as numbers).
 * Ask 'hash32' for int64 ids.
 * Throws TableError('schema') naming the column for types with no typed-array form (struct, map).
 */
export function defaultEncoding(type: DeltaType, column = '?'): ColumnEncoding {
  if (typeof type === 'string') {
    if (type === 'byte' || type === 'short' || type === 'integer') return 'int32'
    if (type === 'boolean') return 'bool'
    if (type === 'string' || type === 'binary') return 'hash32'
    return 'float32' // long, float, double, decimal(p,s), date, timestamp, timestamp_ntz
  }
  if (type.type === 'array' && typeof type.elementType === 'string') {
    if (HASHABLE.has(type.elementType)) return 'hash_list'
    if (FLOATS.has(type.elementType) || type.elementType.startsWith('decimal')) return 'fixed_list'
  }
  throw new TableError(`column '${column}': type ${JSON.stringify(type)} has no typed-array encoding`, 'schema')
}

/**
 * Decodes the selected rows of one column from its chunks (any order, may cover extra rows).
 * Throws TableError('schema') naming column, file and row for a null in an int32/uint32/hash32/
 * bool column, a value that does not fit, or a fixed_list row of another length.
 */
export function decodeColumn(
  chunks: readonly ColumnChunk[],
  sel: RowSelection,
  encoding: ColumnEncoding,
  ctx: DecodeContext,
): DecodedColumn {
  const n = sel.live ? sel.live.length : sel.end - sel.start
  const sorted = [...chunks].sort((a, b) => a.rowStart - b.rowStart)
  const spans = spansOf(sorted, sel, ctx)
  try {
    switch (encoding) {
      case 'float32':
        return { name: ctx.column, encoding, values: gatherFloat(spans, sel, n) }
      case 'int32':
        return { name: ctx.column, encoding, values: gatherInt(spans, sel, new Int32Array(n), INT32_MIN, INT32_MAX) }
      case 'uint32':
        return { name: ctx.column, encoding, values: gatherInt(spans, sel, new Uint32Array(n), 0, UINT32_MAX) }
      case 'hash32':
        return { name: ctx.column, encoding, values: gatherHash(spans, sel, n) }
      case 'bool':
        return { name: ctx.column, encoding, values: gatherWith(spans, sel, new Uint8Array(n), toBool) }
      case 'fixed_list':
        return gatherFixedList(spans, sel, n, ctx.column)
      case 'var_list':
        return gatherVarList(spans, sel, n, ctx.column)
      case 'hash_list':
        return gatherHashList(spans, sel, n, ctx.column)
      case 'utf8':
        return gatherUtf8(spans, sel, n, ctx.column)
    }
  } catch (error) {
    throw located(error, ctx)
  }
  throw new TableError(`column '${ctx.column}': unknown encoding '${String(encoding)}'`, 'schema')
}

/**
 * Row-key value hashes (src/data/row-key.ts) of the selected rows of one column: hash32's hash of
 * each value, with a null given `nullHash` instead of refused. Throws like decodeColumn, naming
 * column, file and row.
 */
export function decodeKeyColumn(
  chunks: readonly ColumnChunk[],
  sel: RowSelection,
  ctx: DecodeContext,
  nullHash: number,
): Uint32Array {
  const n = sel.live ? sel.live.length : sel.end - sel.start
  const sorted = [...chunks].sort((a, b) => a.rowStart - b.rowStart)
  try {
    return gatherHash(spansOf(sorted, sel, ctx), sel, n, nullHash)
  } catch (error) {
    throw located(error, ctx)
  }
}

/**
 * A column whose every row holds the same value (partition column, or null for a column the file
 * predates), decoded like a chunk of identical values.
 */
export function decodeConstant(
  value: unknown,
  sel: RowSelection,
  encoding: ColumnEncoding,
  ctx: DecodeContext,
): DecodedColumn {
  const data = new Array<unknown>(sel.end - sel.start).fill(value)
  return decodeColumn([{ rowStart: sel.start, data }], sel, encoding, ctx)
}

/** Output rows [k0, k1) come from `data`, where output row k is data[rowOf(k) − base]. */
interface Span {
  data: ArrayLike<unknown>
  base: number
  k0: number
  k1: number
}

/** Cuts the output rows into per-chunk spans; every selected row must be covered exactly once. */
function spansOf(chunks: readonly ColumnChunk[], sel: RowSelection, ctx: DecodeContext): Span[] {
  const n = sel.live ? sel.live.length : sel.end - sel.start
  const spans: Span[] = []
  let covered = 0 // output rows [0, covered) have a span
  for (const chunk of chunks) {
    const lo = Math.max(chunk.rowStart, sel.start)
    const hi = Math.min(chunk.rowStart + chunk.data.length, sel.end)
    if (lo >= hi) continue
    const k0 = sel.live ? lowerBound(sel.live, lo) : lo - sel.start
    const k1 = sel.live ? lowerBound(sel.live, hi) : hi - sel.start
    if (k1 <= covered) continue
    if (k0 > covered) break // a gap: reported below
    spans.push({ data: chunk.data, base: chunk.rowStart, k0: covered, k1 })
    covered = k1
  }
  if (covered !== n) {
    throw new TableError(
      `${ctx.url}: column '${ctx.column}': file row ${rowAt(sel, covered)} missing from the decoded pages`,
      'corrupt-file',
      ctx.url,
    )
  }
  return spans
}

function rowAt(sel: RowSelection, k: number): number {
  return sel.live ? sel.live[k] : sel.start + k
}

/** Marks which output row failed, so `located` can name the file row. */
class RowError extends Error {
  constructor(
    readonly k: number,
    readonly cause: unknown,
  ) {
    super(String(cause))
  }
}

function located(error: unknown, ctx: DecodeContext): unknown {
  if (!(error instanceof RowError)) return error
  const reason = error.cause instanceof Error ? error.cause.message : String(error.cause)
  return new TableError(`${ctx.url}: column '${ctx.column}': ${reason} at file row ${error.k}`, 'schema', ctx.url)
}

function gatherFloat(spans: Span[], sel: RowSelection, n: number): Float32Array {
  const out = new Float32Array(n)
  for (const { data, base, k0, k1 } of spans) {
    const typed = ArrayBuffer.isView(data) && !(data instanceof BigInt64Array) && !(data instanceof BigUint64Array)
    const values = data as ArrayLike<number>
    for (let k = k0; k < k1; k++) {
      const i = (sel.live ? sel.live[k] : sel.start + k) - base
      out[k] = typed ? values[i] : floatAt(data, i, sel, k)
    }
  }
  return out
}

function floatAt(data: ArrayLike<unknown>, i: number, sel: RowSelection, k: number): number {
  const v = data[i]
  if (typeof v === 'number') return v
  if (v === null || v === undefined) return NaN
  return guard(() => toFloat(v), sel, k)
}

function guard<T>(fn: () => T, sel: RowSelection, k: number): T {
  try {
    return fn()
  } catch (error) {
    if (error instanceof ValueError) throw new RowError(rowAt(sel, k), error)
    throw error
  }
}

function gatherInt<T extends Int32Array | Uint32Array>(
  spans: Span[],
  sel: RowSelection,
  out: T,
  min: number,
  max: number,
): T {
  const what = min < 0 ? 'int32' : 'uint32'
  for (const { data, base, k0, k1 } of spans) {
    const exact = min < 0 ? data instanceof Int32Array : data instanceof Uint32Array
    for (let k = k0; k < k1; k++) {
      const i = (sel.live ? sel.live[k] : sel.start + k) - base
      const v = data[i]
      if (exact) out[k] = v as number
      else if (typeof v === 'number' && (min < 0 ? (v | 0) === v : v >>> 0 === v)) out[k] = v
      else out[k] = guard(() => toInteger(v, min, max, what), sel, k)
    }
  }
  return out
}

function gatherWith<T extends Uint8Array | Uint32Array>(
  spans: Span[],
  sel: RowSelection,
  out: T,
  convert: (v: unknown) => number,
): T {
  for (const { data, base, k0, k1 } of spans) {
    for (let k = k0; k < k1; k++) {
      const v = data[(sel.live ? sel.live[k] : sel.start + k) - base]
      out[k] = typeof v === 'boolean' ? (v ? 1 : 0) : guard(() => convert(v), sel, k)
    }
  }
  return out
}

/**
 * hash32 with fast paths: int64 chunks hash their two 32-bit words; strings go through a memo.
 * With `nullHash` (row keys) a null gets that value instead of an error.
 */
function gatherHash(spans: Span[], sel: RowSelection, n: number, nullHash?: number): Uint32Array {
  const out = new Uint32Array(n)
  const memo = new Map<string, number>() // dictionary-encoded strings repeat; hashing each once
  for (const { data, base, k0, k1 } of spans) {
    if (data instanceof BigInt64Array || data instanceof BigUint64Array) {
      const words = new Int32Array(data.buffer, data.byteOffset, data.length * 2)
      for (let k = k0; k < k1; k++) {
        const i = (sel.live ? sel.live[k] : sel.start + k) - base
        out[k] = hashInt64Words(words[2 * i], words[2 * i + 1])
      }
      continue
    }
    for (let k = k0; k < k1; k++) {
      const v = data[(sel.live ? sel.live[k] : sel.start + k) - base]
      if (typeof v === 'string') out[k] = memoHash(memo, v)
      else if (nullHash !== undefined && (v === null || v === undefined)) out[k] = nullHash
      else out[k] = guard(() => toHash(v), sel, k)
    }
  }
  return out
}

function memoHash(memo: Map<string, number>, s: string): number {
  let h = memo.get(s)
  if (h === undefined) {
    h = hashString(s)
    if (memo.size < 65_536) memo.set(s, h)
  }
  return h
}

/** fixed_list: L from the first non-null row; null rows (and null elements) → NaN. */
function gatherFixedList(spans: Span[], sel: RowSelection, n: number, column: string): DecodedColumn {
  const length = firstListLength(spans, sel)
  const out = new Float32Array(n * length).fill(NaN)
  for (const { data, base, k0, k1 } of spans) {
    for (let k = k0; k < k1; k++) {
      const list = data[(sel.live ? sel.live[k] : sel.start + k) - base]
      if (list === null || list === undefined) continue
      if (!isList(list)) throw new RowError(rowAt(sel, k), new ValueError(`expected a list, got ${describe(list)}`))
      if (list.length !== length) {
        throw new RowError(
          rowAt(sel, k),
          new ValueError(`list of length ${list.length}, expected ${length} (fixed_list; use var_list)`),
        )
      }
      for (let j = 0; j < length; j++) out[k * length + j] = elementAt(list, j, sel, k)
    }
  }
  return { name: column, encoding: 'fixed_list', values: out, length }
}

function isList(v: unknown): v is ArrayLike<unknown> {
  return Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView))
}

function firstListLength(spans: Span[], sel: RowSelection): number {
  for (const { data, base, k0, k1 } of spans) {
    for (let k = k0; k < k1; k++) {
      const list = data[(sel.live ? sel.live[k] : sel.start + k) - base]
      if (isList(list)) return list.length
    }
  }
  return 0
}

function elementAt(list: ArrayLike<unknown>, j: number, sel: RowSelection, k: number): number {
  const v = list[j]
  return typeof v === 'number' ? v : v === null || v === undefined ? NaN : guard(() => toFloat(v), sel, k)
}

/** var_list: offsets (N + 1) into one Float32Array of all elements; a null row is empty. */
function gatherVarList(spans: Span[], sel: RowSelection, n: number, column: string): DecodedColumn {
  const offsets = new Uint32Array(n + 1)
  for (const { data, base, k0, k1 } of spans) {
    for (let k = k0; k < k1; k++) {
      const list = data[(sel.live ? sel.live[k] : sel.start + k) - base]
      if (list !== null && list !== undefined && !isList(list))
        throw new RowError(rowAt(sel, k), new ValueError(`expected a list, got ${describe(list)}`))
      offsets[k + 1] = isList(list) ? list.length : 0
    }
  }
  for (let k = 0; k < n; k++) offsets[k + 1] += offsets[k]
  const values = new Float32Array(offsets[n])
  for (const { data, base, k0, k1 } of spans) {
    for (let k = k0; k < k1; k++) {
      const list = data[(sel.live ? sel.live[k] : sel.start + k) - base]
      if (!isList(list)) continue
      for (let j = 0; j < list.length; j++) values[offsets[k] + j] = elementAt(list, j, sel, k)
    }
  }
  return { name: column, encoding: 'var_list', values, offsets }
}

/**
 * hash_list: offsets (N + 1) into one Uint32Array of item hashes, each item hashed exactly as a
 * hash32 value (strings through the same memo, int64 items as their words); a null row is an
 * empty list and a null item is left out.
 */
const UTF8 = new TextEncoder()

/**
 * 'utf8': each row's value as byte 1 followed by its UTF-8 bytes (a string, or the bytes of an
 * unannotated BYTE_ARRAY as they are), a null row as no bytes; anything else is refused.
 */
function gatherUtf8(spans: Span[], sel: RowSelection, n: number, column: string): DecodedColumn {
  const rows = new Array<Uint8Array | undefined>(n)
  const offsets = new Uint32Array(n + 1)
  for (const { data, base, k0, k1 } of spans) {
    for (let k = k0; k < k1; k++) {
      const v = data[(sel.live ? sel.live[k] : sel.start + k) - base]
      if (v === null || v === undefined) continue
      const bytes = typeof v === 'string' ? UTF8.encode(v) : v instanceof Uint8Array ? v : undefined
      if (!bytes) throw new RowError(rowAt(sel, k), new ValueError(`expected a string, got ${describe(v)}`))
      rows[k] = bytes
      offsets[k + 1] = bytes.length + 1
    }
  }
  for (let k = 0; k < n; k++) offsets[k + 1] += offsets[k]
  const values = new Uint8Array(offsets[n])
  for (let k = 0; k < n; k++) {
    const bytes = rows[k]
    if (!bytes) continue
    values[offsets[k]] = 1
    values.set(bytes, offsets[k] + 1)
  }
  return { name: column, encoding: 'utf8', values, offsets }
}

const TEXT = new TextDecoder()

/** The strings of a 'utf8' column (null for a null row), in row order. */
export function utf8Strings(column: DecodedColumn): (string | null)[] {
  const { values, offsets } = column
  if (column.encoding !== 'utf8' || !offsets || !(values instanceof Uint8Array))
    throw new TypeError(`column '${column.name}': ${column.encoding}, not utf8`)
  const out = new Array<string | null>(offsets.length - 1)
  for (let k = 0; k < out.length; k++) {
    const a = offsets[k],
      b = offsets[k + 1]
    out[k] = a === b ? null : TEXT.decode(values.subarray(a + 1, b))
  }
  return out
}

function gatherHashList(spans: Span[], sel: RowSelection, n: number, column: string): DecodedColumn {
  const offsets = new Uint32Array(n + 1)
  for (const { data, base, k0, k1 } of spans) {
    for (let k = k0; k < k1; k++) {
      const list = data[(sel.live ? sel.live[k] : sel.start + k) - base]
      if (list === null || list === undefined) continue
      if (!isList(list)) throw new RowError(rowAt(sel, k), new ValueError(`expected a list, got ${describe(list)}`))
      let items = 0
      for (let j = 0; j < list.length; j++) if (list[j] !== null && list[j] !== undefined) items++
      offsets[k + 1] = items
    }
  }
  for (let k = 0; k < n; k++) offsets[k + 1] += offsets[k]
  const values = new Uint32Array(offsets[n])
  const memo = new Map<string, number>()
  for (const { data, base, k0, k1 } of spans) {
    for (let k = k0; k < k1; k++) {
      const list = data[(sel.live ? sel.live[k] : sel.start + k) - base]
      if (!isList(list)) continue
      let at = offsets[k]
      for (let j = 0; j < list.length; j++) {
        const v = list[j]
        if (v === null || v === undefined) continue
        values[at++] = typeof v === 'string' ? memoHash(memo, v) : guard(() => toHash(v), sel, k)
      }
    }
  }
  return { name: column, encoding: 'hash_list', values, offsets }
}
