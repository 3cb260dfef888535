/**
 * File selection of the Delta Sharing test server, both best effort as the spec allows: partition
 * values against `jsonPredicateHints` in SQL's three-valued logic, and the `limitHint` by row counts.
 */
import type { AddAction } from '../../src/table/actions.ts'
import { physicalName } from '../../src/table/column-mapping.ts'
import { columnMappingMode, parseSchema } from '../../src/table/schema.ts'
import type { Metadata } from '../../src/table/types.ts'
import type { QueryRequest } from './sharing-query.ts'
import type { TableSnapshot } from './sharing-table.ts'

interface Predicate {
  op?: string
  children?: Predicate[]
  name?: string
  value?: string
  valueType?: string
}

/** A predicate's value on one file: null when unknown (a null operand), as SQL's three-valued logic. */
type Truth = boolean | null

/**
 * Files whose partition values satisfy `jsonPredicateHints` (unknown, from a null, matches no row,
 * as in SQL); a predicate that cannot be applied keeps them all.
 */
export function filterFiles(snap: TableSnapshot, hints: string | undefined): AddAction[] {
  if (!hints) return snap.adds
  try {
    const tree = JSON.parse(hints) as Predicate
    const value = partitionLookup(snap.metadata)
    return snap.adds.filter(add => evaluate(tree, column => value(add, column)) === true)
  } catch {
    return snap.adds
  }
}

/** Partition value of a logical column (the log keys them by physical name under column mapping). */
function partitionLookup(m: Metadata): (add: AddAction, column: string) => string | null {
  const schema = parseSchema(m.schemaString)
  const mode = columnMappingMode(m)
  const keys = new Map<string, string>()
  for (const column of m.partitionColumns) {
    const field = schema.fields.find(f => f.name === column)
    keys.set(column.toLowerCase(), field ? physicalName(field, mode) : column)
  }
  return (add, column) => {
    const key = keys.get(column.toLowerCase())
    if (key === undefined) throw new Error(`${column} is not a partition column`)
    const value = add.partitionValues[key]
    return value == null || value === '' ? null : value
  }
}

function evaluate(p: Predicate, column: (name: string) => string | null): Truth {
  const kids = p.children ?? []
  if (p.op === 'and' || p.op === 'or') {
    if (!kids.length) throw new Error(`${p.op} without children`)
    const values = kids.map(k => evaluate(k, column))
    const decisive = p.op === 'or'
    if (values.includes(decisive)) return decisive
    return values.includes(null) ? null : !decisive
  }
  if (p.op === 'not' || p.op === 'isNull') {
    if (kids.length !== 1) throw new Error(`${p.op} needs one child`)
    if (p.op === 'isNull') return operand(kids[0], column).value === null
    const v = evaluate(kids[0], column)
    return v === null ? null : !v
  }
  if (kids.length !== 2) throw new Error(`${p.op} needs two children`)
  const [a, b] = kids.map(k => operand(k, column))
  if (a.value === null || b.value === null) return null
  const c = compare(a.value, b.value, a.type ?? b.type)
  switch (p.op) {
    case 'equal':
      return c === 0
    case 'lessThan':
      return c < 0
    case 'lessThanOrEqual':
      return c <= 0
    case 'greaterThan':
      return c > 0
    case 'greaterThanOrEqual':
      return c >= 0
    default:
      throw new Error(`unknown op ${p.op}`)
  }
}

function operand(p: Predicate, column: (name: string) => string | null): { value: string | null; type?: string } {
  if (p.op === 'column' && typeof p.name === 'string') return { value: column(p.name), type: p.valueType }
  if (p.op === 'literal' && typeof p.value === 'string') return { value: p.value, type: p.valueType }
  throw new Error(`not a leaf: ${JSON.stringify(p)}`)
}

function boolOf(text: string): number {
  const i = ['false', 'true'].indexOf(text.toLowerCase())
  if (i < 0) throw new Error(`not a bool: ${text}`)
  return i
}

/** Order of two values of a valueType; throws on a value that does not parse as the type. */
function compare(a: string, b: string, type: string | undefined): number {
  const order = (x: number | bigint | string, y: number | bigint | string) => (x < y ? -1 : x > y ? 1 : 0)
  const finite = (x: number) => {
    if (Number.isNaN(x)) throw new Error('not a number')
    return x
  }
  switch (type) {
    case 'int':
    case 'long':
      return order(BigInt(a), BigInt(b))
    case 'float':
    case 'double':
      return order(finite(Number(a)), finite(Number(b)))
    case 'bool':
      return order(boolOf(a), boolOf(b))
    case 'string':
    case 'date':
      return order(a, b)
    case 'timestamp':
      return order(finite(timeOf(a)), finite(timeOf(b)))
    default:
      throw new Error(`unknown valueType ${type}`)
  }
}

/** Partition timestamps are written 'YYYY-MM-DD HH:MM:SS[.ffffff]', taken as UTC. */
function timeOf(text: string): number {
  const iso = text.includes('T') ? text : text.replace(' ', 'T')
  return Date.parse(/(Z|[+-]\d{2}:?\d{2})$/i.test(iso) ? iso : `${iso}Z`)
}

/**
 * The first files holding `limitHint` rows by their stats (less DV-deleted rows). As the reference
 * server, only without predicates; a file without a row count ends the attempt (all files).
 */
export function limitFiles(files: AddAction[], q: QueryRequest): AddAction[] {
  if (q.limitHint === undefined || q.predicateHints?.length || q.jsonPredicateHints) return files
  let rows = 0
  for (let i = 0; i < files.length; i++) {
    if (rows >= q.limitHint) return files.slice(0, i)
    const n = numRecords(files[i])
    if (n === undefined) return files
    rows += n - (files[i].deletionVector?.cardinality ?? 0)
  }
  return files
}

function numRecords(add: AddAction): number | undefined {
  try {
    const stats = (add.stats ? JSON.parse(add.stats) : add.statsParsed) as { numRecords?: unknown } | undefined
    return typeof stats?.numRecords === 'number' ? stats.numRecords : undefined
  } catch {
    return undefined
  }
}
