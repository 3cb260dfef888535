/**
 * `jsonPredicateHints` (src/sharing/hints.ts) from parsed filters: the protocol's op tree for the
 * parts about partition columns of comparable types. The trees are pinned exactly; then a seeded
 * check over random filters and partition values asserts the rule hints live by: a hint never
 * excludes a file holding a row the filter keeps (SQL three-valued logic on both sides).
 */
import { describe, expect, it } from 'vitest'
import { evalFilter } from '../../../src/data/filter-eval.ts'
import { parseFilter } from '../../../src/data/filter-parse.ts'
import { type JsonPredicate, jsonPredicateHints } from '../../../src/sharing/hints.ts'
import type { PrimitiveType, StructType } from '../../../src/table/types.ts'
import { Rng } from '../../../src/util/rng.ts'

const field = (name: string, type: PrimitiveType) => ({ name, type, nullable: true, metadata: {} })
const SCHEMA: StructType = {
  type: 'struct',
  fields: [
    field('letter', 'string'),
    field('year', 'long'),
    field('n', 'integer'),
    field('day', 'date'),
    field('flag', 'boolean'),
    field('ts', 'timestamp'),
    field('ratio', 'double'),
    field('amount', 'decimal(10,2)' as PrimitiveType),
    field('price', 'double'),
  ],
}
const PARTITIONS = ['letter', 'year', 'n', 'day', 'flag', 'ts', 'ratio', 'amount']

function hints(filter: string, partitions = PARTITIONS): JsonPredicate | undefined {
  const text = jsonPredicateHints(parseFilter(filter, SCHEMA), SCHEMA, partitions)
  return text === undefined ? undefined : (JSON.parse(text) as JsonPredicate)
}

const col = (name: string, valueType: string) => ({ op: 'column', name, valueType })
const lit = (value: string, valueType: string) => ({ op: 'literal', value, valueType })
const eq = (name: string, value: string, type = 'string') => ({
  op: 'equal',
  children: [col(name, type), lit(value, type)],
})

describe('jsonPredicateHints: the op tree', () => {
  it('maps comparisons, with the column on the left whichever side it was written on', () => {
    expect(hints("letter = 'a'")).toEqual(eq('letter', 'a'))
    expect(hints("'a' < letter")).toEqual({
      op: 'greaterThan',
      children: [col('letter', 'string'), lit('a', 'string')],
    })
    const ops: Record<string, string> = {
      '<': 'lessThan',
      '<=': 'lessThanOrEqual',
      '>': 'greaterThan',
      '>=': 'greaterThanOrEqual',
    }
    for (const [op, name] of Object.entries(ops))
      expect(hints(`year ${op} 2020`)).toEqual({ op: name, children: [col('year', 'long'), lit('2020', 'long')] })
    expect(hints("letter != 'a'")).toEqual({ op: 'not', children: [eq('letter', 'a')] })
  })

  it('writes each comparable type as the protocol names it, literals as written', () => {
    expect(hints('year = 12345678901234567')).toEqual(eq('year', '12345678901234567', 'long'))
    expect(hints('n = -7')).toEqual(eq('n', '-7', 'int'))
    expect(hints('ratio = 0.25')).toEqual(eq('ratio', '0.25', 'double'))
    expect(hints("day = DATE '2024-02-29'")).toEqual(eq('day', '2024-02-29', 'date'))
    expect(hints("day = '2024-02-29'")).toEqual(eq('day', '2024-02-29', 'date'))
    expect(hints('flag = true')).toEqual(eq('flag', 'true', 'bool'))
    const ts = hints("ts >= TIMESTAMP '2024-01-01 10:00:00.123456'")
    expect(ts).toEqual({
      op: 'greaterThanOrEqual',
      children: [col('ts', 'timestamp'), lit('2024-01-01T10:00:00.123456Z', 'timestamp')],
    })
  })

  it('turns IN into ORs of equals and IS [NOT] NULL into isNull', () => {
    expect(hints("letter IN ('a')")).toEqual(eq('letter', 'a'))
    expect(hints("letter IN ('a', 'e')")).toEqual({ op: 'or', children: [eq('letter', 'a'), eq('letter', 'e')] })
    expect(hints("letter NOT IN ('a', 'e')")).toEqual({
      op: 'not',
      children: [{ op: 'or', children: [eq('letter', 'a'), eq('letter', 'e')] }],
    })
    const isNull = { op: 'isNull', children: [col('letter', 'string')] }
    expect(hints('letter IS NULL')).toEqual(isNull)
    expect(hints('letter IS NOT NULL')).toEqual({ op: 'not', children: [isNull] })
  })

  it('sends nothing about data columns, incomparable types or a literal of another kind', () => {
    expect(hints('price > 3')).toBeUndefined()
    expect(hints('amount = 1.50')).toBeUndefined()
    expect(hints("letter = 'a'", ['year'])).toBeUndefined()
    // Without a schema the parser cannot coerce: a fraction for a long, a string for a number.
    const untyped = (filter: string) => jsonPredicateHints(parseFilter(filter), SCHEMA, PARTITIONS)
    expect(untyped('year = 1.5')).toBeUndefined()
    expect(untyped("year = '2020'")).toBeUndefined()
    expect(untyped("flag = 'true'")).toBeUndefined()
  })

  it('keeps the expressible half of an AND, but an OR or NOT only whole', () => {
    expect(hints("letter = 'a' AND price > 3")).toEqual(eq('letter', 'a'))
    expect(hints("price > 3 AND letter = 'a' AND year = 2020")).toEqual({
      op: 'and',
      children: [eq('letter', 'a'), eq('year', '2020', 'long')],
    })
    expect(hints("letter = 'a' OR price > 3")).toBeUndefined()
    expect(hints("year = 2020 AND (letter = 'a' OR price > 3)")).toEqual(eq('year', '2020', 'long'))
    // NOT (a AND p) is not NOT a: it would drop files where a holds and p does not.
    expect(hints("NOT (letter = 'a' AND price > 3)")).toBeUndefined()
    expect(hints("NOT (letter = 'a' OR year = 2020)")).toEqual({
      op: 'not',
      children: [{ op: 'or', children: [eq('letter', 'a'), eq('year', '2020', 'long')] }],
    })
  })
})

