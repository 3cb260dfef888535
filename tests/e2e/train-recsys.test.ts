/**
 * Live recommender curves in the app: the Train panel trains the embeddings + MLP recommender on
 * a few thousand rows of `clicks` (filter user_id < 3000, one epoch of batch 512) and the uPlot
 * curve draws one point per evaluation (train loss, validation AUC / logloss). Not marketing:
 * its string columns hold nulls, which the recommender's hashed ids refuse by design.
 * Screenshot to tests/artifacts/train-recsys.png (git-ignored).
 */
import { resolve } from 'node:path'
import { expect, test } from 'vitest'
import { ARTIFACTS, openApp, until, useApp } from '../support/app-harness.ts'

const WAIT = { timeout: 90_000 }
const app = useApp()
const PARAMS = { epochs: 1, batch_size: 512, embedding_dim: 4, layers: [16], lr: 0.01, eval_every: 2 }

test('the Train panel trains the recommender and the curve shows a point per evaluation', async () => {
  const { context, page, pageErrors } = await openApp(app, { wait: WAIT })
  await page.locator('st-table-list button[data-table="clicks"]').click(WAIT)
  const panel = page.locator('st-train-panel')
  await panel.waitFor(WAIT)
  await panel.locator('select#model').selectOption('recsys')
  await panel.locator('select#label').selectOption('label')
  await panel.locator('input#filter').fill('user_id < 3000')
  await panel.locator('textarea#params').fill(JSON.stringify(PARAMS))
  await panel.locator('button[type=submit]').click()
  await until(
    page,
    () => {
      const p = document.querySelector('st-app')!.shadowRoot!.querySelector('st-train-panel')!
      const alert = p.shadowRoot!.querySelector('st-error-view') as
        | (HTMLElement & { error?: { message: string } })
        | null
      if (alert?.error) throw new Error(`the page shows an error: ${alert.error.message}`)
      return p.shadowRoot!.textContent!.includes('evaluations (')
    },
    'the recommender run to finish',
    WAIT.timeout,
  )
  const curve = page.locator('st-train-curve')
  const points = Number(await curve.getAttribute('data-points'))
  const text = await panel.locator('.result').textContent()
  // The panel's result line counts the evaluations; the curve drew every one of them.
  expect(points).toBeGreaterThanOrEqual(2)
  expect(text).toContain(`${points} evaluations (1 epochs`)
  expect(text).toMatch(/AUC 0\.\d{4}/)
  expect(text).toMatch(/\d+ samples\/s/)
  expect(await curve.locator('canvas').isVisible()).toBe(true)
  expect(await curve.locator('.u-legend').textContent()).toContain('train_loss')
  await page.screenshot({ path: resolve(ARTIFACTS, 'train-recsys.png'), fullPage: true })
  expect(pageErrors).toEqual([])
  await context.close()
})
