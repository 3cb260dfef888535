/**
 * Delta Sharing: `<profile-file>#<share>.<schema>.<table>` (the protocol's convention), read
 * through a session with the sharing server (src/sharing is the client). The table's URL is its
 * REST resource under the profile's endpoint; the CLI's page talks to the server through the
 * local sharing proxy, so the profile's token never enters the page.
 */
import { type ShareAccess, shareCoordinatesOf, shareSession } from '../../sharing/access.ts'
import { parseShareAddress, shareTableUrl } from '../../sharing/index.ts'
import type { TableSource } from '../types.ts'

export const sharingSource: TableSource<ShareAccess> = {
  async open(address, { flag, host, http }) {
    const parsed = parseShareAddress(address)
    const access = await host.readProfile(parsed.profile, flag)
    const { share, schema, table } = parsed.table
    const url = shareTableUrl(access.profile.endpoint, parsed.table)
    const display = `${access.source}#${share}.${schema}.${table}`
    // The run's one session talks to the server with the command's allow-list and opt-in.
    return {
      url,
      display,
      path: display,
      access,
      resolver: shareSession(access, url, http),
      localize: m => m,
      close: async () => {},
    }
  },
  resolver: (tableUrl, access, opts) => shareSession(access, tableUrl, opts.http),
  async openAccess(access, location, opts) {
    if (location === undefined) throw new RangeError("a 'share' table access needs the table's URL")
    const tableUrl = location.endsWith('/') ? location : `${location}/`
    return { tableUrl, resolver: shareSession(access, tableUrl, opts.http) }
  },
  pageView(url, access, page) {
    // A profile that already talks to a proxy (the page's own) is the page's as it is.
    if (access.profile.shareCredentialsVersion === 0) return { table: url, access }
    const id = page.proxies.sharing.register(access.profile, access.source, page.http)
    const endpoint = page.proxies.sharing.endpoint(page.origin, id)
    return {
      table: shareTableUrl(endpoint, shareCoordinatesOf(url, access.profile.endpoint)),
      access: {
        kind: 'share',
        profile: { shareCredentialsVersion: 0, endpoint, upstream: access.profile.endpoint },
        source: access.source,
      },
    }
  },
}
