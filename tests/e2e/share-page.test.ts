/**
 * A Delta Sharing profile opened in the app page, in both ways the page reaches a sharing server:
 * through the local proxy of the page's server (the sharing server sends no CORS headers, as the
 * reference server does not; the token stays in the proxy) and directly (a server that allows the
 * page's origin; the page's server is made to look like a static build, which has no proxy). Each
 * way: choose the profile file, browse to the shared `marketing` table, preview it, train a few
 * rounds and run a 2-trial sweep; then check who talked to the sharing server with what, and that
 * nothing of the profile was stored. The table is a small marketing written by the sample
 * generator into a temp folder.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { Page } from 'playwright-core'
import { ARTIFACTS, openApp, until, useApp } from '../support/app-harness.ts'
import { startSharingServer, type SharingServer } from '../support/sharing-server.ts'
import type {} from '../../src/api-types.ts' // window.snaptrain typing inside page functions
import { generateSampleTables } from '../../tools/datagen/index.ts'

const WAIT = { timeout: 60_000 }
const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-share-page-'))
const TOKEN = 'page-test-token'
const app = useApp()
let proxied: SharingServer
let direct: SharingServer

beforeAll(async () => {
  // A small marketing (the sample's generator, 5 000 rows): the flow, not the data, is under test.
  await generateSampleTables({ outDir: tmp, tables: ['marketing'], marketingRows: 5000 })
  const tables = [{ share: 'demo', schema: 'public', table: 'marketing', dir: join(tmp, 'marketing') }]
  ;[proxied, direct] = await Promise.all([
    startSharingServer({ tables, tokens: [TOKEN], cors: false }),
    startSharingServer({ tables, tokens: [TOKEN], cors: true }),
  ])
})
afterAll(async () => {
  await Promise.all([proxied?.close(), direct?.close()])
  rmSync(tmp, { recursive: true, force: true })
})

/** The app element's view of a finished sweep (page side). */
type SweepViewEl = HTMLElement & {
  state?: { id: string; status: string; trials: Array<{ metric?: number }> }
  active: boolean
  error?: { message: string; causes: string[] }
}

/** Chooses a profile file with `text` in the share browser. */
async function choose(page: Page, name: string, text: string): Promise<void> {
  await page.locator('st-share-browser input[type=file]').setInputFiles({
    name,
    mimeType: 'application/json',
    buffer: Buffer.from(text),
  })
}

/** The share browser's error text once it shows one. */
async function shownError(page: Page, containing: string): Promise<string> {
  const alert = page.locator('st-share-browser st-error-view [role=alert]', { hasText: containing })
  await alert.waitFor(WAIT)
  return (await alert.textContent()) ?? ''
}

/** Opens the profile, browses to demo.public.marketing and waits for its first rows. */
async function openShared(page: Page, server: SharingServer): Promise<void> {
  await choose(page, 'demo.share', JSON.stringify(server.profile({ token: TOKEN })))
  await page.locator('st-share-browser button[data-share-table="demo.public.marketing"]').click(WAIT)
  await page.locator('st-rows-preview tbody tr, st-table-view st-error-view [role=alert]').first().waitFor(WAIT)
  const alert = page.locator('st-table-view st-error-view [role=alert]')
  if (await alert.count()) throw new Error(`the page shows an error: ${await alert.textContent()}`)
}

/** Trains 3 rounds in the Train panel; resolves when the curve has its 3 points. */
async function train(page: Page): Promise<void> {
  const panel = page.locator('st-train-panel')
  await panel.locator('select#label').selectOption('y')
  await panel.locator('textarea#params').fill('{"max_depth": 3, "num_round": 3}')
  await panel.locator('button[type=submit]').click()
  await until(
    page,
    () => {
      const root = document.querySelector('st-app')!.shadowRoot!
      const error = root.querySelector('st-train-panel')?.shadowRoot?.querySelector('st-error-view') as
        | (Element & { error?: { message: string } })
        | null
      if (error?.error) throw new Error(`the page shows an error: ${error.error.message}`)
      return (root.querySelector('st-train-curve') as HTMLElement | null)?.dataset.points === '3'
    },
    'the training curve to reach 3 rounds',
    WAIT.timeout,
  )
}

/** Runs a 2-trial random sweep from the Sweep tab; returns its id once it finished. */
async function sweep(page: Page): Promise<string> {
  // Home again (the run trained before shows its own view): the open table with its Sweep tab.
  await page.evaluate(() => {
    location.hash = '#/'
  })
  await page.locator('button[data-mode="sweep"]').click()
  const setup = page.locator('st-sweep-setup')
  await setup.locator('select#label').selectOption('y')
  await setup.locator('select#strategy').selectOption('random')
  const space = { num_round: { type: 'fixed', value: 2 }, max_depth: { type: 'int', low: 2, high: 3 } }
  await setup.locator('textarea#space').fill(JSON.stringify(space))
  await setup.locator('input#trials').fill('2')
  await setup.locator('input#parallel').fill('1')
  await setup.locator('.cost').waitFor(WAIT)
  await setup.locator('button[type=submit]').click()
  const state = await until(
    page,
    () => {
      const v = document.querySelector('st-app')!.shadowRoot!.querySelector('st-sweep-view') as SweepViewEl | null
      if (v?.error) throw new Error(`the page shows an error: ${v.error.message} ${v.error.causes.join(' / ')}`)
      return v?.state && v.state.status !== 'running' && !v.active ? v.state : undefined
    },
    'the sweep to finish',
    WAIT.timeout,
  )
  expect(state.status).toBe('finished')
  expect(state.trials.map(t => (t.metric ?? 0) > 0)).toEqual([true, true])
  return state.id
}

