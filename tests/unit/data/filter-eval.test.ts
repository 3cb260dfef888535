import { describe, expect, test } from 'vitest'
import { evalFilter, mayMatch, mustMatch } from '../../../src/data/filter-eval.ts'
import { parseFilter } from '../../../src/data/filter-parse.ts'
import type { ColumnRangeStats } from '../../../src/data/types.ts'
import { Timestamp } from '../../../src/table/timestamp.ts'
import { Rng } from '../../../src/util/rng.ts'

const ev = (filter: string, row: Record<string, unknown>) => evalFilter(parseFilter(filter), row)

describe('evalFilter', () => {
  test('compares numbers, bigints, strings, dates, timestamps, booleans', () => {
    const row = {
      n: 3,
      big: 12345678901234567n,
      s: 'b',
      d: '2024-02-29',
      ts: Timestamp.parse('2024-01-01T10:00:00Z'),
      ok: true,
    }
    expect(ev('n = 3 and n >= 3 and n < 3.5 and n != 4', row)).toBe(true)
    expect(ev('big > 12345678901234566 and big <= 12345678901234567', row)).toBe(true)
    expect(ev("s > 'a' and s < 'c' and s in ('x', 'b')", row)).toBe(true)
    expect(ev("d >= DATE '2024-02-29' and d < DATE '2024-03-01'", row)).toBe(true)
    expect(ev("ts > TIMESTAMP '2024-01-01 09:59:59.999' and ts = TIMESTAMP '2024-01-01T10:00:00Z'", row)).toBe(true)
    expect(ev("ts >= DATE '2024-01-02'", row)).toBe(false)
    expect(ev('ok = true and not ok = false', row)).toBe(true)
  })

  test('timestamps compare exactly to the µs and ns, never at ms', () => {
    const row = { ts: Timestamp.fromMicros(4_000_500n), ns: Timestamp.fromNanos(4_000_000_001n) }
    expect(ev("ts > TIMESTAMP '1970-01-01T00:00:04.000Z'", row)).toBe(true)
    expect(ev("ts = TIMESTAMP '1970-01-01 00:00:04.0005'", row)).toBe(true)
    expect(ev("ts < TIMESTAMP '1970-01-01 00:00:04.000501' and ts > TIMESTAMP '1970-01-01 00:00:04.000499'", row)).toBe(
      true,
    )
    expect(ev("ns > TIMESTAMP '1970-01-01 00:00:04' and ns = TIMESTAMP '1970-01-01 00:00:04.000000001'", row)).toBe(
      true,
    )
  })

  test('decimals (exact strings) and longs beyond 2^53 compare exactly with the literal text', () => {
    expect(ev('m = 12.3 and m > 12.29999999999999999 and m < 1.2301e1', { m: '12.30' })).toBe(true)
    expect(ev('m in (-0.5, 7)', { m: '-0.50' })).toBe(true)
    expect(ev('big = 9007199254740993', { big: 9007199254740993n })).toBe(true)
    expect(ev('big = 9007199254740992', { big: 9007199254740993n })).toBe(false)
    expect(ev('s = 1', { s: 'abc' })).toBe(false)
  })

  test('three-valued logic: NULL comparisons are unknown, NOT unknown stays unknown', () => {
    const row = { a: null, b: 1 }
    expect(ev('a = 1', row)).toBe(false)
    expect(ev('not a = 1', row)).toBe(false)
    expect(ev('a != 1', row)).toBe(false)
    expect(ev('a in (1, 2)', row)).toBe(false)
    expect(ev('a not in (1, 2)', row)).toBe(false)
    expect(ev('a = 1 or b = 1', row)).toBe(true)
    expect(ev('not (a = 1 and b = 2)', row)).toBe(true) // unknown AND false = false
    expect(ev('not (a = 1 and b = 1)', row)).toBe(false) // unknown AND true = unknown
    expect(ev('a is null and b is not null', row)).toBe(true)
    expect(ev('missing is null', row)).toBe(true)
  })

  test('strings compare by code point (UTF-8 order), NaN sorts above numbers', () => {
    expect(ev("s > '\uffff'", { s: '😀' })).toBe(true)
    expect(ev('x > 1e308', { x: NaN })).toBe(true)
    expect(ev('x = 1', { x: NaN })).toBe(false)
  })
})

const range = (min: unknown, max: unknown, nullCount = 0, rowCount = 10): ColumnRangeStats => ({
  rowCount,
  columns: { x: { min, max, nullCount } },
})

