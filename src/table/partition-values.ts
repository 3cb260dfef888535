/**
 * Partition values: the log stores them as strings (Delta PROTOCOL.md "Partition Value
 * Serialization"); this module turns them into the Row value types of types.ts.
 * A JSON null or an empty string is a null partition; the string "null" is the string "null".
 */
import { decimalType, formatDecimal, formatDays, rescale } from './values.ts'
import { Timestamp } from './timestamp.ts'
import { TableError, type DeltaType } from './types.ts'

const INT_RANGES: Record<string, [number, number]> = {
  byte: [-128, 127],
  short: [-32768, 32767],
  integer: [-2147483648, 2147483647],
}

/**
 * Parses one raw partition value. `column` (logical name) only feeds error messages.
 * Throws TableError 'malformed-log' naming the column when the string does not fit the type,
 * and 'unsupported-feature' for a nested partition type (Delta forbids them).
 */
export function parsePartitionValue(raw: string | null | undefined, type: DeltaType, column: string): unknown {
  if (raw === null || raw === undefined || raw === '') return null
  if (typeof type !== 'string') {
    throw new TableError(`partition column '${column}' has nested type ${type.type}`, 'unsupported-feature')
  }
  const value = parseTyped(raw, type)
  if (value === undefined) {
    throw new TableError(`partition column '${column}': '${raw}' is not a valid ${type}`, 'malformed-log')
  }
  return value
}

/** Returns undefined when `raw` does not parse as `type`. */
function parseTyped(raw: string, type: string): unknown {
  switch (type) {
    case 'string':
      return raw
    case 'byte':
    case 'short':
    case 'integer':
      return parseSmallInt(raw, INT_RANGES[type])
    case 'long':
      return /^[+-]?\d+$/.test(raw.trim()) ? BigInt(raw.trim()) : undefined
    case 'float':
    case 'double':
      return parseFloating(raw)
    case 'boolean':
      return parseBoolean(raw)
    case 'date':
      return parseDate(raw)
    // 'yyyy-MM-dd HH:mm:ss[.fraction]' (Spark) or ISO 8601 (Delta Kernel), exact to the µs.
    case 'timestamp':
    case 'timestamp_ntz':
      return Timestamp.parse(raw)
    case 'binary':
      return parseBinary(raw)
  }
  const decimal = decimalType(type)
  return decimal ? parseDecimal(raw, decimal.scale) : undefined
}

function parseSmallInt(raw: string, [min, max]: [number, number]): number | undefined {
  if (!/^[+-]?\d+$/.test(raw.trim())) return undefined
  const value = Number(raw)
  return value >= min && value <= max ? value : undefined
}

function parseFloating(raw: string): number | undefined {
  const text = raw.trim()
  if (text === 'NaN') return NaN
  if (/^[+-]?Infinity$/.test(text)) return Number(text)
  return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : undefined
}

function parseBoolean(raw: string): boolean | undefined {
  const text = raw.trim().toLowerCase()
  return text === 'true' ? true : text === 'false' ? false : undefined
}

/** 'YYYY-M-D' (optionally followed by a time, which Spark tolerates) → 'YYYY-MM-DD'. */
function parseDate(raw: string): string | undefined {
  const match = /^\s*(-?\d{1,6})-(\d{1,2})-(\d{1,2})(?:[ T].*)?$/.exec(raw)
  if (!match) return undefined
  const ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))
  return isCalendarDay(ms, match[2], match[3]) ? formatDays(Math.floor(ms / 86_400_000)) : undefined
}

/** Date.UTC rolls 2021-13-45 over into 2022; reject instead of reading a different day. */
function isCalendarDay(ms: number, month: string, day: string): boolean {
  if (Number.isNaN(ms)) return false
  const date = new Date(ms)
  return date.getUTCMonth() + 1 === Number(month) && date.getUTCDate() === Number(day)
}

/**
 * Binary partition values are "escaped binary" strings (one char per byte, e.g. "\u0001\u0002");
 * chars above 0xFF cannot be bytes, so such strings are taken as UTF-8 text.
 */
function parseBinary(raw: string): Uint8Array {
  for (let i = 0; i < raw.length; i++) {
    if (raw.charCodeAt(i) > 0xff) return new TextEncoder().encode(raw)
  }
  return Uint8Array.from(raw, c => c.charCodeAt(0))
}

/** '12.3', '-0.00004', '1E+3', '0E-10' → exact string with `scale` fraction digits. */
export function parseDecimal(raw: string, scale: number): string | undefined {
  const match = /^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/.exec(raw)
  if (!match || (match[2] === '' && !match[3])) return undefined
  const [, sign, whole, fraction = '', exponent = '0'] = match
  const unscaled = BigInt((sign === '-' ? '-' : '') + (whole + fraction || '0'))
  const fromScale = fraction.length - Number(exponent)
  const value =
    fromScale >= 0 ? rescale(unscaled, fromScale, scale) : rescale(unscaled * 10n ** BigInt(-fromScale), 0, scale)
  return value === undefined ? undefined : formatDecimal(value, scale)
}
