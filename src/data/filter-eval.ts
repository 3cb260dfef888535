/**
 * Evaluation of a FilterExpr: exactly on a Row (SQL three-valued logic: a comparison with NULL is
 * unknown, unknown rows are rejected, NOT unknown is unknown), and conservatively on value ranges
 * (mayMatch / mustMatch) for partition, file and row-group pruning.
 */
import type { ColumnRange, ColumnRangeStats, FilterExpr, Literal } from './types.ts'
import { Timestamp } from '../table/timestamp.ts'
import type { Row } from '../table/types.ts'

/** SQL truth value: true, false or unknown (null). */
type Truth = boolean | null

/**
 * A comparable key: numbers (ints, floats, booleans as 0/1), bigints (longs, timestamps as ns since
 * the epoch), strings (dates as 'YYYY-MM-DD').
 */
export type Key = number | bigint | string

/** True when the row satisfies the filter (unknown → rejected). */
export function evalFilter(expr: FilterExpr, row: Row): boolean {
  return truth(expr, row) === true
}

function truth(expr: FilterExpr, row: Row): Truth {
  switch (expr.kind) {
    case 'and': {
      const left = truth(expr.left, row)
      if (left === false) return false
      const right = truth(expr.right, row)
      return right === false ? false : left === null || right === null ? null : true
    }
    case 'or': {
      const left = truth(expr.left, row)
      if (left === true) return true
      const right = truth(expr.right, row)
      return right === true ? true : left === null || right === null ? null : false
    }
    case 'not': {
      const inner = truth(expr.expr, row)
      return inner === null ? null : !inner
    }
    case 'null':
      return isNull(row[expr.column]) !== expr.negated
    case 'compare':
      return compareTruth(row[expr.column], expr.op, expr.value)
    case 'in': {
      const value = row[expr.column]
      if (isNull(value)) return null
      const found = expr.values.some(literal => compareValue(value, literal) === 0)
      return found !== expr.negated
    }
  }
}

function isNull(value: unknown): boolean {
  return value === null || value === undefined
}

function compareTruth(value: unknown, op: Extract<FilterExpr, { kind: 'compare' }>['op'], literal: Literal): Truth {
  if (isNull(value)) return null
  const c = compareValue(value, literal)
  if (c === undefined) return null
  return opHolds(op, c)
}

function opHolds(op: Extract<FilterExpr, { kind: 'compare' }>['op'], c: number): boolean {
  switch (op) {
    case '=':
      return c === 0
    case '!=':
      return c !== 0
    case '<':
      return c < 0
    case '<=':
      return c <= 0
    case '>':
      return c > 0
    case '>=':
      return c >= 0
  }
}

/** Sign of (row value − literal), or undefined when the two are not comparable. */
export function compareValue(value: unknown, literal: Literal): number | undefined {
  // Decimals arrive as exact strings ("-12.30"): compare them exactly with the literal's text.
  if (typeof value === 'string' && literal.type === 'number')
    return compareDecimals(value, literal.text ?? String(literal.value))
  const a = valueKey(value)
  const b = a === undefined ? undefined : literalKey(literal, value)
  return a === undefined || b === undefined ? undefined : compareKeys(a, b)
}

/** Row value → key (Timestamps as ns, booleans as 0/1); undefined for types filters don't compare. */
function valueKey(value: unknown): Key | undefined {
  switch (typeof value) {
    case 'number':
    case 'bigint':
    case 'string':
      return value
    case 'boolean':
      return value ? 1 : 0
  }
  return value instanceof Timestamp ? value.epochNanos : undefined
}

/** Literal → key in the domain of `like` (the row value it is compared with). */
function literalKey(literal: Literal, like: unknown): Key | undefined {
  if (like instanceof Timestamp) return timestampKey(literal)
  switch (typeof like) {
    case 'number':
      return literal.type === 'number' ? literal.value : undefined
    // Longs beyond 2^53: the literal's digits, not its rounded double.
    case 'bigint':
      return literal.type === 'number'
        ? literal.text && /^-?\d+$/.test(literal.text)
          ? BigInt(literal.text)
          : literal.value
        : undefined
    case 'string':
      return literal.type === 'string' || literal.type === 'date' ? literal.value : undefined
    case 'boolean':
      return literal.type === 'boolean' ? (literal.value ? 1 : 0) : undefined
  }
  return undefined
}

