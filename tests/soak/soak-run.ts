/**
 * The soak test's page side: one app page (headless Chromium, WebGPU) that trains many times back
 * to back through window.snaptrain.train, with GPU allocations tracked (gpu-tracker.ts) and the JS
 * heap measured after a forced GC through the DevTools protocol.
 */
import type { Browser, CDPSession, Page } from 'playwright-core'
import { launchBrowser } from '../../src/cli/launch.ts'
import { startPageServer, type PageServer } from '../../src/serve/page-server.ts'
import type { TrainConfig } from '../../src/run/config.ts'
import { GPU_TRACKER, type GpuStats } from './gpu-tracker.ts'

/** One training's outcome, compared across runs: model digest and metrics without wall times. */
export interface Outcome {
  hash: string
  metrics: string
  gpu: GpuStats
}

/** The open page. */
export interface SoakPage {
  page: Page
  train(config: TrainConfig): Promise<Outcome>
  heapBytes(): Promise<number>
  close(): Promise<void>
}

/** In the page: train, hash the model (SHA-256 of its bytes), drop wall-clock metrics, read the GPU counts. */
const TRAIN = `async (config) => {
  const r = await window.snaptrain.train(config, () => {})
  const bytes = typeof r.model === 'string' ? new TextEncoder().encode(r.model) : r.model
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))
  const hash = Array.from(digest, b => b.toString(16).padStart(2, '0')).join('')
  const metrics = JSON.stringify(r.metrics.map(m => Object.fromEntries(Object.entries(m).filter(([k]) => !/seconds|elapsed/.test(k)))))
  return { hash, metrics, gpu: window.__gpuStats() }
}`

/** Opens the app page with the GPU tracker installed. */
export async function openSoakPage(): Promise<SoakPage> {
  const server: PageServer = await startPageServer()
  let browser: Browser | undefined
  try {
    browser = await launchBrowser()
    const page = await browser.newPage()
    await page.addInitScript(GPU_TRACKER)
    await page.exposeFunction('__snaptrainProgress', () => {})
    await page.goto(server.url, { timeout: 60_000 })
    await page.waitForFunction('Boolean(window.snaptrain && window.snaptrain.train && window.__gpuStats)', undefined, {
      timeout: 60_000,
    })
    const cdp: CDPSession = await page.context().newCDPSession(page)
    const b = browser
    return {
      page,
      train: config => page.evaluate<Outcome>(`(${TRAIN})(${JSON.stringify(config)})`),
      async heapBytes() {
        await cdp.send('HeapProfiler.collectGarbage')
        return (await cdp.send('Runtime.getHeapUsage')).usedSize
      },
      async close() {
        await b.close()
        await server.close()
      },
    }
  } catch (e) {
    await browser?.close()
    await server.close()
    throw e
  }
}