describe('mayMatch / mustMatch', () => {
  test('prunes by min/max and knows when all rows match', () => {
    expect(mayMatch(parseFilter('x = 5'), range(6, 9))).toBe(false)
    expect(mayMatch(parseFilter('x = 6'), range(6, 9))).toBe(true)
    expect(mayMatch(parseFilter('x < 6'), range(6, 9))).toBe(false)
    expect(mayMatch(parseFilter('x > 9'), range(6n, 9n))).toBe(false)
    expect(mayMatch(parseFilter('x != 6'), range(6, 6))).toBe(false)
    expect(mayMatch(parseFilter('x in (1, 10)'), range(6, 9))).toBe(false)
    expect(mayMatch(parseFilter('x not in (6)'), range(6, 6))).toBe(false)
    expect(mustMatch(parseFilter('x >= 6 and x <= 9'), range(6, 9))).toBe(true)
    expect(mustMatch(parseFilter('x >= 6'), range(6, 9, 1))).toBe(false) // a null row is unknown
    expect(mustMatch(parseFilter('x > 6'), range(6, 9))).toBe(false)
  })

  test('null counts: IS NULL, all-null ranges, unknown counts', () => {
    expect(mayMatch(parseFilter('x is null'), range(1, 2, 0))).toBe(false)
    expect(mayMatch(parseFilter('x is not null'), range(undefined, undefined, 10))).toBe(false)
    expect(mayMatch(parseFilter('x = 1'), range(undefined, undefined, 10))).toBe(false)
    expect(mayMatch(parseFilter('not x = 1'), range(undefined, undefined, 10))).toBe(false)
    expect(mayMatch(parseFilter('x is null'), { columns: { x: { min: 1, max: 2 } } })).toBe(true)
    expect(mayMatch(parseFilter("x = 'a'"), { columns: {} })).toBe(true)
    expect(mayMatch(parseFilter('x is null'), { columns: { x: { nullCount: Infinity } } })).toBe(true)
  })

  test('NaN-capable columns never prune >, !=, NOT IN on the upper side', () => {
    const stats: ColumnRangeStats = { rowCount: 10, columns: { x: { min: 1, max: 2, nullCount: 0, nan: true } } }
    expect(mayMatch(parseFilter('x > 5'), stats)).toBe(true)
    expect(mayMatch(parseFilter('x < 0'), stats)).toBe(false)
    expect(mustMatch(parseFilter('x < 5'), stats)).toBe(false)
  })

  test('property: mayMatch never rejects a range with a matching row, mustMatch never accepts a failing one', () => {
    const rng = new Rng(7)
    const pick = <T>(xs: T[]): T => xs[Math.floor(rng.next() * xs.length)]
    const leaf = (): string => {
      const c = pick(['a', 'b'])
      const v = Math.floor(rng.next() * 8) - 1
      return pick([
        `${c} ${pick(['=', '!=', '<', '<=', '>', '>='])} ${v}`,
        `${c} in (${v}, ${v + 2})`,
        `${c} not in (${v})`,
        `${c} is null`,
        `${c} is not null`,
      ])
    }
    const expr = (depth: number): string =>
      depth === 0 || rng.next() < 0.3
        ? leaf()
        : pick([
            `(${expr(depth - 1)}) and (${expr(depth - 1)})`,
            `(${expr(depth - 1)}) or (${expr(depth - 1)})`,
            `not (${expr(depth - 1)})`,
          ])
    let pruned = 0
    for (let trial = 0; trial < 2000; trial++) {
      const rows = Array.from({ length: 1 + Math.floor(rng.next() * 4) }, () => ({
        a: rng.next() < 0.2 ? null : Math.floor(rng.next() * 6),
        b: rng.next() < 0.2 ? null : Math.floor(rng.next() * 6),
      }))
      const stats: ColumnRangeStats = { rowCount: rows.length, columns: {} }
      for (const c of ['a', 'b'] as const) {
        const values = rows.map(r => r[c]).filter((v): v is number => v !== null)
        stats.columns[c] = {
          min: values.length ? Math.min(...values) : undefined,
          max: values.length ? Math.max(...values) : undefined,
          nullCount: rows.length - values.length,
        }
      }
      const filter = parseFilter(expr(2))
      const matches = rows.map(r => evalFilter(filter, r))
      if (matches.some(Boolean)) expect(mayMatch(filter, stats)).toBe(true)
      else if (!mayMatch(filter, stats)) pruned++
      if (mustMatch(filter, stats)) expect(matches.every(Boolean)).toBe(true)
    }
    expect(pruned).toBeGreaterThan(100) // the check is not vacuous: pruning happens
  })
})
