/**
 * Addresses of shared tables. The protocol's own convention names a table by its profile file
 * and coordinates, `<profile-file>#<share>.<schema>.<table>`; inside snaptrain a shared table's
 * URL is its REST resource under the endpoint (shared-table.ts shareTableUrl), which a manifest
 * records with the coordinates.
 */
import { TableError } from '../table/types.ts'
import type { ShareCoordinates } from './rest.ts'

/** `<profile>#share.schema.table`, split. */
export interface ShareAddress {
  /** The profile file as given (a path). */
  profile: string
  table: ShareCoordinates
}

/** True when `input` is written as a share address (it has a '#'). */
export function isShareAddress(input: string): boolean {
  return input.includes('#') && !/^https?:\/\//i.test(input)
}

/**
 * Splits `<profile>#<share>.<schema>.<table>`. Schema and table names cannot contain '.', a share
 * name can (PROTOCOL.md "Names"), so the last two dots divide. Names may not be empty or hold a
 * space, '/' or a control character.
 */
export function parseShareAddress(input: string): ShareAddress {
  const hash = input.lastIndexOf('#')
  const profile = input.slice(0, hash)
  const coords = input.slice(hash + 1)
  if (!profile) throw addressError(input, 'has no profile file before the #')
  return { profile, table: parseCoordinates(coords, input) }
}

/** `share.schema.table` → coordinates (what `#…` and the page's browser give). */
export function parseCoordinates(coords: string, input = coords): ShareCoordinates {
  const last = coords.lastIndexOf('.')
  const middle = last > 0 ? coords.lastIndexOf('.', last - 1) : -1
  if (middle <= 0 || last === coords.length - 1 || last - middle === 1) {
    throw addressError(input, `has '${coords}' after the #, expected <share>.<schema>.<table>`)
  }
  const t = { share: coords.slice(0, middle), schema: coords.slice(middle + 1, last), table: coords.slice(last + 1) }
  for (const [what, name] of Object.entries(t)) {
    if (/[\s/\u0000-\u001f\u007f]/.test(name) || name.length > 255) {
      throw addressError(
        input,
        `has a ${what} name '${name}' with a space, '/' or control character (or over 255 characters)`,
      )
    }
  }
  return t
}

function addressError(input: string, what: string): TableError {
  return new TableError(`table address '${input}' ${what}`, 'sharing', input)
}
