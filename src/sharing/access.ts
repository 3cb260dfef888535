/**
 * A shared table's access as plain data (it crosses to rank workers and into the page), and the
 * session that serves it.
 */
import { TableError, type HttpOptions } from '../table/types.ts'
import type { SharingProfile } from './profile.ts'
import { SharingClient, type ShareCoordinates } from './rest.ts'
import { SharedTableSession, shareTableUrl } from './shared-table.ts'

/** How a run reaches a shared table: the profile (token or OAuth client, or a proxy's endpoint). */
export interface ShareAccess {
  kind: 'share'
  profile: SharingProfile
  /** What to call the profile in errors: its file path, or "the chosen profile". */
  source: string
}

/**
 * A new session for `tableUrl` (a shareTableUrl under the profile's endpoint). Callers keep one per
 * access and table (storage/access.ts tableResolver), so a run's snapshot and its readers share it.
 */
export function shareSession(access: ShareAccess, tableUrl: string, http: HttpOptions = {}): SharedTableSession {
  const root = tableUrl.endsWith('/') ? tableUrl : `${tableUrl}/`
  const client = new SharingClient(access.profile, access.source, { ...http, resolver: undefined, headers: undefined })
  return new SharedTableSession(client, shareCoordinatesOf(root, access.profile.endpoint))
}

/** The coordinates in a shared table's URL; an error naming it when it is not one under `endpoint`. */
export function shareCoordinatesOf(tableUrl: string, endpoint: string): ShareCoordinates {
  const rest = tableUrl.startsWith(endpoint) ? tableUrl.slice(endpoint.length) : undefined
  const m = rest ? /^shares\/([^/]+)\/schemas\/([^/]+)\/tables\/([^/]+)\/?$/.exec(rest) : null
  if (!m) {
    throw new TableError(
      `${tableUrl} is not a shared table of ${endpoint} (expected …/shares/S/schemas/D/tables/T/)`,
      'sharing',
      tableUrl,
    )
  }
  const t = { share: decodeURIComponent(m[1]!), schema: decodeURIComponent(m[2]!), table: decodeURIComponent(m[3]!) }
  if (shareTableUrl(endpoint, t) !== (tableUrl.endsWith('/') ? tableUrl : `${tableUrl}/`)) {
    throw new TableError(`${tableUrl}: names are not escaped as a shared table URL's are`, 'sharing', tableUrl)
  }
  return t
}
