/**
 * `jsonPredicateHints` (PROTOCOL.md "JSON predicates for Filtering") from a `--filter`: the parts
 * of the filter that constrain partition columns only, as the protocol's op tree. Hints are best
 * effort on both sides — the server may return more files, this client may send less than the
 * filter says — so the reader always re-filters every row exactly.
 */
import type { FilterExpr, Literal } from '../data/types.ts'
import type { StructType } from '../table/types.ts'

/** One node of the protocol's predicate tree. */
export interface JsonPredicate {
  op: string
  children?: JsonPredicate[]
  name?: string
  value?: string
  valueType?: string
}

/** Delta primitive types the protocol's predicates can compare, by their valueType. */
const VALUE_TYPES: Record<string, string> = {
  boolean: 'bool',
  byte: 'int',
  short: 'int',
  integer: 'int',
  long: 'long',
  string: 'string',
  date: 'date',
  float: 'float',
  double: 'double',
  timestamp: 'timestamp',
}

const COMPARE_OPS: Record<string, string> = {
  '=': 'equal',
  '<': 'lessThan',
  '<=': 'lessThanOrEqual',
  '>': 'greaterThan',
  '>=': 'greaterThanOrEqual',
}

/**
 * The hint for `expr`, as the JSON text the query body carries, or undefined when no part of it
 * is about partition columns of a comparable type. An AND keeps the parts it can express; OR and
 * NOT only when the whole sub-tree can be (dropping a part there would wrongly narrow the files).
 */
export function jsonPredicateHints(
  expr: FilterExpr,
  schema: StructType,
  partitionColumns: string[],
): string | undefined {
  const types = new Map<string, string>()
  for (const field of schema.fields) {
    const valueType = typeof field.type === 'string' ? VALUE_TYPES[field.type] : undefined
    if (valueType && partitionColumns.includes(field.name)) types.set(field.name, valueType)
  }
  const tree = hint(expr, types, false)
  return tree ? JSON.stringify(tree) : undefined
}

/** `exact`: the result must say exactly what `e` says (under OR/NOT), else undefined. */
function hint(e: FilterExpr, types: Map<string, string>, exact: boolean): JsonPredicate | undefined {
  switch (e.kind) {
    case 'and': {
      const parts = [hint(e.left, types, exact), hint(e.right, types, exact)]
      const kept = parts.filter((p): p is JsonPredicate => p !== undefined)
      if (exact && kept.length < 2) return undefined
      return kept.length === 2 ? { op: 'and', children: kept } : kept[0]
    }
    case 'or': {
      const left = hint(e.left, types, true)
      const right = left && hint(e.right, types, true)
      return left && right ? { op: 'or', children: [left, right] } : undefined
    }
    case 'not': {
      const inner = hint(e.expr, types, true)
      return inner && { op: 'not', children: [inner] }
    }
    case 'null': {
      const type = types.get(e.column)
      if (!type) return undefined
      const isNull = { op: 'isNull', children: [{ op: 'column', name: e.column, valueType: type }] }
      return e.negated ? { op: 'not', children: [isNull] } : isNull
    }
    case 'compare': {
      const type = types.get(e.column)
      const value = type && literalText(e.value, type)
      if (!type || value === undefined) return undefined
      const pair = [
        { op: 'column', name: e.column, valueType: type },
        { op: 'literal', value, valueType: type },
      ]
      if (e.op === '!=') return { op: 'not', children: [{ op: 'equal', children: pair }] }
      return { op: COMPARE_OPS[e.op]!, children: pair }
    }
    case 'in': {
      const type = types.get(e.column)
      if (!type || !e.values.length) return undefined
      const equals: JsonPredicate[] = []
      for (const v of e.values) {
        const value = literalText(v, type)
        if (value === undefined) return undefined
        equals.push({
          op: 'equal',
          children: [
            { op: 'column', name: e.column, valueType: type },
            { op: 'literal', value, valueType: type },
          ],
        })
      }
      const any = equals.length === 1 ? equals[0] : { op: 'or', children: equals }
      return e.negated ? { op: 'not', children: [any] } : any
    }
  }
}

/** The literal as the protocol writes it for `type`, or undefined when the kinds do not match. */
function literalText(lit: Literal, type: string): string | undefined {
  if (lit.type === 'number' && ['int', 'long', 'float', 'double'].includes(type)) {
    if ((type === 'int' || type === 'long') && !Number.isInteger(lit.value)) return undefined
    return lit.text ?? String(lit.value)
  }
  if (lit.type === 'string' && type === 'string') return lit.value
  if (lit.type === 'date' && type === 'date') return lit.value
  if (lit.type === 'timestamp' && type === 'timestamp') return lit.value
  if (lit.type === 'boolean' && type === 'bool') return String(lit.value)
  return undefined
}
