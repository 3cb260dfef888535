/**
 * Tokenizer of the row-filter language (see filter-parse.ts for the grammar). Positions are
 * 1-based character columns so error messages can point into the user's string.
 */

/** A filter that does not lex, parse or type-check; `position` is the 1-based column (0 = whole filter). */
export class FilterError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message)
    this.name = 'FilterError'
  }
}

/** Token kinds: bare words (columns or keywords), quoted identifiers, literals, operators, punctuation. */
export type TokenKind = 'word' | 'quoted' | 'string' | 'number' | 'op' | '(' | ')' | ',' | '-' | 'end'

/** One token; `text` is the source text, `value` the unquoted identifier/string or the number. */
export interface Token {
  kind: TokenKind
  text: string
  value: string | number
  /** 1-based column of the first character. */
  position: number
}

const WORD = /[A-Za-z_][A-Za-z0-9_$]*/y
const NUMBER = /(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/y
const OPERATOR = /(?:<=|>=|<>|!=|==|=|<|>)/y

/** Splits `text` into tokens ending with an 'end' token; an unknown character is a FilterError. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = []
  let at = 0
  while (at < text.length) {
    if (/\s/.test(text[at])) {
      at++
      continue
    }
    const token = readToken(text, at)
    tokens.push(token)
    at += token.text.length
  }
  tokens.push({ kind: 'end', text: '', value: '', position: text.length + 1 })
  return tokens
}

function readToken(text: string, at: number): Token {
  const position = at + 1
  const c = text[at]
  if (c === "'") return quoted(text, at, "'", 'string')
  if (c === '`' || c === '"') return quoted(text, at, c, 'quoted')
  if (c === '(' || c === ')' || c === ',' || c === '-') return { kind: c, text: c, value: c, position }
  const word = match(WORD, text, at)
  if (word) return { kind: 'word', text: word, value: word, position }
  const number = match(NUMBER, text, at)
  if (number) {
    if (/[A-Za-z_]/.test(text[at + number.length] ?? ''))
      throw new FilterError(
        `filter: bad number '${match(/[A-Za-z0-9_.]+/y, text, at)}' at position ${position}`,
        position,
      )
    return { kind: 'number', text: number, value: Number(number), position }
  }
  const op = match(OPERATOR, text, at)
  if (op) return { kind: 'op', text: op, value: op === '==' ? '=' : op === '<>' ? '!=' : op, position }
  throw new FilterError(`filter: unexpected character '${c}' at position ${position}`, position)
}

function match(pattern: RegExp, text: string, at: number): string | undefined {
  pattern.lastIndex = at
  return pattern.exec(text)?.[0]
}

/** A quoted string or identifier; the quote character doubled inside stands for itself. */
function quoted(text: string, at: number, quote: string, kind: 'string' | 'quoted'): Token {
  let value = ''
  let i = at + 1
  for (;;) {
    if (i >= text.length) {
      const what = kind === 'string' ? 'string' : 'quoted identifier'
      throw new FilterError(`filter: unterminated ${what} starting at position ${at + 1}`, at + 1)
    }
    if (text[i] === quote) {
      if (text[i + 1] !== quote) break
      value += quote
      i += 2
    } else value += text[i++]
  }
  return { kind, text: text.slice(at, i + 1), value, position: at + 1 }
}
