/**
 * The e2e files' shared setup: the app's page server and a headless Chromium started before a
 * file's tests and closed after them, plus the screenshot folder (git-ignored).
 */
import { mkdirSync } from 'node:fs'
import { resolve } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import type {} from '../../src/api-types.ts' // window.snaptrain typing inside page functions
import { launchBrowser } from '../../src/cli/launch.ts'
import { PROJECT_ROOT, startPageServer, type PageServer, type PageServerOptions } from '../../src/serve/page-server.ts'

/** Where e2e tests save screenshots and downloads. */
export const ARTIFACTS = resolve(PROJECT_ROOT, 'tests', 'artifacts')

/** The running page server and browser (set once beforeAll has run). */
export interface AppHarness {
  server: PageServer
  browser: Browser
}

/** Registers beforeAll/afterAll hooks for the calling test file; `opts` as startPageServer's. */
export function useApp(opts: PageServerOptions = {}): AppHarness {
  const h = {} as AppHarness
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true })
    h.server = await startPageServer(opts)
    h.browser = await launchBrowser()
  })
  afterAll(async () => {
    await h.browser?.close()
    await h.server?.close()
  })
  return h
}

/** Options of openApp. */
export interface OpenAppOptions {
  viewport?: { width: number; height: number }
  /** Runs in the page before its scripts (context.addInitScript). */
  init?: () => void
  acceptDownloads?: boolean
  /** Bound on navigation and on window.snaptrain appearing (the caller's WAIT). */
  wait: { timeout: number }
}

/** A fresh context and page on the app, uncaught page errors collected, window.snaptrain installed. */
export async function openApp(
  app: AppHarness,
  opts: OpenAppOptions,
): Promise<{ context: BrowserContext; page: Page; pageErrors: string[] }> {
  const context = await app.browser.newContext({
    viewport: opts.viewport ?? { width: 1400, height: 1200 },
    acceptDownloads: opts.acceptDownloads,
  })
  if (opts.init) await context.addInitScript(opts.init)
  const page = await context.newPage()
  const pageErrors: string[] = []
  page.on('pageerror', e => pageErrors.push(e.message))
  await page.goto(app.server.url, opts.wait)
  // A function predicate, not a string: the app's CSP (no 'unsafe-eval') refuses string predicates.
  await page.waitForFunction(() => window.snaptrain !== undefined, null, opts.wait)
  return { context, page, pageErrors }
}

/**
 * Polls `probe` in the page every 500 ms until it returns something truthy (an exception thrown
 * by `probe` fails at once). page.evaluate runs through the DevTools protocol, so the app's CSP
 * does not refuse it as it refuses string waitForFunction predicates.
 */
export async function until<T>(
  page: Page,
  probe: () => T | undefined | false,
  what: string,
  timeoutMs: number,
): Promise<T> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const v = await page.evaluate(probe)
    if (v) return v as T
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`)
    await new Promise(r => setTimeout(r, 500))
  }
}
