/**
 * Training from the page: the app's Train panel trains marketing for a few rounds and the live
 * uPlot curve shows one point per round, then the model's importance and SHAP summary; a label the
 * objective cannot fit is shown as an error. Screenshot to tests/artifacts/train-panel.png
 * (git-ignored). window.snaptrain.train on marketing (model, manifest, one metrics row and one
 * tree per round): tests/e2e/train-ranks.test.ts (R = 1 in the page), on this file's kind of page.
 */
import { resolve } from 'node:path'
import { expect, test } from 'vitest'
import { ARTIFACTS, openApp, useApp } from '../support/app-harness.ts'

const WAIT = { timeout: 90_000 }
const app = useApp()

test('the Train panel trains marketing and the curve shows a point per round', async () => {
  const { page, pageErrors } = await openApp(app, { wait: WAIT })
  await page.locator('st-table-list button', { hasText: 'marketing' }).first().click()
  const panel = page.locator('st-train-panel')
  await panel.waitFor(WAIT)
  await panel.locator('select#label').selectOption('y')
  await panel.locator('textarea#params').fill('{"max_depth": 3, "eta": 0.3, "num_round": 4}')
  await panel.locator('button[type=submit]').click()
  // A function predicate, not a string: the app's CSP (no 'unsafe-eval') refuses string predicates.
  await page.waitForFunction(
    () => {
      const app = document.querySelector('st-app')
      const panel = app?.shadowRoot?.querySelector('st-train-panel')
      const alert = panel?.shadowRoot?.querySelector('st-error-view') as
        | (Element & { error?: Error })
        | null
        | undefined
      if (alert?.error) throw new Error('the page shows an error: ' + alert.error.message)
      const curve = app?.shadowRoot?.querySelector('st-train-curve') as HTMLElement | null | undefined
      return curve?.dataset.points === '4' && !!panel?.shadowRoot?.textContent?.includes('AUC')
    },
    null,
    WAIT,
  )
  expect(await page.locator('st-train-curve canvas').first().isVisible()).toBe(true)
  const text = await page.evaluate<string>(
    `document.querySelector('st-app').shadowRoot.querySelector('st-train-panel').shadowRoot.textContent`,
  )
  expect(text).toMatch(/4 rounds in/)
  // After the run: importance bars and the SHAP beeswarm of (up to 2,000) validation rows.
  await page.locator('st-feature-importance .row').first().waitFor(WAIT)
  await page.locator('st-shap-summary[data-points]').waitFor(WAIT)
  expect(await page.locator('st-feature-importance button[aria-pressed=true]').textContent()).toBe('gain')
  await page.locator('st-train-panel').scrollIntoViewIfNeeded()
  await page.screenshot({ path: resolve(ARTIFACTS, 'train-panel.png'), fullPage: true })
  expect(pageErrors).toEqual([])
})

test('a label the objective cannot fit is shown as an error in the page', async () => {
  const { page } = await openApp(app, { wait: WAIT })
  await page.locator('st-table-list button', { hasText: 'marketing' }).first().click()
  const panel = page.locator('st-train-panel')
  await panel.waitFor(WAIT)
  await panel.locator('select#label').selectOption('age')
  await panel.locator('button[type=submit]').click()
  await page.locator('st-train-panel st-error-view [role=alert]').waitFor(WAIT)
  const text = await page.evaluate<string>(`document.querySelector('st-app').shadowRoot.querySelector('st-train-panel')
    .shadowRoot.querySelector('st-error-view').shadowRoot.textContent`)
  expect(text).toMatch(/label column age: binary:logistic needs labels 0 or 1/)
})
