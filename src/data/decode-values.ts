/**
 * Scalar conversions shared by the column decoders: one hyparquet value (or typed partition value)
 * → the number stored in a typed array for an encoding. The column loops in decode.ts take typed
 * fast paths first and fall back to these for generic JS arrays.
 *
 * Value conventions (set by the parsers in unit-reader.ts): dates are day numbers, timestamps are
 * seconds since the epoch (fractional), decimals are JS numbers, strings are JS strings, binary is
 * Uint8Array, int64 is bigint. Partition values are Row values (table/types.ts): a timestamp one
 * is a Timestamp (or its structured clone, in a loader worker) and becomes the same seconds.
 */
import { Timestamp } from '../table/timestamp.ts'
import { hashBytes, hashInt64, hashInteger, hashString } from '../util/hash.ts'

const MS_PER_DAY = 86_400_000
const scratch = new DataView(new ArrayBuffer(8))

/** A conversion failure; the caller adds column, file and row. */
export class ValueError extends Error {}

/** Number for 'float32': null → NaN; booleans 0/1; bigint, Timestamp (seconds), decimal/date strings. */
export function toFloat(v: unknown): number {
  if (typeof v === 'number') return v
  if (v === null || v === undefined) return NaN
  if (typeof v === 'bigint') return Number(v)
  if (typeof v === 'boolean') return v ? 1 : 0
  if (typeof v === 'string') return stringToNumber(v)
  const timestamp = Timestamp.from(v)
  if (timestamp) return timestamp.seconds()
  throw new ValueError(`cannot decode ${describe(v)} as float32`)
}

/**
 * Seconds since the epoch of unannotated timestamp values (unit-columns.ts RawTimestamp), as the
 * parsers compute them for annotated ones (µs / 1e6; days × 86 400); nulls stay null.
 */
export function rawTimestampSeconds(data: ArrayLike<unknown>, raw: 'micros' | 'days'): unknown[] {
  return Array.from(data, v => {
    if (raw === 'micros' && typeof v === 'bigint') return Number(v) / 1e6
    return raw === 'days' && typeof v === 'number' ? v * 86_400 : v
  })
}

/** Partition values arrive as strings for dates ('YYYY-MM-DD' → days) and decimals ('-1.20'). */
function stringToNumber(v: string): number {
  if (/^-?\d{4,}-\d{2}-\d{2}$/.test(v)) return Math.floor(Date.parse(`${v}T00:00:00Z`) / MS_PER_DAY)
  const n = Number(v)
  if (v.trim() === '' || Number.isNaN(n)) throw new ValueError(`cannot decode string '${v}' as float32`)
  return n
}

/** Integer for 'int32' / 'uint32' within [min, max]; null and fractions are errors. */
export function toInteger(v: unknown, min: number, max: number, what: string): number {
  let n: number
  if (typeof v === 'number') n = v
  else if (typeof v === 'bigint') n = Number(v)
  else if (typeof v === 'boolean') n = v ? 1 : 0
  else if (v === null || v === undefined) throw new ValueError(`null value (${what} has no null; use float32)`)
  else throw new ValueError(`cannot decode ${describe(v)} as ${what}`)
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ValueError(`value ${String(v)} does not fit ${what} (use hash32 or float32)`)
  }
  return n
}

/** 0/1 for 'bool'; null is an error. */
export function toBool(v: unknown): number {
  if (typeof v === 'boolean') return v ? 1 : 0
  if (typeof v === 'number' || typeof v === 'bigint') return v ? 1 : 0
  if (v === null || v === undefined) throw new ValueError('null value (bool has no null; use float32)')
  throw new ValueError(`cannot decode ${describe(v)} as bool`)
}

/**
 * Stable hash for 'hash32': strings by UTF-8 bytes, integers (number or bigint) as int64, binary
 * by its bytes, other numbers by their float64 bytes, booleans as the integers 0/1, timestamps as
 * their seconds (the number a data column's parser yields, so a partition value hashes alike).
 */
export function toHash(v: unknown): number {
  if (typeof v === 'string') return hashString(v)
  if (typeof v === 'bigint') return hashInt64(v)
  if (typeof v === 'number') return hashNumber(v)
  if (v instanceof Uint8Array) return hashBytes(v)
  if (typeof v === 'boolean') return hashInteger(v ? 1 : 0)
  if (v === null || v === undefined) throw new ValueError('null value (hash32 ids have no null)')
  const timestamp = Timestamp.from(v)
  if (timestamp) return hashNumber(timestamp.seconds())
  throw new ValueError(`cannot hash ${describe(v)}`)
}

/**
 * The row-key hash of one value (src/data/row-key.ts): toHash, with null → `nullHash` instead of
 * an error. Typed partition values (date and decimal strings, Timestamps) are first brought to
 * the numbers a data column's parser yields, so a partition column keys as a data column would.
 */
export function toKeyHash(v: unknown, nullHash: number, numeric = false): number {
  if (v === null || v === undefined) return nullHash
  return toHash(numeric && typeof v !== 'number' && typeof v !== 'bigint' ? toFloat(v) : v)
}

function hashNumber(v: number): number {
  // One NaN: a payload read from the file must not change the hash.
  if (Number.isNaN(v)) return hashFloat(NaN)
  return Number.isSafeInteger(v) ? hashInteger(v) : hashFloat(v)
}

function hashFloat(v: number): number {
  scratch.setFloat64(0, v, true)
  return hashBytes(new Uint8Array(scratch.buffer))
}

/** A short description of a value for error messages. */
export function describe(v: unknown): string {
  if (Array.isArray(v)) return 'an array'
  if (v instanceof Uint8Array) return 'binary'
  if (v && typeof v === 'object') return 'an object'
  return `${typeof v} ${String(v)}`
}
