/**
 * Conversion of hyparquet's decoded values to the Row value types of types.ts, driven by the
 * Delta type (not the parquet type, so widened columns and old files read as the table says).
 *
 * The reader asks hyparquet for raw decimals (DECIMAL annotation stripped: hyparquet would turn
 * them into lossy floats), raw maps (MAP annotation stripped: hyparquet would key them by string),
 * day numbers for dates, Timestamps for timestamps (rows.ts parsers), and bytes for unannotated
 * BYTE_ARRAY (utf8: false), then converts here.
 */
import type { SchemaTree } from '../parquet/types.ts'
import { findParquetChild, type ColumnMappingMode } from './column-mapping.ts'
import { Timestamp } from './timestamp.ts'
import { TableError, type ArrayType, type DeltaType, type MapType, type StructType } from './types.ts'

const MS_PER_DAY = 86_400_000
const utf8 = new TextDecoder()

/** Where a value comes from, for error messages: file URL and column path. */
export interface ValueContext {
  url: string
  column: string
  mode: ColumnMappingMode
}

/** Precision and scale of 'decimal(p,s)' (plain 'decimal' is decimal(10,0)), else undefined. */
export function decimalType(type: string): { precision: number; scale: number } | undefined {
  if (type === 'decimal') return { precision: 10, scale: 0 }
  const match = /^decimal\(\s*(\d+)\s*,\s*(-?\d+)\s*\)$/.exec(type)
  return match ? { precision: Number(match[1]), scale: Number(match[2]) } : undefined
}

/** Formats an unscaled integer with `scale` fraction digits: (-1230n, 2) → "-12.30". */
export function formatDecimal(unscaled: bigint, scale: number): string {
  const negative = unscaled < 0n
  const digits = (negative ? -unscaled : unscaled).toString()
  if (scale <= 0) return (negative ? '-' : '') + digits + '0'.repeat(-scale)
  const padded = digits.padStart(scale + 1, '0')
  const text = `${padded.slice(0, -scale)}.${padded.slice(-scale)}`
  return negative ? `-${text}` : text
}

/** Big-endian two's-complement bytes (parquet FIXED_LEN_BYTE_ARRAY / BYTE_ARRAY decimal) → bigint. */
export function bytesToBigInt(bytes: Uint8Array): bigint {
  let value = 0n
  for (const byte of bytes) value = (value << 8n) | BigInt(byte)
  if (bytes.length && bytes[0] & 0x80) value -= 1n << BigInt(bytes.length * 8)
  return value
}

/**
 * Moves an unscaled value from scale `from` to scale `to`. Widening (more digits) is exact;
 * narrowing is exact only when the dropped digits are zero, otherwise undefined.
 */
export function rescale(unscaled: bigint, from: number, to: number): bigint | undefined {
  if (to >= from) return unscaled * 10n ** BigInt(to - from)
  const factor = 10n ** BigInt(from - to)
  return unscaled % factor === 0n ? unscaled / factor : undefined
}

/** Days since 1970-01-01 → 'YYYY-MM-DD' (proleptic Gregorian, as Spark writes DATE). */
export function formatDays(days: number): string {
  const date = new Date(days * MS_PER_DAY)
  const year = date.getUTCFullYear()
  const yyyy = year < 0 ? `-${String(-year).padStart(4, '0')}` : String(year).padStart(4, '0')
  return `${yyyy}-${String(date.getUTCMonth() + 1).padStart(2, '0')}-${String(date.getUTCDate()).padStart(2, '0')}`
}

/**
 * Converts one decoded value to the Row type for Delta type `type`. `node` is the parquet schema
 * node the value was read from (needed for nested types and decimal scale); null/undefined → null.
 */
export function convertValue(
  value: unknown,
  type: DeltaType,
  node: SchemaTree | undefined,
  ctx: ValueContext,
): unknown {
  if (value === null || value === undefined) return null
  if (typeof type === 'string') return convertPrimitive(value, type, node, ctx)
  if (type.type === 'struct') return convertStruct(value, type, node, ctx)
  if (type.type === 'array') return convertArray(value, type, node, ctx)
  if (type.type === 'map') return convertMap(value, type, node, ctx)
  throw mismatch(ctx, `unknown type ${JSON.stringify(type)}`)
}

function mismatch(ctx: ValueContext, what: string): TableError {
  return new TableError(`${ctx.url}: column '${ctx.column}': ${what}`, 'schema', ctx.url)
}