/** Nothing of the profile in the page's storage, its URL or the exported sweep. */
async function expectNothingStored(page: Page, sweepId: string): Promise<void> {
  const kept = await page.evaluate(
    async id => [await window.snaptrain.exportSweep(id), JSON.stringify({ ...localStorage }), location.href].join('\n'),
    sweepId,
  )
  expect(kept).toContain('demo')
  expect(kept).not.toContain(TOKEN)
  expect(kept).not.toContain('bearerToken')
}

test('through the local proxy: a server without CORS works, and the token never enters the page', async () => {
  // The revoked profile's 401 is provoked on purpose (its error is asserted below); nothing else may fail.
  const { page, pageErrors } = await openApp(app, {
    wait: WAIT,
    allow: [/\/__snaptrain\/sharing\/[^/]+\/api\/shares$/],
  })
  await choose(page, 'broken.share', '{ "shareCredentialsVersion": 1,')
  expect(await shownError(page, 'is not JSON')).toContain('profile broken.share is not JSON')
  await choose(page, 'revoked.share', JSON.stringify(proxied.profile({ token: 'revoked' })))
  expect(await shownError(page, '401')).toContain('ask the provider for a new profile')
  await openShared(page, proxied)
  expect(await page.locator('st-share-browser .via').getAttribute('data-mode')).toBe('proxy')
  expect(await page.locator('st-table-history tr[data-version]').count()).toBe(1) // current version only
  await train(page)
  const id = await sweep(page)
  await page.screenshot({ path: resolve(ARTIFACTS, 'share-proxy.png'), fullPage: true })
  await expectNothingStored(page, id)

  // Only the proxy called the server: no request with the page's Origin, no browser preflight.
  const log = proxied.log
  expect(log.filter(e => e.origin !== undefined || e.kind === 'preflight')).toEqual([])
  expect(log.filter(e => e.kind === 'file').length).toBeGreaterThan(0)
  // The proxy's own calls: the token on every API call and on nothing else.
  const api = log.filter(e => e.kind === 'api' && e.authorization !== 'Bearer revoked')
  expect(api.every(e => e.authorization === `Bearer ${TOKEN}`)).toBe(true)
  expect(log.filter(e => e.kind !== 'api' && e.authorization !== undefined)).toEqual([])
  expect(log.some(e => e.path.endsWith('/query') && JSON.parse(e.body ?? '{}').limitHint === 20)).toBe(true)
  expect(pageErrors).toEqual([])
  await page.context().close()
})

test('directly, where the page has no proxy: a server that allows the page is reached with its Origin', async () => {
  // The page's fetch answers the proxy route as a static build does (404), so the page uses the
  // profile itself. In the page, not page.route: routing makes Playwright answer CORS preflights.
  const init = () => {
    const real = window.fetch.bind(window)
    window.fetch = (input, opts) =>
      String(input instanceof Request ? input.url : input).includes('/__snaptrain/sharing/profiles')
        ? Promise.resolve(new Response('not found', { status: 404 }))
        : real(input, opts)
  }
  const { page, pageErrors } = await openApp(app, { init, wait: WAIT })
  await openShared(page, direct)
  expect(await page.locator('st-share-browser .via').getAttribute('data-mode')).toBe('direct')
  await train(page)
  const id = await sweep(page)
  await page.screenshot({ path: resolve(ARTIFACTS, 'share-direct.png'), fullPage: true })
  await expectNothingStored(page, id)

  // Every request came from the page (its Origin), the API's after a preflight; the token went
  // with API calls only, never with a file URL.
  const log = direct.log
  const origin = new URL(app.server.url).origin
  expect(log.filter(e => e.origin !== origin)).toEqual([])
  expect(log.filter(e => e.kind === 'preflight').length).toBeGreaterThan(0)
  expect(log.filter(e => e.kind === 'file').length).toBeGreaterThan(0)
  expect(log.filter(e => e.kind === 'file' && e.authorization !== undefined)).toEqual([])
  expect(log.filter(e => e.kind === 'api').every(e => e.authorization === `Bearer ${TOKEN}`)).toBe(true)
  expect(proxied.log.filter(e => e.at >= log[0]!.at)).toEqual([]) // and nothing went the other way
  expect(pageErrors).toEqual([])
  await page.context().close()
})