/** Parsed timestamp keys of literals: a filter compares one literal with every row. */
const TIMESTAMP_KEYS = new WeakMap<Literal, bigint | null>()

/** ns since the epoch of a timestamp, date (midnight UTC) or string literal; undefined for others. */
function timestampKey(literal: Literal): bigint | undefined {
  if (literal.type !== 'timestamp' && literal.type !== 'date' && literal.type !== 'string') return undefined
  let key = TIMESTAMP_KEYS.get(literal)
  if (key === undefined) {
    key = Timestamp.parse(literal.value)?.epochNanos ?? null
    TIMESTAMP_KEYS.set(literal, key)
  }
  return key ?? undefined
}

const DECIMAL = /^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/

/** Exact sign of (a − b) for decimal texts ('12.30', '-1e3'); undefined when one is not a number. */
export function compareDecimals(a: string, b: string): number | undefined {
  const x = decimalParts(a)
  const y = decimalParts(b)
  if (!x || !y) return undefined
  const scale = Math.max(x.scale, y.scale)
  const left = x.unscaled * 10n ** BigInt(scale - x.scale)
  const right = y.unscaled * 10n ** BigInt(scale - y.scale)
  return left < right ? -1 : left > right ? 1 : 0
}

/** value = unscaled × 10^-scale (scale may be negative for large exponents, normalised to ≥ 0). */
function decimalParts(text: string): { unscaled: bigint; scale: number } | undefined {
  const m = DECIMAL.exec(text)
  if (!m || (m[2] === '' && !m[3])) return undefined
  const [, sign, whole, fraction = '', exponent = '0'] = m
  let unscaled = BigInt(`${sign === '-' ? '-' : ''}${whole + fraction || '0'}`)
  let scale = fraction.length - Number(exponent)
  if (scale < 0) {
    unscaled *= 10n ** BigInt(-scale)
    scale = 0
  }
  return { unscaled, scale }
}

/**
 * Total order on keys: numbers and bigints compare exactly with each other; NaN equals NaN and
 * sorts above every number (Spark SQL); strings compare by code point (= UTF-8 byte order, the
 * order of Delta and Parquet statistics), not by UTF-16 code unit.
 */
export function compareKeys(a: Key, b: Key): number {
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b)
  if (typeof a === 'number' && Number.isNaN(a)) return typeof b === 'number' && Number.isNaN(b) ? 0 : 1
  if (typeof b === 'number' && Number.isNaN(b)) return -1
  return a < b ? -1 : a > b ? 1 : 0
}

function compareStrings(a: string, b: string): number {
  if (a === b) return 0
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x !== y) return codePointOrder(x) - codePointOrder(y)
  }
  return a.length - b.length
}

/** Surrogates (code points above U+FFFF) sort after U+E000…U+FFFF in code point order. */
function codePointOrder(unit: number): number {
  return unit >= 0xd800 && unit <= 0xdfff ? unit + 0x2000 : unit >= 0xe000 ? unit - 0x800 : unit
}

/** Which outcomes rows in a range can have for an expression. */
interface Outcomes {
  t: boolean
  f: boolean
  n: boolean
}

const ANY: Outcomes = { t: true, f: true, n: true }

/**
 * False only when NO row described by `stats` can satisfy the filter (so the rows may be
 * skipped). Unknown stats never prune.
 */
export function mayMatch(expr: FilterExpr, stats: ColumnRangeStats): boolean {
  return outcomes(expr, stats).t
}

/** True only when EVERY row described by `stats` satisfies the filter (no row check needed). */
export function mustMatch(expr: FilterExpr, stats: ColumnRangeStats): boolean {
  const o = outcomes(expr, stats)
  return !o.f && !o.n
}

