/**
 * Share, schema and table names as they reach a request path and a terminal. A name comes from the
 * user or from the server's own lists, so it is input: in a path it is one percent-encoded segment
 * that cannot leave its place, and in text it cannot start a line of its own.
 */
import { TableError } from '../table/types.ts'

/**
 * C0 and C1 controls (newline and tab included), the Unicode line and paragraph separators, and
 * the bidirectional overrides and isolates: each can make one printed name look like another line
 * or another name.
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

/** `name` with every control, separator and bidi character written as `\u000a` and the like. */
export function escapeName(name: string): string {
  return name.replace(UNPRINTABLE, c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** Longest name an error quotes whole: a server may send names of any length, an error line stays short. */
const QUOTED_CHARS = 200

/** escapeName for an error line: at most QUOTED_CHARS characters of `name`, then how many more it has. */
export function quotedName(name: string): string {
  if (name.length <= QUOTED_CHARS) return escapeName(name)
  return `${escapeName(name.slice(0, QUOTED_CHARS))}… (${name.length} characters)`
}

/**
 * `name` as one REST path segment (`encodeURIComponent`). Refused, naming it escaped: an empty
 * name, `.` and `..` (fetch's URL parser resolves them, and `..` encodes to itself, so the request
 * and its token would move up the server's tree, out of `/shares/`), a `/`, and control characters.
 *
 * @param what `share`, `schema` or `table`, for the error
 * @throws TableError('sharing')
 */
export function pathSegment(name: string, what: string): string {
  const refuse = (why: string) =>
    new TableError(`${what} name '${quotedName(name)}' ${why}; it cannot be sent as a path segment`, 'sharing')
  if (name === '' || name === '.' || name === '..') throw refuse(name ? 'is a dot segment' : 'is empty')
  if (name.includes('/')) throw refuse("holds a '/'")
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) throw refuse('holds a control character')
  return encodeURIComponent(name)
}
