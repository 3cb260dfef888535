/**
 * What a Playwright page must not do in a flow that works: log a console error, throw an uncaught
 * error or rejection ('pageerror'), have a request fail, or get an answer of 400 or more. Listens to
 * the page's own events (no extra load, no polling); a test expecting a failure names its URL in
 * `allow`. Chromium logs every answer ≥ 400 a second time as a console error ("Failed to load
 * resource"), which is allowed along with its answer. With `warnings`, console warnings count too (a
 * production build logs none: no Lit dev-mode notice either).
 */
import type { Page } from 'playwright-core'

/** Options of guardPage. */
export interface GuardOptions {
  /** URLs (of requests, or of the console message's source) whose failures a test expects. */
  allow?: RegExp[]
  /** Console warnings are problems too ("console.warning: …"). */
  warnings?: boolean
}

/**
 * Starts collecting `page`'s problems into the returned array, one line each ("console.error: …",
 * with `warnings` "console.warning: …", "pageerror: …", "requestfailed: GET <url> (<why>)", "404 GET <url>"); a clean flow leaves it empty.
 */
export function guardPage(page: Page, opts: GuardOptions = {}): string[] {
  const problems: string[] = []
  const allowed = (url: string) => (opts.allow ?? []).some(re => re.test(url))
  page.on('console', m => {
    if (m.type() !== 'error' && !(opts.warnings && m.type() === 'warning')) return
    const source = m.location().url
    if (source && allowed(source)) return
    problems.push(`console.${m.type()}: ${m.text()}${source ? ` (${source})` : ''}`)
  })
  page.on('pageerror', e => problems.push(`pageerror: ${e.message}`))
  page.on('requestfailed', r => {
    if (!allowed(r.url())) problems.push(`requestfailed: ${r.method()} ${r.url()} (${r.failure()?.errorText ?? '?'})`)
  })
  page.on('response', r => {
    if (r.status() >= 400 && !allowed(r.url())) problems.push(`${r.status()} ${r.request().method()} ${r.url()}`)
  })
  return problems
}
