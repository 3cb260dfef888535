/**
 * Signed storage (S3, a catalog's vended credentials) as the CLI's page reads it: a plain HTTP
 * table under the local storage proxy on the page's origin. Node signs every request with the
 * run's resolver, so no key, secret or catalog token enters the page.
 */
import type { PageContext, PageView } from '../types.ts'

export function storagePageView(url: string, _access: unknown, page: PageContext): PageView {
  const id = page.proxies.storage.register(url, page.resolver(), page.http)
  return { table: page.proxies.storage.tableUrl(page.origin, id) }
}
