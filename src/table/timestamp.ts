/**
 * Timestamp: the Row value of Delta `timestamp` and `timestamp_ntz` columns (types.ts Row).
 * Delta and Parquet store microseconds, which a JS Date (milliseconds) cannot hold, so a value is
 * the exact instant as microseconds since the Unix epoch (bigint) plus the nanoseconds within
 * that microsecond, which only Parquet TIMESTAMP(NANOS) and INT96 columns carry.
 *
 * Structured clone (loader workers, Playwright's page.evaluate) turns an instance into a plain
 * `{ micros, nanos }` object; `Timestamp.from` turns that back into a Timestamp.
 */

const MICROS_PER_MS = 1000n
const MICROS_PER_DAY = 86_400_000_000n
const NANOS_PER_MICRO = 1000n
const MAX_DATE_MS = 8.64e15

/** An instant with nanosecond resolution: `micros` since 1970-01-01T00:00:00Z plus `nanos` (0–999). */
export class Timestamp {
  /**
   * `micros`: whole microseconds since the epoch (floor, so pre-1970 instants are negative);
   * `nanos`: nanoseconds past `micros`, an integer 0–999.
   */
  constructor(
    readonly micros: bigint,
    readonly nanos = 0,
  ) {
    if (!Number.isInteger(nanos) || nanos < 0 || nanos > 999) {
      throw new RangeError(`Timestamp: nanos ${nanos} is not in 0…999`)
    }
  }

  /** Milliseconds since the epoch (INT64 TIMESTAMP(MILLIS)). */
  static fromMillis(ms: bigint | number): Timestamp {
    return new Timestamp(BigInt(ms) * MICROS_PER_MS)
  }

  /** Microseconds since the epoch (INT64 TIMESTAMP(MICROS), Delta stats and partition values). */
  static fromMicros(us: bigint): Timestamp {
    return new Timestamp(us)
  }

  /** Nanoseconds since the epoch (INT64 TIMESTAMP(NANOS), INT96), kept exactly. */
  static fromNanos(ns: bigint): Timestamp {
    const micros = floorDiv(ns, NANOS_PER_MICRO)
    return new Timestamp(micros, Number(ns - micros * NANOS_PER_MICRO))
  }

  /** Midnight UTC of a day number (a date widened to timestamp_ntz). */
  static fromDays(days: number): Timestamp {
    return new Timestamp(BigInt(days) * MICROS_PER_DAY)
  }

  /** A Timestamp, or its structured clone (a plain `{ micros, nanos }`), as a Timestamp; else undefined. */
  static from(value: unknown): Timestamp | undefined {
    if (value instanceof Timestamp) return value
    if (!value || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return undefined
    const { micros, nanos, ...rest } = value as Record<string, unknown>
    if (typeof micros !== 'bigint' || typeof nanos !== 'number' || Object.keys(rest).length) return undefined
    return new Timestamp(micros, nanos)
  }

  /**
   * Parses 'yyyy-MM-dd[( |T)HH:mm[:ss[.fraction]]][Z|±hh[:mm]]' (Spark's partition values, Delta
   * Kernel's ISO form, JSON stats, filter literals) exactly, up to 9 fraction digits. No zone is
   * UTC (Delta reads zone-less partition timestamps as UTC). Undefined when it does not parse or
   * names a day that does not exist (2021-02-30).
   */
  static parse(text: string): Timestamp | undefined {
    const match = TIMESTAMP_TEXT.exec(text)
    if (!match) return undefined
    const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', zone] = match
    if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined
    const day = utcDayMs(Number(y), Number(mo), Number(d))
    if (day === undefined) return undefined
    const ms = day + ((Number(h) * 60 + Number(mi)) * 60 + Number(s)) * 1000 - zoneOffsetMs(zone)
    const digits = fraction.padEnd(9, '0')
    return new Timestamp(BigInt(ms) * MICROS_PER_MS + BigInt(digits.slice(0, 6)), Number(digits.slice(6)))
  }

  /** Nanoseconds since the epoch, exact. */
  get epochNanos(): bigint {
    return this.micros * NANOS_PER_MICRO + BigInt(this.nanos)
  }

  /**
   * Seconds since the epoch as a double: the value the loader's float32 features hold. Computed
   * as the loader's Parquet parsers compute it (µs / 1e6, or ns / 1e9 when there are nanoseconds),
   * so a partition value and the same instant in a data column give the same float.
   */
  seconds(): number {
    return this.nanos ? Number(this.epochNanos) / 1e9 : Number(this.micros) / 1e6
  }

  /** Sign of (this − other). */
  compare(other: Timestamp): number {
    const a = this.epochNanos
    const b = other.epochNanos
    return a < b ? -1 : a > b ? 1 : 0
  }

  /**
   * ISO-8601 in UTC with 'Z', like Date's: 3 fraction digits when the instant is a whole
   * millisecond, 6 when it has microseconds, 9 when it has nanoseconds. Throws RangeError beyond
   * the years Date can print (±275760).
   */
  toISOString(): string {
    const ms = floorDiv(this.micros, MICROS_PER_MS)
    if (ms > MAX_DATE_MS || ms < -MAX_DATE_MS) {
      throw new RangeError(`Timestamp ${this.micros} µs is out of the printable range`)
    }
    const base = new Date(Number(ms)).toISOString()
    const subMs = Number(this.micros - ms * MICROS_PER_MS)
    if (!subMs && !this.nanos) return base
    const extra = String(subMs).padStart(3, '0') + (this.nanos ? String(this.nanos).padStart(3, '0') : '')
    return `${base.slice(0, -1)}${extra}Z`
  }

  /** ISO text (as Date's toJSON), or null beyond the printable range. */
  toJSON(): string | null {
    try {
      return this.toISOString()
    } catch {
      return null
    }
  }

  /** ISO text, or '<micros> µs' beyond the printable range. */
  toString(): string {
    return this.toJSON() ?? `${this.micros} µs`
  }
}

const TIMESTAMP_TEXT = new RegExp(
  String.raw`^\s*(-?\d{4,6})-(\d{1,2})-(\d{1,2})` + // date
    String.raw`(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?` + // time, fraction up to ns
    String.raw`\s*(Z|[+-]\d{2}(?::?\d{2})?)?\s*$`, // zone
  'i',
)

/** Floor division for bigint (pre-1970 instants round down, not toward zero). */
export function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q
}

/**
 * Ms of midnight UTC of a calendar day, or undefined when the day does not exist. setUTCFullYear,
 * not Date.UTC, which reads years 0–99 as 1900–1999.
 */
function utcDayMs(year: number, month: number, day: number): number | undefined {
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  const ms = date.getTime()
  if (Number.isNaN(ms) || date.getUTCMonth() + 1 !== month || date.getUTCDate() !== day) return undefined
  return ms
}

function zoneOffsetMs(zone: string | undefined): number {
  if (!zone || zone.toUpperCase() === 'Z') return 0
  const digits = zone.replace(':', '')
  const sign = digits[0] === '-' ? -1 : 1
  const hours = Number(digits.slice(1, 3))
  const minutes = Number(digits.slice(3, 5) || '0')
  return sign * (hours * 60 + minutes) * 60_000
}
