/**
 * Row values (types.ts `Row`) → JSON and CSV text for `snaptrain scan`. JSON carries what it can
 * exactly: int64 beyond ±(2^53−1) as strings (a JSON number there would silently round), NaN/±Inf
 * as strings (JSON has no such numbers), timestamps ISO-8601, binary base64, maps as objects.
 */
import { Timestamp } from '../table/timestamp.ts'
import type { Row } from '../table/types.ts'
import { csvField as plainCsvField, type CsvOptions } from '../util/csv.ts'
import { escapeControls } from './io.ts'

/** A value JSON.stringify writes as is. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue }

/**
 * Converts one decoded value to JSON. bigint → number when a safe integer, else decimal string;
 * non-finite numbers → 'NaN' | 'Infinity' | '-Infinity'; Timestamp → ISO-8601 (UTC; 3 fraction
 * digits, or 6/9 when the value has µs/ns) and Date → ISO-8601 (UTC, ms), null when not printable;
 * Uint8Array → base64; Map → object when every key is a string, else [key, value] pairs;
 * arrays and structs recursively; undefined → null.
 */
export function toJsonValue(v: unknown): JsonValue {
  if (v === null || v === undefined) return null
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v
    case 'number':
      return Number.isFinite(v) ? v : String(v)
    case 'bigint':
      return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString()
    case 'object':
      return objectToJson(v)
    default:
      return String(v)
  }
}

function objectToJson(v: object): JsonValue {
  if (v instanceof Timestamp) return v.toJSON()
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString()
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64')
  if (Array.isArray(v)) return v.map(toJsonValue)
  if (ArrayBuffer.isView(v)) return Array.from(v as unknown as ArrayLike<unknown>, toJsonValue)
  if (v instanceof Map) return mapToJson(v)
  return entriesToObject(Object.entries(v))
}

function mapToJson(m: Map<unknown, unknown>): JsonValue {
  const entries = [...m.entries()]
  if (entries.every(([k]) => typeof k === 'string')) return entriesToObject(entries as [string, unknown][])
  return entries.map(([k, val]) => [toJsonValue(k), toJsonValue(val)])
}

/** Null-prototype object, so a key named '__proto__' stays a plain key. */
function entriesToObject(entries: [string, unknown][]): { [k: string]: JsonValue } {
  const out: { [k: string]: JsonValue } = Object.create(null)
  for (const [k, val] of entries) out[k] = toJsonValue(val)
  return out
}

/**
 * One row as a JSON line, keys in `columns` order (all of the row's keys when omitted). DEL and
 * C1 characters, which JSON.stringify writes raw, are written as `\u00XX`: the same JSON, and a
 * table cannot send terminal escapes through `scan | less`.
 */
export function rowToJsonLine(row: Row, columns?: readonly string[]): string {
  const keys = columns ?? Object.keys(row)
  return escapeControls(JSON.stringify(entriesToObject(keys.map(k => [k, row[k]]))))
}

/** No options: the default of every CSV writer (one object, not one per field). */
const NO_OPTIONS: CsvOptions = {}

/**
 * One CSV field of a row value, in util/csv.ts's dialect (null → empty field, '' → `""`, nested
 * values (struct, array, map) → their JSON text), after toJsonValue's conversion (int64,
 * timestamps, binary). With `formulaGuard`, string values (not numbers, int64 or decimals) that a
 * spreadsheet would run get a leading `'`.
 */
export function csvField(v: unknown, opts: CsvOptions = NO_OPTIONS): string {
  return plainCsvField(toJsonValue(v), typeof v === 'string' ? opts : NO_OPTIONS)
}

/** One CSV record (no line terminator) of `values` in order. */
export function csvRecord(values: readonly unknown[], opts: CsvOptions = NO_OPTIONS): string {
  let line = ''
  for (let i = 0; i < values.length; i++) line += (i ? ',' : '') + csvField(values[i], opts)
  return line
}

/** One row as a CSV record, fields in `columns` order (the hot loop of `scan --format csv`: no arrays per row). */
export function rowToCsvLine(row: Row, columns: readonly string[], opts: CsvOptions = NO_OPTIONS): string {
  let line = ''
  for (let i = 0; i < columns.length; i++) line += (i ? ',' : '') + csvField(row[columns[i]], opts)
  return line
}
