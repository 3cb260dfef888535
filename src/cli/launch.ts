/** Launches headless Chromium with the WebGPU flags through playwright-core. */
import { createRequire } from 'node:module'
import type { Browser } from 'playwright-core'
import { requireChrome, WEBGPU_ARGS } from './browser.ts'

/** A headless browser with WebGPU enabled (software adapter where no GPU is present). */
export async function launchBrowser(opts: { headless?: boolean; handleSIGINT?: boolean } = {}): Promise<Browser> {
  // require, not import(): playwright-core is CommonJS (~7 MB of bundles), and importing it from
  // ESM first scans it for named exports (cjs-module-lexer): ~0.35 CPU-s of every CLI run.
  const { chromium } = createRequire(import.meta.url)('playwright-core') as typeof import('playwright-core')
  return chromium.launch({
    executablePath: requireChrome(),
    args: [...WEBGPU_ARGS],
    headless: opts.headless ?? true,
    // false: the caller handles Ctrl-C (train stops its run); the browser still closes when the process exits.
    handleSIGINT: opts.handleSIGINT ?? true,
  })
}
