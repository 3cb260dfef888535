/**
 * Shared plumbing of the CLI commands that run their work in the page (train, predict): serve a
 * local table folder on loopback with CORS (the page is cross-origin isolated and lives on the
 * page server's port), open the app page in headless Chromium, run one `window.snaptrain` call,
 * and close everything however it ends, under an overall timeout.
 */
import type { Page } from 'playwright-core'
import type { CliIo } from './io.ts'
import { launchBrowser } from './launch.ts'
import { startPageServer } from '../serve/page-server.ts'
import type { ServedDirectory } from '../serve/server.ts'
import { openTableLocation } from './table-url.ts'
import type { GovernedHttp } from './governed.ts'
import { networkOptions } from './data-flags.ts'
import type { TableAccess } from '../storage/types.ts'
import { withTimeout } from '../util/deadline.ts'
import type { UnitCacheSettings } from '../data/unit-cache.ts'

/** A table the page can fetch. */
export interface PageTable {
  /** Table root URL, ending in '/'. */
  url: string
  /** Absolute local folder, when one was served; how the user named a governed table. */
  path?: string
  /** A governed table's access (governed.ts). */
  access?: TableAccess
  /** Loopback URLs in a message → local paths. */
  localize(message: string): string
  close(): Promise<void>
}

/** Loopback table servers of this process; the app page's origin is allowed on each once known. */
const pageServed = new Set<ServedDirectory>()

/**
 * The training table and the optional validation table of a command's flags, served for the
 * page; each is pushed onto `into` as soon as it is open, so the caller closes it even when the
 * second one fails.
 */
export async function pageTables(
  f: { table: string; 'valid-table'?: string; 'allow-origin'?: string[]; 'allow-insecure-http'?: boolean },
  into: PageTable[],
): Promise<{ table: PageTable; valid?: PageTable }> {
  const http = networkOptions(f)
  const table = await pageTable(f.table, '--table', process.cwd(), http)
  into.push(table)
  const valid = f['valid-table'] ? await pageTable(f['valid-table'], '--valid-table', process.cwd(), http) : undefined
  if (valid) into.push(valid)
  return { table, valid }
}

/**
 * `--table` for the page, through the table sources (table-url.ts): an http(s) URL as is; a
 * governed table opened in this process (the page reaches it through the proxies, governed.ts);
 * a folder mounted under its own name (siblings unreachable), CORS open only to the app page's
 * origin (added when the page server starts).
 */
export async function pageTable(
  input: string,
  flag = '--table',
  cwd = process.cwd(),
  http: GovernedHttp = {},
): Promise<PageTable> {
  return openTableLocation(input, cwd, { flag, http, cors: [], served: pageServed })
}

/** Things to close when the run ends (newest first). */
export type Closers = Array<() => Promise<void>>

/**
 * Opens the app page and runs `body(page)` within `seconds`; `progress` lines from the page
 * (window.__snaptrainProgress) go to `progress` (default stderr). Server and browser are always closed.
 */
export async function withAppPage<T>(
  io: CliIo,
  seconds: number,
  closers: Closers,
  body: (page: Page) => Promise<T>,
  progress: (line: string) => void = line => io.err(line),
  onInterrupt?: OnInterrupt,
): Promise<T> {
  try {
    return await withTimeout(
      openAndRun(io, closers, body, progress, onInterrupt),
      seconds * 1000,
      `timed out after ${seconds} s (raise --timeout)`,
    )
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined)
  }
}

/** Where a run's app page comes from: the page server's URL and fresh pages of a WebGPU browser. */
export interface AppPageHost {
  /** The app page server's URL, ending in '/'. */
  url: string
  /** A new page in a context of its own; the run closes it when it ends. */
  newPage(): Promise<Page>
}

let sharedHost: AppPageHost | undefined

/**
 * Runs in this process open their page on `host` (one page server and browser kept for many
 * runs, as the in-process tests do) instead of starting a server and a browser each; undefined
 * goes back to that default.
 */
export function useAppPageHost(host: AppPageHost | undefined): void {
  sharedHost = host
}

/**
 * Ctrl-C while the page works: called on the first one with the page (train asks it to stop after
 * the current round and keeps what was trained); a second Ctrl-C ends the process at once (130).
 * Without it Playwright's own handler closes the browser and the command fails.
 */
export type OnInterrupt = (page: Page) => void

/** A page server and a browser of this run's own, closed with it; `handleSIGINT` as launchBrowser's. */
async function ownHost(closers: Closers, handleSIGINT = true): Promise<AppPageHost> {
  // No sample tables: the run's table comes from its own table server (or a proxy), so this
  // server holds the app and nothing a page that got past its host check could read.
  const server = await startPageServer({ tables: [] })
  closers.push(() => server.close())
  const browser = await launchBrowser({ handleSIGINT })
  closers.push(() => browser.close())
  return { url: server.url, newPage: () => browser.newPage() }
}

async function openAndRun<T>(
  io: CliIo,
  closers: Closers,
  body: (page: Page) => Promise<T>,
  progress: (line: string) => void,
  onInterrupt: OnInterrupt | undefined,
): Promise<T> {
  const host = sharedHost ?? (await ownHost(closers, onInterrupt === undefined))
  for (const table of pageServed) table.allowOrigin(new URL(host.url).origin)
  const page = await host.newPage()
  closers.push(() => page.close())
  page.on('pageerror', e => io.err(`page error: ${e.message}`))
  await page.exposeFunction('__snaptrainProgress', progress)
  await page.goto(host.url, { timeout: 60_000 })
  await pollPage(page, 'Boolean(window.snaptrain && window.snaptrain.train)', 60_000)
  if (!onInterrupt) return body(page)
  let interrupts = 0
  const interrupted = () => {
    if (++interrupts > 1) process.exit(130)
    onInterrupt(page)
  }
  process.on('SIGINT', interrupted)
  try {
    return await body(page)
  } finally {
    process.off('SIGINT', interrupted)
  }
}

/**
 * Sets the page's epoch cache (`--no-cache`, `--cache-mb`: data-flags.ts cacheSettings) before its
 * run: window.snaptrain.configureUnitCache. The command's browser context is off the record, so its
 * OPFS lives in memory and ends with the command: the page spills nothing (a spill there would hold
 * every unit twice in memory); units past the memory budget are read again.
 */
export async function configurePageCache(page: Page, settings: Partial<UnitCacheSettings>): Promise<void> {
  const inPage: Partial<UnitCacheSettings> = { ...settings, spillBytes: 0 }
  await page.evaluate(`window.snaptrain.configureUnitCache(${JSON.stringify(inPage)})`)
}

/** The message of an error thrown in the page (playwright prefixes its own context). */
export function pageErrorMessage(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e)
  return msg.replace(/^page\.evaluate: (Error|RangeError|TableError|FilterError|TypeError): /, '').split('\n')[0]
}

/**
 * Waits until `expression` is truthy in the page, polling every 200 ms. Not page.waitForFunction:
 * it compiles its predicate with eval inside the page, which the app's CSP (script-src 'self')
 * refuses; page.evaluate goes through the DevTools protocol, which the CSP does not govern.
 */
export async function pollPage(page: Page, expression: string, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!(await page.evaluate<boolean>(expression))) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${expression} in the page`)
    await new Promise(resolve => setTimeout(resolve, 200))
  }
}
