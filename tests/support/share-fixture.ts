/**
 * What the CLI's share tests have in common: profile files written to a temp folder, the
 * questions they ask of a sharing server's log (sharing-server.ts: which requests carried a
 * token, which queries renewed URLs after a refusal), and a slow network that holds a run's
 * first file request past its URL's lifetime, so URLs expire mid-run however fast the machine is:
 * Node's fetch for runs in Node (scan), the page's requests to the local sharing proxy for runs in
 * the page (train, sweep).
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import type { Browser } from 'playwright-core'
import { launchBrowser } from '../../src/cli/launch.ts'
import { useAppPageHost } from '../../src/cli/page-run.ts'
import { startPageServer, type PageServer } from '../../src/serve/page-server.ts'
import { REPO } from './cli.ts'
import type { SharingRequest } from './sharing-server.ts'

/** Absolute folder of a vendored conformance table (`golden/…`, `dat/…/delta`). */
export function conformanceTable(path: string): string {
  return join(REPO, 'tests', 'conformance', path)
}

/** Writes a profile file (an object as JSON, a string as it is) into `dir`; returns its path. */
export function writeProfile(dir: string, name: string, content: object | string): string {
  const path = join(dir, name)
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content))
  return path
}

/** `share.schema.table`, as the server's file URLs and the CLI's addresses name a table. */
export type TableKey = `${string}.${string}.${string}`

/** The file requests of one table (all tables without `key`). */
export function fileRequests(log: SharingRequest[], key?: TableKey): SharingRequest[] {
  return log.filter(e => e.kind === 'file' && (!key || e.path.startsWith(`/files/${key}/`)))
}

/** The queries (POST …/query) of one table, in arrival order. */
export function queries(log: SharingRequest[], key: TableKey): SharingRequest[] {
  const [share, schema, table] = key.split('.')
  const path = `/delta-sharing/shares/${share}/schemas/${schema}/tables/${table}/query`
  return log.filter(e => e.kind === 'api' && e.method === 'POST' && e.path === path)
}

/** The query bodies of one table, parsed. */
export function queryBodies(log: SharingRequest[], key: TableKey): Record<string, unknown>[] {
  return queries(log, key).map(e => JSON.parse(e.body ?? '{}') as Record<string, unknown>)
}

/** Requests that are not to the API or the token endpoint but carried an Authorization header. */
export function authorizedFileRequests(log: SharingRequest[]): SharingRequest[] {
  return log.filter(e => e.kind === 'file' && e.authorization !== undefined)
}

/**
 * Evidence that a table's URLs expired mid-run and were renewed: for each file request refused
 * as expired (403), the successful queries that came after it and the successful reads of the
 * same file after those. Empty when no URL expired.
 */
export function renewalsAfterExpiry(
  log: SharingRequest[],
  key: TableKey,
): Array<{ refused: SharingRequest; renewal: SharingRequest; reread: SharingRequest }> {
  const files = fileRequests(log, key)
  const ok = queries(log, key).filter(q => q.status === 200)
  const out: Array<{ refused: SharingRequest; renewal: SharingRequest; reread: SharingRequest }> = []
  for (const refused of files.filter(f => f.status === 403)) {
    const renewal = ok.find(q => log.indexOf(q) > log.indexOf(refused))
    const reread =
      renewal && files.find(f => f.path === refused.path && f.status < 300 && log.indexOf(f) > log.indexOf(renewal))
    if (renewal && reread) out.push({ refused, renewal, reread })
  }
  return out
}

/**
 * Node's global fetch, holding the first GET of each table's files on `origin` for `holdMs`
 * before it is sent (a slow link): with `holdMs` beyond the URL lifetime the server refuses that
 * URL as expired, and the reader must renew it. Later requests pass at once. `restore()` puts
 * the original fetch back; `held` lists the URLs held.
 */
export function holdFirstFileRequests(origin: string, holdMs: number): { held: string[]; restore(): void } {
  const original = globalThis.fetch
  const held: string[] = []
  const seen = new Set<string>()
  const prefix = `${origin}/files/`
  globalThis.fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    const key = url.startsWith(prefix) ? url.slice(prefix.length).split('/')[0] : undefined
    if (key !== undefined && !seen.has(key)) {
      seen.add(key)
      held.push(url)
      await new Promise(done => setTimeout(done, holdMs))
    }
    return original(input, init)
  }
  return {
    held,
    restore: () => {
      globalThis.fetch = original
    },
  }
}

/** The local sharing proxy's file URLs (src/serve/sharing-proxy.ts), as the page requests them. */
const PROXY_FILES = '**/__snaptrain/sharing/*/file/**'

/**
 * For a test file whose in-process runs (runMain) train or sweep on a share: as cli.ts
 * shareAppPage, one page server and one headless Chromium for the file's runs, each run on a
 * fresh page; on each page the first request of a file through the sharing proxy is held for
 * `holdMs` before it goes on (the page's workers' requests included). `held` lists the URLs held.
 * Registers beforeAll/afterAll.
 */
export function shareAppPageHoldingFirstFile(holdMs: number): { held: string[] } {
  const held: string[] = []
  let server: PageServer | undefined
  let browser: Browser | undefined
  beforeAll(async () => {
    ;[server, browser] = await Promise.all([startPageServer(), launchBrowser()])
    const newPage = async () => {
      const page = await browser!.newPage()
      let first = true
      await page.route(PROXY_FILES, async route => {
        if (first) {
          first = false
          held.push(route.request().url())
          await new Promise(done => setTimeout(done, holdMs))
        }
        // The run may have ended (and closed its page) meanwhile: nothing left to continue.
        await route.continue().catch(() => undefined)
      })
      return page
    }
    useAppPageHost({ url: server.url, newPage })
  }, 120_000)
  afterAll(async () => {
    useAppPageHost(undefined)
    await browser?.close()
    await server?.close()
  })
  return { held }
}