function outcomes(expr: FilterExpr, stats: ColumnRangeStats): Outcomes {
  switch (expr.kind) {
    case 'and': {
      const l = outcomes(expr.left, stats)
      const r = outcomes(expr.right, stats)
      return { t: l.t && r.t, f: l.f || r.f, n: (l.n && (r.t || r.n)) || (r.n && (l.t || l.n)) }
    }
    case 'or': {
      const l = outcomes(expr.left, stats)
      const r = outcomes(expr.right, stats)
      return { t: l.t || r.t, f: l.f && r.f, n: (l.n && (r.f || r.n)) || (r.n && (l.f || l.n)) }
    }
    case 'not': {
      const o = outcomes(expr.expr, stats)
      return { t: o.f, f: o.t, n: o.n }
    }
    default:
      return leafOutcomes(expr, stats)
  }
}

type Leaf = Exclude<FilterExpr, { kind: 'and' | 'or' | 'not' }>

function leafOutcomes(expr: Leaf, stats: ColumnRangeStats): Outcomes {
  const range = stats.columns[expr.column]
  if (!range) return ANY
  const rows = stats.rowCount ?? Infinity
  const someNull = range.nullCount === undefined || range.nullCount > 0
  const allNull = range.nullCount !== undefined && range.nullCount >= rows
  if (expr.kind === 'null') {
    const o = { t: someNull, f: !allNull, n: false }
    return expr.negated ? { t: o.f, f: o.t, n: false } : o
  }
  if (allNull) return { t: false, f: false, n: true }
  const o =
    expr.kind === 'compare' ? compareOutcomes(range, expr.op, expr.value) : inOutcomes(range, expr.values, expr.negated)
  return { ...o, n: o.n || someNull }
}

/** Outcomes of `column op literal` over non-null values in [min, max] (plus NaN when possible). */
function compareOutcomes(
  range: ColumnRange,
  op: Extract<FilterExpr, { kind: 'compare' }>['op'],
  literal: Literal,
): Outcomes {
  const lo = boundCompare(range.min, literal)
  const hi = boundCompare(range.max, literal)
  if (lo === null || hi === null) return ANY // bounds of another type: no conclusion
  const o = { t: true, f: true, n: false }
  switch (op) {
    case '=':
      o.t = (lo ?? -1) <= 0 && (hi ?? 1) >= 0
      o.f = !(lo === 0 && hi === 0)
      break
    case '!=':
      o.t = !(lo === 0 && hi === 0)
      o.f = (lo ?? -1) <= 0 && (hi ?? 1) >= 0
      break
    case '<':
      o.t = (lo ?? -1) < 0
      o.f = (hi ?? 1) >= 0
      break
    case '<=':
      o.t = (lo ?? -1) <= 0
      o.f = (hi ?? 1) > 0
      break
    case '>':
      o.t = (hi ?? 1) > 0
      o.f = (lo ?? -1) <= 0
      break
    case '>=':
      o.t = (hi ?? 1) >= 0
      o.f = (lo ?? -1) < 0
      break
  }
  // NaN rows escape min/max: they satisfy >, >=, != and fail =, <, <=.
  if (range.nan) {
    if (op === '>' || op === '>=' || op === '!=') o.t = true
    else o.f = true
  }
  return o
}

function inOutcomes(range: ColumnRange, values: Literal[], negated: boolean): Outcomes {
  const t = values.some(value => compareOutcomes({ ...range, nan: false }, '=', value).t)
  // A row can be outside the list unless every value in the range is one list value (and no NaN).
  const f =
    !!range.nan || !values.some(value => boundCompare(range.min, value) === 0 && boundCompare(range.max, value) === 0)
  return negated ? { t: f, f: t, n: false } : { t, f, n: false }
}

/** Sign of (bound − literal): undefined when the bound is unknown, null when not comparable. */
function boundCompare(bound: unknown, literal: Literal): number | undefined | null {
  if (bound === undefined || bound === null) return undefined
  return compareValue(bound, literal) ?? null
}
