/**
 * A decoded unit as bytes, for the epoch cache's spill store (unit-cache.ts): a small
 * self-describing file — magic, header length, a JSON header (the entry's key and where each typed
 * array lies), then every array's bytes at an 8-byte aligned offset, so reading back makes views
 * on the file's one buffer without copying. Round-trips exactly (bytes, NaN payloads included).
 * Byte order is the machine's: the files never leave it.
 */
import type { DecodedColumn, DecodedUnit } from './types.ts'

const MAGIC = 0x43555453 // 'STUC' little-endian
/** Bumped whenever the layout or the decoders' output changes: older files are then a miss. */
export const UNIT_CODEC_VERSION = 2

type ArrayType = 'f32' | 'i32' | 'u32' | 'u8'
type Typed = Float32Array | Int32Array | Uint32Array | Uint8Array

interface ArraySpan {
  type: ArrayType
  offset: number
  length: number
}

interface Header {
  v: number
  key: string
  /** The row-key part of the entry (UnitKey.rowKeys) when the unit carries row keys. */
  rowKeys?: string
  rows: number
  columns: { name: string; encoding: DecodedColumn['encoding']; length?: number; values: number; offsets?: number }[]
  rowIds?: number
  keys?: number
  arrays: ArraySpan[]
}

function typeOf(a: Typed): ArrayType {
  if (a instanceof Float32Array) return 'f32'
  if (a instanceof Int32Array) return 'i32'
  if (a instanceof Uint32Array) return 'u32'
  if (a instanceof Uint8Array) return 'u8'
  throw new TypeError(`unit cache: cannot store a ${(a as object).constructor.name}`)
}

const CTORS = { f32: Float32Array, i32: Int32Array, u32: Uint32Array, u8: Uint8Array } as const

/**
 * Serialises `unit` (its columns, row ids and keys; not its timing) under `key`, with `rowKeys`
 * (what its row keys were made of) when it carries them.
 */
export function encodeUnit(key: string, unit: DecodedUnit, rowKeys?: string): Uint8Array {
  const arrays: Typed[] = []
  const add = (a: Typed): number => arrays.push(a) - 1
  const header: Header = {
    v: UNIT_CODEC_VERSION,
    key,
    ...(rowKeys !== undefined ? { rowKeys } : {}),
    rows: unit.rows,
    columns: Object.values(unit.columns).map(c => ({
      name: c.name,
      encoding: c.encoding,
      ...(c.length !== undefined ? { length: c.length } : {}),
      values: add(c.values),
      ...(c.offsets ? { offsets: add(c.offsets) } : {}),
    })),
    arrays: [],
  }
  if (unit.rowIds) header.rowIds = add(unit.rowIds)
  if (unit.keys) header.keys = add(unit.keys)
  let at = 0
  for (const a of arrays) {
    header.arrays.push({ type: typeOf(a), offset: at, length: a.length })
    at = align8(at + a.byteLength)
  }
  const json = new TextEncoder().encode(JSON.stringify(header))
  const start = align8(8 + json.length)
  const out = new Uint8Array(start + at)
  const view = new DataView(out.buffer)
  view.setUint32(0, MAGIC, true)
  view.setUint32(4, json.length, true)
  out.set(json, 8)
  arrays.forEach((a, i) => {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), start + header.arrays[i].offset)
  })
  return out
}

/**
 * The unit stored in `bytes` when it was stored under `key`, and the row-key part it was stored
 * with; undefined when the bytes are not a unit file of this version, are cut short, or hold
 * another key (a name collision, a stale file). `unitId` is the reader's id of the unit (ids
 * differ between plans). The arrays are views on `bytes`' buffer.
 */
export function decodeUnit(
  bytes: Uint8Array,
  key: string,
  unitId: number,
): { unit: DecodedUnit; rowKeys?: string } | undefined {
  if (bytes.byteLength < 8 || bytes.byteOffset % 8 !== 0) return undefined
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (view.getUint32(0, true) !== MAGIC) return undefined
  const length = view.getUint32(4, true)
  if (8 + length > bytes.byteLength) return undefined
  let header: Header
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + length))) as Header
  } catch {
    return undefined
  }
  if (header?.v !== UNIT_CODEC_VERSION || header.key !== key) return undefined
  try {
    return readArrays(bytes, align8(8 + length), header, unitId)
  } catch {
    return undefined // a header that does not describe its arrays (a damaged file)
  }
}

/**
 * The unit the header describes, or undefined when the header does not hold against itself:
 * arrays within the file, row ids and keys one per row, offsets n + 1 and rising to no more than
 * their values, other columns at least rows × width values. (May throw on what it does not foresee:
 * the caller takes that as undefined too.)
 */
function readArrays(
  bytes: Uint8Array,
  start: number,
  header: Header,
  unitId: number,
): { unit: DecodedUnit; rowKeys?: string } | undefined {
  const whole = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0
  if (!whole(header.rows)) return undefined
  const arrays: Typed[] = []
  for (const span of header.arrays) {
    const Ctor = CTORS[span.type]
    if (!Ctor || !whole(span.offset) || !whole(span.length)) return undefined
    if (start + span.offset + span.length * Ctor.BYTES_PER_ELEMENT > bytes.byteLength) return undefined
    arrays.push(new Ctor(bytes.buffer as ArrayBuffer, bytes.byteOffset + start + span.offset, span.length))
  }
  const rows = header.rows
  const rowArray = (i: number | undefined): boolean => i === undefined || arrays[i]?.length === rows
  if (!rowArray(header.rowIds) || !rowArray(header.keys)) return undefined
  for (const c of header.columns) {
    const values = arrays[c.values]
    if (!values) return undefined
    if (c.offsets !== undefined) {
      const offsets = arrays[c.offsets]
      if (!(offsets instanceof Uint32Array) || offsets.length !== rows + 1) return undefined
      for (let i = 0; i < rows; i++) if (offsets[i] > offsets[i + 1]) return undefined
      if (offsets[rows] > values.length) return undefined
    } else {
      const width = c.encoding === 'fixed_list' ? c.length : 1
      if (!whole(width) || values.length < rows * width) return undefined
    }
  }
  const columns: Record<string, DecodedColumn> = {}
  for (const c of header.columns) {
    const column: DecodedColumn = { name: c.name, encoding: c.encoding, values: arrays[c.values] }
    if (c.length !== undefined) column.length = c.length
    if (c.offsets !== undefined) column.offsets = arrays[c.offsets] as Uint32Array
    columns[c.name] = column
  }
  const unit: DecodedUnit = { unitId, rows: header.rows, columns, timing: { fetchMs: 0, decodeMs: 0, bytes: 0 } }
  if (header.rowIds !== undefined) unit.rowIds = arrays[header.rowIds] as Uint32Array
  if (header.keys !== undefined) unit.keys = arrays[header.keys] as Uint32Array
  return header.rowKeys !== undefined ? { unit, rowKeys: header.rowKeys } : { unit }
}

function align8(n: number): number {
  return Math.ceil(n / 8) * 8
}
