/** How the page names a table: its short name from the URL, and `name@vN` with the version trained on. */
import type { SweepState } from './types.ts'

/** Short name of a table URL: its last path segment, or `share.schema.table` for a shared table's URL. */
export function tableName(url: string): string {
  const shared = /\/shares\/([^/]+)\/schemas\/([^/]+)\/tables\/([^/]+)\/?$/.exec(url)
  if (shared) return shared.slice(1).map(decodeSegment).join('.')
  return url.replace(/\/+$/, '').split('/').pop() || url
}

/** A sweep's table as the page names it: `marketing@v3` (its short name and the version it trained on). */
export function tableLabel(c: Pick<SweepState['config'], 'table' | 'version'>): string {
  return `${tableName(c.table)}${c.version === undefined ? '' : `@v${c.version}`}`
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}
