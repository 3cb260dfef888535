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
import { guardPage } from './console-guard.ts'

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
  /** URLs whose failed requests or answers ≥ 400 the test expects (console-guard.ts). */
  allow?: RegExp[]
  /** Console warnings count as problems too (console-guard.ts GuardOptions.warnings). */
  warnings?: boolean
}

/**
 * A fresh context and page on the app, window.snaptrain installed; `pageErrors` collects what a
 * working flow must not show (console-guard.ts: console errors, uncaught errors and rejections,
 * failed requests, answers ≥ 400).
 */
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
  const pageErrors = guardPage(page, { allow: opts.allow, warnings: opts.warnings })
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

/**
 * The bounding box of the first element matching `selector` (Playwright's CSS, through shadow
 * roots) once it is in the DOM, with the viewport's size: a view brought into sight has its top
 * left corner inside the viewport and its width within it.
 */
export async function boxInViewport(
  page: Page,
  selector: string,
  timeoutMs: number,
): Promise<{ x: number; y: number; width: number; height: number; inside: boolean }> {
  const el = page.locator(selector).first()
  await el.waitFor({ state: 'attached', timeout: timeoutMs })
  const box = await el.boundingBox()
  const vp = page.viewportSize()
  if (!box || !vp) throw new Error(`${selector}: no bounding box (not rendered) or no viewport`)
  const inside = box.x >= 0 && box.y >= 0 && box.y < vp.height && box.x + box.width <= vp.width
  return { ...box, inside }
}