/** The protocol's predicate on one file's partition values (null: unknown), as a server evaluates it. */
function holds(p: JsonPredicate, values: Record<string, string | null>): boolean | null {
  const kids = p.children ?? []
  const leaf = (k: JsonPredicate) => (k.op === 'column' ? values[k.name!] : k.value!)
  switch (p.op) {
    case 'and':
    case 'or': {
      const v = kids.map(k => holds(k, values))
      const decisive = p.op === 'or'
      return v.includes(decisive) ? decisive : v.includes(null) ? null : !decisive
    }
    case 'not': {
      const v = holds(kids[0], values)
      return v === null ? null : !v
    }
    case 'isNull':
      return leaf(kids[0]) === null
  }
  const [a, b] = kids.map(leaf)
  if (a === null || b === null) return null
  const c = kids[0].valueType === 'long' ? Number(a) - Number(b) : a < b ? -1 : a > b ? 1 : 0
  const ops: Record<string, (c: number) => boolean> = {
    equal: c => c === 0,
    lessThan: c => c < 0,
    lessThanOrEqual: c => c <= 0,
    greaterThan: c => c > 0,
    greaterThanOrEqual: c => c >= 0,
  }
  return ops[p.op]!(c)
}

describe('jsonPredicateHints: never narrower than the filter', () => {
  it('keeps every file with a matching row, over 600 seeded random filters', () => {
    const random = new Rng(20240601)
    const rng = () => random.next()
    const pick = <T>(xs: T[]): T => xs[Math.floor(rng() * xs.length)]!
    const atom = (): string =>
      pick([
        () => `letter ${pick(['=', '!=', '<', '>='])} '${pick(['a', 'b', 'c'])}'`,
        () => `year ${pick(['=', '<', '>', '<=', '!='])} ${pick([2019, 2020, 2021])}`,
        () => `letter ${pick(['IN', 'NOT IN'])} ('a', 'c')`,
        () => `${pick(['letter', 'year', 'price'])} IS ${pick(['', 'NOT '])}NULL`,
        () => `price ${pick(['<', '>'])} 5`,
      ])()
    const expr = (depth: number): string =>
      depth === 0 || rng() < 0.3
        ? atom()
        : rng() < 0.2
          ? `NOT (${expr(depth - 1)})`
          : `(${expr(depth - 1)}) ${pick(['AND', 'OR'])} (${expr(depth - 1)})`
    const misses: string[] = []
    let hinted = 0
    for (let i = 0; i < 600; i++) {
      const filter = expr(3)
      const parsed = parseFilter(filter, SCHEMA)
      const tree = hints(filter, ['letter', 'year'])
      if (!tree) continue
      hinted++
      for (const letter of ['a', 'b', 'c', null])
        for (const year of [2019, 2020, 2021, null])
          for (const price of [1, 9, null]) {
            const row = { letter, year: year === null ? null : BigInt(year), price }
            const partition = { letter, year: year === null ? null : String(year) }
            if (evalFilter(parsed, row) && holds(tree, partition) !== true)
              misses.push(`${filter} drops ${JSON.stringify(partition)}`)
          }
    }
    expect(misses.slice(0, 5)).toEqual([])
    expect(hinted).toBeGreaterThan(150)
  })
})
