/**
 * Canonical text form of table values, for comparing the reader's Rows with expected rows that
 * come in other shapes (Spark-written parquet read by plain hyparquet, or JSON from EXPECTED.json).
 * Both sides go through `canonical(value, deltaType)`, so only the meaning is compared:
 * integers as decimal text, decimals without trailing zeros, dates as 'YYYY-MM-DD', timestamps as
 * exact µs since epoch (plus '+<n>ns' when a value has nanoseconds), maps as sorted entries.
 */
import { Timestamp } from '../../src/table/timestamp.ts'
import type { DeltaType } from '../../src/table/types.ts'

const MS_PER_DAY = 86_400_000
const utf8 = new TextDecoder()

/** '-012.3400' → '-12.34'; '0E-10' → '0'; numbers via their shortest decimal text. */
export function canonicalDecimal(value: unknown): string {
  const text = typeof value === 'number' ? String(Number(value.toPrecision(15))) : String(value)
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim())
  if (!match) return `?decimal(${text})`
  const [, sign, whole, fraction = '', exponent = '0'] = match
  let digits = (whole + fraction).replace(/^0+/, '')
  let scale = fraction.length - Number(exponent)
  if (!digits) return '0'
  while (scale > 0 && digits.endsWith('0')) {
    digits = digits.slice(0, -1)
    scale--
  }
  if (scale < 0) {
    digits += '0'.repeat(-scale)
    scale = 0
  }
  const padded = digits.padStart(scale + 1, '0')
  const body = scale ? `${padded.slice(0, -scale)}.${padded.slice(-scale)}` : padded
  return (sign === '-' ? '-' : '') + body
}

function canonicalInteger(value: unknown): string {
  if (typeof value === 'bigint') return value.toString()
  if (typeof value === 'number' && Number.isInteger(value)) return String(value)
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value).toString()
  return `?int(${String(value)})`
}

function canonicalDate(value: unknown): string {
  if (typeof value === 'string') return value
  if (value instanceof Date) return value.toISOString().slice(0, 10)
  if (typeof value === 'number') return new Date(value * MS_PER_DAY).toISOString().slice(0, 10)
  return `?date(${String(value)})`
}

/**
 * Timestamps as exact µs: Timestamp → its micros (and nanos); bigint or integral number →
 * microseconds (the expected files' unit); text → parsed exactly. A Date (ms) is refused, since
 * comparing at ms would hide a lost microsecond.
 */
function canonicalTimestamp(value: unknown): string {
  const timestamp = Timestamp.from(value)
  if (timestamp) return timestamp.nanos ? `${timestamp.micros}+${timestamp.nanos}ns` : String(timestamp.micros)
  if (typeof value === 'bigint') return value.toString()
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value)
  const parsed = typeof value === 'string' ? Timestamp.parse(value) : undefined
  if (parsed) return canonicalTimestamp(parsed)
  return `?timestamp(${String(value)})`
}

function canonicalBinary(value: unknown): string {
  const bytes =
    value instanceof Uint8Array ? value : typeof value === 'string' ? new TextEncoder().encode(value) : undefined
  return bytes ? `0x${Array.from(bytes, b => b.toString(16).padStart(2, '0')).join('')}` : `?binary(${String(value)})`
}

function canonicalPrimitive(value: unknown, type: string): unknown {
  switch (type) {
    case 'string':
      return value instanceof Uint8Array ? utf8.decode(value) : String(value)
    case 'long':
    case 'integer':
    case 'short':
    case 'byte':
      return canonicalInteger(value)
    case 'float':
    case 'double':
      return Number.isNaN(Number(value)) ? 'NaN' : String(Number(value))
    case 'boolean':
      return value === true || value === 'true'
        ? 'true'
        : value === false || value === 'false'
          ? 'false'
          : `?bool(${String(value)})`
    case 'binary':
      return canonicalBinary(value)
    case 'date':
      return canonicalDate(value)
    case 'timestamp':
    case 'timestamp_ntz':
      return canonicalTimestamp(value)
  }
  if (type.startsWith('decimal')) return canonicalDecimal(value)
  return `?${type}(${String(value)})`
}

/**
 * Canonical JSON-able form of `value` read as Delta type `type`. Struct values are keyed by field
 * name; a map may be a Map (the reader) or an object with string keys (hyparquet's default).
 */
export function canonical(value: unknown, type: DeltaType): unknown {
  if (value === null || value === undefined) return null
  if (typeof type === 'string') return canonicalPrimitive(value, type)
  if (type.type === 'struct') {
    const record = value as Record<string, unknown>
    return type.fields.map(f => [f.name, canonical(record[f.name], f.type)])
  }
  if (type.type === 'array') {
    return Array.isArray(value) ? value.map(v => canonical(v, type.elementType)) : `?array(${String(value)})`
  }
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value as object)
  return entries
    .map(([k, v]) => [canonical(k, type.keyType), canonical(v, type.valueType)])
    .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1))
}

/** One row as a canonical string over `columns` (name + type), for multiset comparison. */
export function canonicalRow(row: Record<string, unknown>, columns: { name: string; type: DeltaType }[]): string {
  return JSON.stringify(columns.map(c => canonical(row[c.name], c.type)))
}
