/**
 * The e2e files' shared setup: the app's page server and a headless Chromium started before a
 * file's tests and closed after them, plus the screenshot folder (git-ignored).
 */
import { mkdirSync } from 'node:fs'
import { resolve } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import type { Browser } from 'playwright-core'
import { launchBrowser } from '../../src/cli/launch.ts'
import { PROJECT_ROOT, startPageServer, type PageServer } from '../../src/cli/page-server.ts'

/** Where e2e tests save screenshots and downloads. */
export const ARTIFACTS = resolve(PROJECT_ROOT, 'tests', 'artifacts')

/** The running page server and browser (set once beforeAll has run). */
export interface AppHarness { server: PageServer; browser: Browser }

/** Registers beforeAll/afterAll hooks for the calling test file; `hmr` as startPageServer's. */
export function useApp(opts: { hmr?: boolean } = { hmr: false }): AppHarness {
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
