/**
 * The page served by `npm start`, driven in headless Chromium: adapter panel, table list, the
 * `clicks` sample table (schema, first rows, version picker), the no-WebGPU message and an
 * error from the reader shown in the page. Screenshots go to tests/artifacts/ (git-ignored).
 * Needs public/tables/clicks (`npm run data`; `npm test` generates it first).
 */
import { resolve } from 'node:path'
import { expect, test } from 'vitest'
import type { Page } from 'playwright-core'
import { ARTIFACTS, openApp, useApp } from '../support/app-harness.ts'
import type {} from '../../src/api-types.ts' // window.snaptrain typing inside page.evaluate

const WAIT = { timeout: 60_000 }
const app = useApp({})

/** A fresh page on the app with uncaught page errors collected; `init` runs before page scripts. */
function openAppPage(init?: () => void): Promise<{ page: Page; pageErrors: string[] }> {
  return openApp(app, { viewport: { width: 1400, height: 1000 }, init, wait: WAIT })
}

/** Waits until the open table shows rows; fails with the page's error text when it shows an error. */
async function shownOrFailed(page: Page): Promise<void> {
  await page.locator('st-rows-preview tbody tr, st-table-view st-error-view [role=alert]').first().waitFor(WAIT)
  const error = page.locator('st-table-view st-error-view [role=alert]')
  if (await error.count()) throw new Error(`the page shows an error: ${await error.textContent()}`)
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: resolve(ARTIFACTS, name), fullPage: true })
}

test('adapter panel reports the adapter navigator.gpu hands out', async () => {
  const { page, pageErrors } = await openAppPage()
  const expected = await page.evaluate(async () => {
    const a = await navigator.gpu.requestAdapter()
    return { vendor: a?.info.vendor ?? '', architecture: a?.info.architecture ?? '' }
  })
  // The adapter is one line in the header; its details expand.
  const summary = page.locator('st-app header > details.adapter > summary')
  await summary.waitFor(WAIT)
  await summary.click()
  const vendor = page.locator('st-adapter-panel .vendor')
  await vendor.waitFor(WAIT)
  expect(await summary.textContent()).toContain(expected.vendor)
  expect(expected.vendor.length).toBeGreaterThan(0)
  expect(await vendor.textContent()).toBe(expected.vendor)
  expect(await page.locator('st-adapter-panel dl.identity').textContent()).toContain(expected.architecture)
  expect(await page.locator('st-adapter-panel table.key tr[data-limit]').count()).toBeGreaterThanOrEqual(4)
  expect(pageErrors).toEqual([])
  await page.context().close()
})

test('clicks: schema matches the snapshot, first rows match readRows, version picker reopens', async () => {
  const { page, pageErrors } = await openAppPage()
  await page.locator('st-table-list button[data-table="clicks"]').click(WAIT)
  await shownOrFailed(page)

  const shown = await page
    .locator('st-schema-view tbody tr')
    .evaluateAll(rs => rs.map(r => (r as HTMLElement).dataset.field))
  const truth = await page.evaluate(async () => {
    const s = await window.snaptrain.openSnapshot('tables/clicks/')
    const rows = await window.snaptrain.readRows(s, { limit: 20 })
    const commits = await window.snaptrain.listCommits('tables/clicks/')
    return {
      fields: s.schema.fields.map(f => f.name),
      version: s.version,
      rows: rows.length,
      firstUser: String(rows[0]!.user_id),
      versions: commits.map(c => c.version),
    }
  })
  expect(shown).toEqual(expect.arrayContaining(['user_id', 'item_id', 'label']))
  expect(shown).toEqual(truth.fields)
  expect(await page.locator('st-rows-preview tbody tr').count()).toBe(truth.rows)
  const userCol = truth.fields.indexOf('user_id') + 2 // nth-child is 1-based, after the '#' column
  expect(await page.locator(`st-rows-preview tbody tr:first-child td:nth-child(${userCol})`).textContent()).toBe(
    truth.firstUser,
  )
  expect(await page.locator('st-snapshot-summary .version').textContent()).toBe(String(truth.version))
  expect(await page.locator('st-table-list button[data-table="clicks"] .version').textContent()).toBe(
    `v${truth.version}`,
  )
  await shot(page, 'app-clicks.png')

  expect(truth.versions.length).toBeGreaterThan(1)
  const oldest = Math.min(...truth.versions)
  await page.locator('st-table-history select').selectOption(String(oldest))
  await page.waitForFunction(
    v => {
      const q = (root: ParentNode | null | undefined, sel: string) => root?.querySelector(sel)
      const view = q(document.querySelector('st-app')?.shadowRoot, 'st-table-view')?.shadowRoot
      return (
        q(q(view, 'st-snapshot-summary')?.shadowRoot, '.version')?.textContent === String(v) &&
        !q(view, '[role=status]')
      )
    },
    oldest,
    WAIT,
  )
  await shownOrFailed(page)
  expect(await page.locator('st-table-history tr.selected').getAttribute('data-version')).toBe(String(oldest))
  await shot(page, 'app-clicks-oldest.png')
  expect(pageErrors).toEqual([])
  await page.context().close()
})

test('without WebGPU the page says what the browser needs, and tables still list', async () => {
  const { page } = await openAppPage(() => {
    Object.defineProperty(navigator, 'gpu', { value: undefined })
  })
  const panel = page.locator('st-adapter-panel .unavailable')
  await panel.waitFor(WAIT)
  const text = await panel.textContent()
  expect(text).toContain('WebGPU is not available')
  expect(text).toContain('113+')
  expect(text).toContain('--enable-unsafe-webgpu')
  // The cause, from gpu/device.ts, in the panel's nested error view.
  expect(await page.locator('st-adapter-panel st-error-view [role=alert]').textContent()).toContain(
    'navigator.gpu is undefined',
  )
  await page.locator('st-table-list button[data-table="clicks"]').waitFor(WAIT)
  await shot(page, 'app-no-webgpu.png')
  await page.context().close()
})

test('a table URL that 404s: the API rejects naming it, the page shows the error', async () => {
  const { page } = await openAppPage()
  const missing = new URL('tables/no-such-table/', app.server.url).href
  const err = await page.evaluate(
    url =>
      window.snaptrain.openSnapshot(url).then(
        () => undefined,
        (e: { name: string; code?: string; message: string }) => ({ name: e.name, code: e.code, message: e.message }),
      ),
    missing,
  )
  expect(err?.name).toBe('TableError')
  expect(err?.message).toContain(missing)

  await page.locator('st-table-list button').first().waitFor(WAIT)
  // The list only offers tables that exist, so ask for the missing one the way st-table-list would.
  await page.evaluate(url => {
    const list = document.querySelector('st-app')!.shadowRoot!.querySelector('st-table-list')!
    list.dispatchEvent(
      new CustomEvent('table-select', { detail: { name: 'no-such-table', url }, bubbles: true, composed: true }),
    )
  }, missing)
  const box = page.locator('st-table-view st-error-view [role=alert]')
  await box.waitFor(WAIT)
  const text = await box.textContent()
  expect(text).toContain('no-such-table')
  expect(text).toContain(`code: ${err!.code}`)
  expect(text).toContain(missing)
  expect(await page.locator('st-table-view [role=status]').count()).toBe(0) // no spinner left behind
  await shot(page, 'app-error.png')
  await page.context().close()
})
