/**
 * Governed tables in the CLI's page. `--table` takes them wherever it is taken (table-url.ts,
 * through the table sources: `<profile-file>#<share>.<schema>.<table>`, `s3://bucket/prefix`,
 * `uc:<catalog>.<schema>.<table>`); in Node the run reads them through the access's resolver. The
 * page of train, predict and sweep reaches them through this process's local proxies on its own
 * origin, so no token, key or secret enters the page.
 */
import { sharingProxy } from '../serve/sharing-proxy.ts'
import { storageProxy } from '../serve/storage-proxy.ts'
import { pageView as sourcePageView, type PageView, type SourceHttp } from '../sources/index.ts'
import type { TableAccess } from '../storage/types.ts'

/** The HTTP options a command's flags set for its governed tables' own requests and proxies. */
export type GovernedHttp = SourceHttp

const pageViews = new WeakMap<TableAccess, Map<string, PageView>>()

/**
 * The governed table as the page on `origin` reads it: a share through the sharing proxy (a
 * proxied profile, no token), signed storage through the storage proxy (a plain HTTP table).
 * The proxies send with `http`: what the page may reach is what the run's flags allow, checked
 * on the URLs the proxies actually fetch (pre-signed URLs, redirects).
 */
export function pageView(url: string, access: TableAccess, origin: string, http: GovernedHttp = {}): PageView {
  let byUrl = pageViews.get(access)
  if (!byUrl) pageViews.set(access, (byUrl = new Map()))
  const known = byUrl.get(`${origin} ${url}`)
  if (known) return known
  const view = sourcePageView(url, access, origin, http, { sharing: sharingProxy, storage: storageProxy })
  // A view that keeps the table as it is (a profile already talking to a proxy) is not a registration.
  if (view.table !== url) byUrl.set(`${origin} ${url}`, view)
  return view
}

/**
 * `config` as the page at `pageUrl` runs it: a governed table replaced by its page view, whose
 * proxies send with the config's allow-list and plain-HTTP opt-in (what the command's flags set).
 */
export function forPage<
  C extends { table: string; access?: TableAccess; allowOrigins?: string[]; http?: { allowInsecureHttp?: boolean } },
>(config: C, pageUrl: string): C {
  if (!config.access) return config
  const view = pageView(config.table, config.access, new URL(pageUrl).origin, configHttp(config))
  const { access: _unused, ...rest } = config
  return { ...rest, table: view.table, ...(view.access ? { access: view.access } : {}) } as C
}

function configHttp(config: { allowOrigins?: string[]; http?: { allowInsecureHttp?: boolean } }): GovernedHttp {
  return {
    ...(config.allowOrigins ? { allowOrigins: config.allowOrigins } : {}),
    ...(config.http?.allowInsecureHttp ? { allowInsecureHttp: true } : {}),
  }
}
