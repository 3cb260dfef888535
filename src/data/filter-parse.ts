/**
 * Parser of the row-filter language into a FilterExpr (types.ts):
 *
 *   expr    := or
 *   or      := and (OR and)*
 *   and     := not (AND not)*
 *   not     := NOT not | primary
 *   primary := '(' expr ')' | column op literal | literal op column
 *            | column [NOT] IN '(' literal (',' literal)* ')' | column IS [NOT] NULL
 *   literal := number | '-' number | 'string' | DATE 'YYYY-MM-DD' | TIMESTAMP '…' | TRUE | FALSE
 *
 * Keywords are case-insensitive; columns are bare words or `back`/"double" quoted. With a schema,
 * columns must exist and literals must fit the column's Delta type (strings are read as dates or
 * timestamps for such columns); every error names the token or column and its 1-based position.
 */
import { Timestamp } from '../table/timestamp.ts'
import type { DeltaType, StructType } from '../table/types.ts'
import { FilterError, tokenize, type Token } from './filter-lexer.ts'
import type { FilterExpr, Literal } from './types.ts'

export { FilterError } from './filter-lexer.ts'

type CompareOp = Extract<FilterExpr, { kind: 'compare' }>['op']

const KEYWORDS = new Set(['and', 'or', 'not', 'in', 'is', 'null', 'true', 'false'])
const FLIPPED: Record<CompareOp, CompareOp> = { '=': '=', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' }

/**
 * Parses `text`. With `schema`, unknown columns and literals of the wrong type are FilterErrors
 * naming the column, the types and the position. Throws FilterError on any syntax error.
 */
export function parseFilter(text: string, schema?: StructType): FilterExpr {
  return new Parser(tokenize(text), schema).parse()
}

/** Distinct column names a filter reads, in order of first appearance. */
export function filterColumns(expr: FilterExpr): string[] {
  const out = new Set<string>()
  const visit = (e: FilterExpr): void => {
    if (e.kind === 'not') visit(e.expr)
    else if ('left' in e) {
      visit(e.left)
      visit(e.right)
    } else out.add(e.column)
  }
  visit(expr)
  return [...out]
}

/** Recursive-descent parser over the token list. */
class Parser {
  private at = 0
  constructor(
    private readonly tokens: Token[],
    private readonly schema?: StructType,
  ) {}

  parse(): FilterExpr {
    if (this.peek().kind === 'end') throw new FilterError('filter: empty filter', 0)
    const expr = this.or()
    if (this.peek().kind !== 'end') throw unexpected(this.peek())
    return expr
  }

  private or(): FilterExpr {
    let left = this.and()
    while (this.keyword('or')) left = { kind: 'or', left, right: this.and() }
    return left
  }

  private and(): FilterExpr {
    let left = this.not()
    while (this.keyword('and')) left = { kind: 'and', left, right: this.not() }
    return left
  }

  private not(): FilterExpr {
    return this.keyword('not') ? { kind: 'not', expr: this.not() } : this.primary()
  }

  private primary(): FilterExpr {
    const token = this.peek()
    if (token.kind === '(') {
      this.next()
      const expr = this.or()
      this.expect(')')
      return expr
    }
    if (this.isColumn(token) && !this.isTypedString(token)) return this.predicate(this.column())
    // literal op column
    const { literal, token: litToken } = this.literal()
    const op = this.operator()
    const column = this.column()
    return { kind: 'compare', op: FLIPPED[op], column: column.name, value: this.typed(literal, column, litToken) }
  }

  /** What follows a column: comparison, [NOT] IN (…), IS [NOT] NULL. */
  private predicate(column: { name: string; type?: DeltaType; token: Token }): FilterExpr {
    if (this.keyword('is')) {
      const negated = this.keyword('not')
      if (!this.keyword('null')) throw unexpected(this.peek(), 'NULL or NOT NULL after IS')
      return { kind: 'null', column: column.name, negated }
    }
    const negated = this.keyword('not')
    if (negated || this.isKeyword(this.peek(), 'in')) {
      if (!this.keyword('in')) throw unexpected(this.peek(), 'IN after NOT')
      return { kind: 'in', column: column.name, values: this.list(column), negated }
    }
    const op = this.operator()
    const { literal, token } = this.literal()
    return { kind: 'compare', op, column: column.name, value: this.typed(literal, column, token) }
  }

  private list(column: { name: string; type?: DeltaType; token: Token }): Literal[] {
    const open = this.expect('(')
    if (this.peek().kind === ')')
      throw new FilterError(
        `filter: empty IN list for column '${column.name}' at position ${open.position}`,
        open.position,
      )
    const values: Literal[] = []
    do {
      const { literal, token } = this.literal()
      values.push(this.typed(literal, column, token))
    } while (this.accept(','))
    this.expect(')')
    return values
  }

  private column(): { name: string; type?: DeltaType; token: Token } {
    const token = this.next()
    if (!this.isColumn(token)) throw unexpected(token, 'a column name')
    const name = String(token.value)
    if (!this.schema) return { name, token }
    const field = this.schema.fields.find(f => f.name === name)
    if (!field) {
      const known = this.schema.fields.map(f => f.name).join(', ')
      throw new FilterError(
        `filter: unknown column '${name}' at position ${token.position} (columns: ${known})`,
        token.position,
      )
    }
    return { name, type: field.type, token }
  }

  private operator(): CompareOp {
    const token = this.next()
    if (token.kind !== 'op') throw unexpected(token, 'a comparison operator')
    return token.value as CompareOp
  }

  private literal(): { literal: Literal; token: Token } {
    const token = this.next()
    if (token.kind === 'number')
      return { literal: { type: 'number', value: token.value as number, text: token.text }, token }
    if (token.kind === '-' && this.peek().kind === 'number') {
      const number = this.next()
      return { literal: { type: 'number', value: -(number.value as number), text: `-${number.text}` }, token }
    }
    if (token.kind === 'string') return { literal: { type: 'string', value: token.value as string }, token }
    if (this.isKeyword(token, 'true') || this.isKeyword(token, 'false')) {
      return { literal: { type: 'boolean', value: String(token.value).toLowerCase() === 'true' }, token }
    }
    if (this.isTypedString(token)) return { literal: this.typedString(token), token }
    throw unexpected(token, 'a literal')
  }

  /** DATE '…' / TIMESTAMP '…'. */
  private typedString(keyword: Token): Literal {
    const token = this.next()
    if (token.kind !== 'string') throw unexpected(token, `a quoted string after ${String(keyword.value).toUpperCase()}`)
    const isDate = String(keyword.value).toLowerCase() === 'date'
    const literal = isDate ? dateLiteral(String(token.value)) : timestampLiteral(String(token.value))
    if (!literal)
      throw new FilterError(
        `filter: bad ${isDate ? 'date' : 'timestamp'} '${token.value}' at position ${token.position}`,
        token.position,
      )
    return literal
  }

  /** Checks (and coerces) a literal against the column's Delta type when a schema is known. */
  private typed(literal: Literal, column: { name: string; type?: DeltaType }, token: Token): Literal {
    if (column.type === undefined) return literal
    const coerced = coerce(literal, column.type)
    if (coerced) return coerced
    const type = typeof column.type === 'string' ? column.type : column.type.type
    throw new FilterError(
      `filter: column '${column.name}' is ${type}, cannot compare it with ${literal.type} ${token.text} at position ${token.position}`,
      token.position,
    )
  }

  private isColumn(token: Token): boolean {
    return token.kind === 'quoted' || (token.kind === 'word' && !KEYWORDS.has(String(token.value).toLowerCase()))
  }

  /**
   * DATE '…' / TIMESTAMP '…': DATE and TIMESTAMP are keywords only before a string, so columns
   * named date or timestamp need no quoting. `token` must be the current or next token.
   */
  private isTypedString(token: Token): boolean {
    const after = this.tokens[this.tokens.indexOf(token, this.at - 1) + 1]
    return (this.isKeyword(token, 'date') || this.isKeyword(token, 'timestamp')) && after?.kind === 'string'
  }

  private isKeyword(token: Token, word: string): boolean {
    return token.kind === 'word' && String(token.value).toLowerCase() === word
  }

  private keyword(word: string): boolean {
    if (!this.isKeyword(this.peek(), word)) return false
    this.at++
    return true
  }

  private accept(kind: Token['kind']): boolean {
    if (this.peek().kind !== kind) return false
    this.at++
    return true
  }

  private expect(kind: Token['kind']): Token {
    const token = this.next()
    if (token.kind !== kind) throw unexpected(token, `'${kind}'`)
    return token
  }

  private peek(): Token {
    return this.tokens[this.at]
  }
  private next(): Token {
    return this.tokens[Math.min(this.at++, this.tokens.length - 1)]
  }
}

function unexpected(token: Token, expected?: string): FilterError {
  const what = token.kind === 'end' ? 'end of filter' : `'${token.text}'`
  return new FilterError(
    `filter: unexpected ${what} at position ${token.position}${expected ? ` (expected ${expected})` : ''}`,
    token.position,
  )
}

const NUMERIC = /^(byte|short|integer|long|float|double|decimal(\(.*\))?)$/

/** The literal as the column's type wants it, or undefined when it does not fit. */
function coerce(literal: Literal, type: DeltaType): Literal | undefined {
  if (typeof type !== 'string') return undefined
  if (NUMERIC.test(type)) return literal.type === 'number' ? literal : undefined
  if (type === 'string') return literal.type === 'string' ? literal : undefined
  if (type === 'boolean') return literal.type === 'boolean' ? literal : undefined
  if (type === 'date') {
    return literal.type === 'date' ? literal : literal.type === 'string' ? dateLiteral(literal.value) : undefined
  }
  if (type === 'timestamp' || type === 'timestamp_ntz') {
    if (literal.type === 'timestamp') return literal
    if (literal.type === 'date' || literal.type === 'string') return timestampLiteral(literal.value)
  }
  return undefined
}

/** 'YYYY-MM-DD' (a real calendar day) → date literal. */
export function dateLiteral(text: string): Literal | undefined {
  const m = /^\s*(\d{4})-(\d{2})-(\d{2})\s*$/.exec(text)
  if (!m) return undefined
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])))
  if (date.getUTCMonth() + 1 !== Number(m[2]) || date.getUTCDate() !== Number(m[3])) return undefined
  return { type: 'date', value: `${m[1]}-${m[2]}-${m[3]}` }
}

/**
 * A timestamp as Delta writes partition values (UTC unless a zone is given) → ISO literal with
 * every fraction digit it has (Timestamp's text), so comparisons stay exact to the µs (or ns).
 */
export function timestampLiteral(text: string): Literal | undefined {
  const value = Timestamp.parse(text)?.toJSON()
  return value ? { type: 'timestamp', value } : undefined
}
