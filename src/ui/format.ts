/**
 * Text for table cells and Delta types. Row values follow src/table/types.ts `Row`: bigint for
 * long, Timestamp for timestamps, Uint8Array for binary, Map for maps, nested objects for structs.
 */
import { Timestamp } from '../table/timestamp.ts'
import type { DeltaType } from '../table/types.ts'

/** Longest cell text before it is cut with an ellipsis (characters). */
export const MAX_CELL_CHARS = 80

/** Display text of one row value; null shows as "null" so it differs from an empty string. */
export function formatValue(v: unknown): string {
  return truncate(valueText(v))
}

function valueText(v: unknown): string {
  if (v === null || v === undefined) return 'null'
  if (typeof v === 'number') return formatNumber(v)
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v)
  if (typeof v === 'string') return v
  if (v instanceof Timestamp) return v.toString()
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? 'Invalid Date' : v.toISOString()
  if (v instanceof Uint8Array) return `0x${hex(v.subarray(0, 32))}${v.length > 32 ? '…' : ''} (${v.length} B)`
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `${valueText(k)}: ${valueText(x)}`).join(', ')}}`
  if (Array.isArray(v)) return `[${v.map(valueText).join(', ')}]`
  return `{${Object.entries(v as object)
    .map(([k, x]) => `${k}: ${valueText(x)}`)
    .join(', ')}}`
}

/**
 * Integers in full; other numbers to 6 significant digits, since float32 columns read back as
 * doubles print as 0.39531266689300537 (noise past the 7th digit).
 */
export function formatNumber(v: number): string {
  if (Number.isInteger(v) || !Number.isFinite(v)) return String(v)
  return String(Number(v.toPrecision(6)))
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, b => b.toString(16).padStart(2, '0')).join('')
}

function truncate(s: string): string {
  return s.length > MAX_CELL_CHARS ? `${s.slice(0, MAX_CELL_CHARS - 1)}…` : s
}

/** Delta type as a short string: 'long', 'array<string>', 'map<string, int>', 'struct<a, b>'. */
export function formatType(t: DeltaType): string {
  if (typeof t === 'string') return t
  if (t.type === 'array') return `array<${formatType(t.elementType)}>`
  if (t.type === 'map') return `map<${formatType(t.keyType)}, ${formatType(t.valueType)}>`
  return `struct<${t.fields.map(f => `${f.name}: ${formatType(f.type)}`).join(', ')}>`
}

/** True for values that read best right-aligned (numbers, bigints). */
export function isNumeric(v: unknown): boolean {
  return typeof v === 'number' || typeof v === 'bigint'
}

/** Commit time as 'YYYY-MM-DD HH:MM:SS UTC' (ms since epoch in). */
export function formatTimestamp(ms: number): string {
  if (!Number.isFinite(ms)) return 'unknown'
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`
}

/** Byte count with a binary unit: 268435456 → '256 MiB', 4294967292 → '4.00 GiB'. */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let i = 0
  let v = n
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return `${Number.isInteger(v) ? v : v.toFixed(2)} ${units[i]}`
}