function convertPrimitive(value: unknown, type: string, node: SchemaTree | undefined, ctx: ValueContext): unknown {
  switch (type) {
    case 'string':
      return value instanceof Uint8Array ? utf8.decode(value) : String(value)
    case 'binary':
      return value instanceof Uint8Array ? value : new TextEncoder().encode(String(value))
    case 'long':
      return typeof value === 'bigint' ? value : BigInt(value as number)
    case 'integer':
    case 'short':
    case 'byte':
    case 'float':
    case 'double':
      return typeof value === 'number' ? value : Number(value)
    case 'boolean':
      return Boolean(value)
    case 'date':
      return toDateString(value, ctx)
    case 'timestamp':
    case 'timestamp_ntz':
      return toTimestamp(value, ctx)
  }
  const decimal = decimalType(type)
  if (decimal) return toDecimal(value, decimal.scale, node?.element.scale ?? 0, ctx)
  throw mismatch(ctx, `unsupported type '${type}'`)
}

function toDateString(value: unknown, ctx: ValueContext): string {
  if (typeof value === 'number') return formatDays(value)
  if (value instanceof Date) return formatDays(Math.floor(value.getTime() / MS_PER_DAY))
  throw mismatch(ctx, `expected a date, got ${typeof value}`)
}

function toTimestamp(value: unknown, ctx: ValueContext): Timestamp {
  if (value instanceof Timestamp) return value
  // Type widening date → timestamp_ntz leaves day numbers in old files.
  if (typeof value === 'number') return Timestamp.fromDays(value)
  // INT64 without a timestamp annotation: Spark's microseconds.
  if (typeof value === 'bigint') return Timestamp.fromMicros(value)
  throw mismatch(ctx, `expected a timestamp, got ${typeof value}`)
}

function toDecimal(value: unknown, scale: number, fileScale: number, ctx: ValueContext): string {
  let unscaled: bigint
  if (value instanceof Uint8Array) unscaled = bytesToBigInt(value)
  else if (typeof value === 'bigint') unscaled = value
  else if (typeof value === 'number' && Number.isInteger(value)) unscaled = BigInt(value)
  else throw mismatch(ctx, `expected an unscaled decimal, got ${String(value)}`)
  const exact = rescale(unscaled, fileScale, scale)
  if (exact === undefined) throw mismatch(ctx, `decimal scale ${fileScale} in file does not fit scale ${scale}`)
  return formatDecimal(exact, scale)
}

function convertStruct(
  value: unknown,
  type: StructType,
  node: SchemaTree | undefined,
  ctx: ValueContext,
): Record<string, unknown> {
  const record = value as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const field of type.fields) {
    const child = node ? findParquetChild(node.children, field, ctx.mode) : undefined
    const raw = child ? record[child.element.name] : undefined
    out[field.name] = convertValue(raw, field.type, child, { ...ctx, column: `${ctx.column}.${field.name}` })
  }
  return out
}

/** Element node of a parquet LIST, 3-level (list/element) or legacy 2-level, as hyparquet assembles it. */
function listElement(node: SchemaTree | undefined): SchemaTree | undefined {
  const repeated = node?.children[0]
  if (!repeated) return undefined
  return repeated.children.length === 1 ? repeated.children[0] : repeated
}

function convertArray(value: unknown, type: ArrayType, node: SchemaTree | undefined, ctx: ValueContext): unknown[] {
  if (!Array.isArray(value)) throw mismatch(ctx, 'expected an array')
  const element = listElement(node)
  const elementCtx = { ...ctx, column: `${ctx.column}[]` }
  return value.map(item => convertValue(item, type.elementType, element, elementCtx))
}

function convertMap(
  value: unknown,
  type: MapType,
  node: SchemaTree | undefined,
  ctx: ValueContext,
): Map<unknown, unknown> {
  const keyValue = node?.children[0]
  const entries = keyValue ? (value as Record<string, unknown>)[keyValue.element.name] : undefined
  const out = new Map<unknown, unknown>()
  if (entries === undefined || entries === null) return out
  if (!Array.isArray(entries)) throw mismatch(ctx, 'expected map entries')
  const keyNode = keyValue?.children.find(c => c.element.name === 'key') ?? keyValue?.children[0]
  const valueNode = keyValue?.children.find(c => c.element.name === 'value') ?? keyValue?.children[1]
  const keyCtx = { ...ctx, column: `${ctx.column}.key` }
  const valueCtx = { ...ctx, column: `${ctx.column}.value` }
  for (const entry of entries as Record<string, unknown>[]) {
    const key = convertValue(entry[keyNode?.element.name ?? 'key'], type.keyType, keyNode, keyCtx)
    out.set(key, convertValue(entry[valueNode?.element.name ?? 'value'], type.valueType, valueNode, valueCtx))
  }
  return out
}
