import { describe, expect, test } from 'vitest'
import { FilterError, filterColumns, parseFilter } from '../../../src/data/filter-parse.ts'
import type { StructType } from '../../../src/table/types.ts'

const schema: StructType = {
  type: 'struct',
  fields: [
    ['label', 'integer'],
    ['user_id', 'long'],
    ['country', 'string'],
    ['day', 'date'],
    ['ts', 'timestamp'],
    ['ok', 'boolean'],
    ['odd name', 'string'],
    ['x', 'double'],
    ['tags', { type: 'array', elementType: 'string', containsNull: true }],
  ].map(([name, type]) => ({ name: name as string, type: type as never, nullable: true, metadata: {} })),
}

function error(text: string, withSchema = true): FilterError {
  try {
    parseFilter(text, withSchema ? schema : undefined)
  } catch (e) {
    expect(e).toBeInstanceOf(FilterError)
    return e as FilterError
  }
  throw new Error(`expected '${text}' to fail`)
}

describe('parseFilter', () => {
  test('comparison, precedence AND over OR, NOT, parentheses', () => {
    expect(parseFilter("country = 'AA' OR label > 0 AND NOT ok = true")).toEqual({
      kind: 'or',
      left: { kind: 'compare', op: '=', column: 'country', value: { type: 'string', value: 'AA' } },
      right: {
        kind: 'and',
        left: { kind: 'compare', op: '>', column: 'label', value: { type: 'number', value: 0, text: '0' } },
        right: {
          kind: 'not',
          expr: { kind: 'compare', op: '=', column: 'ok', value: { type: 'boolean', value: true } },
        },
      },
    })
    const grouped = parseFilter("(country = 'AA' or label > 0) and x <= -1.5e2")
    expect(grouped.kind).toBe('and')
    expect(grouped.kind === 'and' && grouped.right).toEqual({
      kind: 'compare',
      op: '<=',
      column: 'x',
      value: { type: 'number', value: -150, text: '-1.5e2' },
    })
  })

  test('keywords are case-insensitive; IN, NOT IN, IS [NOT] NULL', () => {
    expect(parseFilter('label in (1, 2, -3)')).toEqual({
      kind: 'in',
      column: 'label',
      negated: false,
      values: [1, 2, -3].map(value => ({ type: 'number', value, text: String(value) })),
    })
    expect(parseFilter("country NOT IN ('a')")).toMatchObject({ kind: 'in', negated: true })
    expect(parseFilter('country Is Null')).toEqual({ kind: 'null', column: 'country', negated: false })
    expect(parseFilter('country IS NOT NULL')).toEqual({ kind: 'null', column: 'country', negated: true })
  })

  test('quoted identifiers, escaped strings, operators aliases, literal op column', () => {
    expect(parseFilter("`odd name` = 'it''s'", schema)).toEqual({
      kind: 'compare',
      op: '=',
      column: 'odd name',
      value: { type: 'string', value: "it's" },
    })
    expect(parseFilter('"odd name" <> \'a\'')).toMatchObject({ op: '!=', column: 'odd name' })
    expect(parseFilter('label == 1')).toMatchObject({ op: '=' })
    expect(parseFilter('3 < label', schema)).toEqual({
      kind: 'compare',
      op: '>',
      column: 'label',
      value: { type: 'number', value: 3, text: '3' },
    })
  })

  test('date and timestamp literals; strings coerce for date/timestamp columns', () => {
    expect(parseFilter("day >= DATE '2024-02-29'", schema)).toMatchObject({
      value: { type: 'date', value: '2024-02-29' },
    })
    expect(parseFilter("day < '2024-03-01'", schema)).toMatchObject({ value: { type: 'date', value: '2024-03-01' } })
    expect(parseFilter("ts > TIMESTAMP '2024-01-01 10:00:00'", schema)).toMatchObject({
      value: { type: 'timestamp', value: '2024-01-01T10:00:00.000Z' },
    })
    expect(parseFilter("ts > DATE '2024-01-01'", schema)).toMatchObject({
      value: { type: 'timestamp', value: '2024-01-01T00:00:00.000Z' },
    })
    // Sub-millisecond digits stay in the literal, exactly.
    expect(parseFilter("ts > TIMESTAMP '2024-01-01 10:00:00.000500'", schema)).toMatchObject({
      value: { value: '2024-01-01T10:00:00.000500Z' },
    })
    expect(parseFilter("ts > '1969-12-31 23:59:59.999999999'", schema)).toMatchObject({
      value: { value: '1969-12-31T23:59:59.999999999Z' },
    })
    expect(error("day = DATE '2023-02-29'").message).toMatch(/bad date '2023-02-29' at position 12/)
  })

  test('filterColumns lists each column once in order', () => {
    expect(filterColumns(parseFilter("label = 1 and (country = 'a' or label is null) and not x > 1"))).toEqual([
      'label',
      'country',
      'x',
    ])
  })

  test('bad token names the token and its 1-based position', () => {
    const e = error("country = 'AA' )")
    expect(e.message).toBe("filter: unexpected ')' at position 16")
    expect(e.position).toBe(16)
    expect(error('label = 1 AND').message).toMatch(/unexpected end of filter at position 14/)
    expect(error('label = = 1').message).toMatch(/unexpected '=' at position 9/)
    expect(error('label # 1').message).toMatch(/unexpected character '#' at position 7/)
    expect(error("country = 'AA").message).toMatch(/unterminated string starting at position 11/)
    expect(error('').message).toMatch(/empty filter/)
  })

  test('unknown column names the column and its position', () => {
    const e = error("label = 1 and contry = 'AA'")
    expect(e.message).toMatch(/unknown column 'contry' at position 15/)
    expect(e.position).toBe(15)
    expect(() => parseFilter("contry = 'AA'")).not.toThrow() // without a schema, any column
  })

  test('type mismatch names column, both types and position', () => {
    expect(error("label = 'x'").message).toBe(
      "filter: column 'label' is integer, cannot compare it with string 'x' at position 9",
    )
    expect(error('country = 1').message).toMatch(/column 'country' is string, cannot compare it with number 1/)
    expect(error('ok = 1').message).toMatch(/column 'ok' is boolean/)
    expect(error("label IN (1, 'b')").message).toMatch(/column 'label' is integer.*position 14/)
    expect(error("tags = 'a'").message).toMatch(/column 'tags' is array/)
  })

  test('empty IN list is an error', () => {
    expect(error('label IN ()').message).toMatch(/empty IN list for column 'label' at position 10/)
  })

  test('columns named like DATE/TIMESTAMP keywords work unquoted', () => {
    expect(parseFilter("date = DATE '2024-01-01'")).toMatchObject({ column: 'date', value: { type: 'date' } })
    expect(parseFilter('timestamp IS NULL')).toEqual({ kind: 'null', column: 'timestamp', negated: false })
  })
})
