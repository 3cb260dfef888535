/**
 * The sweep flow in headless Chromium: open the app, choose `marketing`, set up a small
 * Hyperband sweep in the Sweep tab (η 3, resource 3 → 9 rounds, a small space, a third of the
 * rows), start it, wait for it to finish; then every trial row has a metric, the learning-curve
 * and parallel-coordinates charts hold data, the best card shows params, each download saves a
 * file; starting it opens its view (#/sweeps/<id>) in sight of a 1400×900 window, and after a reload
 * that URL opens it again with its trials and home lists it. Screenshots and the
 * downloaded files go to tests/artifacts/ (git-ignored).
 */
import { readFileSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import { unzipSync } from 'fflate'
import { expect, test } from 'vitest'
import type { Page } from 'playwright-core'
import { ARTIFACTS, boxInViewport, openApp, until, useApp } from '../support/app-harness.ts'
import { decodeModel } from '../../src/models/gbdt/model-file.ts'
import { fromXGBoostJson, toXGBoostJsonString } from '../../src/models/gbdt/xgboost-json.ts'

const WAIT = { timeout: 60_000 }
const app = useApp()
/** The whole sweep: 5 configurations, 36 boosting rounds at most on a third of marketing. */
const SWEEP_WAIT = { timeout: 150_000 }
const SPACE = {
  eta: { type: 'loguniform', low: 0.1, high: 0.5 },
  max_depth: { type: 'int', low: 2, high: 4 },
  min_child_weight: { type: 'loguniform', low: 0.5, high: 10 },
}

/** The app's sweep view element (page side). */
type ViewEl = HTMLElement & {
  state?: {
    id: string
    status: string
    trials: Array<{ id: number; metric?: number; curve: Array<{ resource: number }> }>
    best?: { trial: number }
  }
  active: boolean
  error?: { message: string; causes: string[] }
}

/** Fails with the page's own error text when the sweep view shows one. */
async function failOnPageError(page: Page): Promise<void> {
  const alert = page.locator('st-sweep-view st-error-view [role=alert]')
  if (await alert.count()) throw new Error(`the page shows an error: ${await alert.first().textContent()}`)
}

/** Sets a form control in the sweep setup and fires the event the component listens to. */
async function fill(page: Page, sel: string, value: string): Promise<void> {
  await page.locator(`st-sweep-setup ${sel}`).fill(value)
}

test('a small Hyperband sweep on marketing: live view, best card, downloads, still there after reload', async () => {
  const { context, page, pageErrors } = await openApp(app, {
    viewport: { width: 1400, height: 900 },
    acceptDownloads: true,
    wait: WAIT,
  })
  await until(page, () => typeof window.snaptrain?.sweep === 'function', 'window.snaptrain.sweep', WAIT.timeout)

  await page.locator('st-table-list button[data-table="marketing"]').click(WAIT)
  await page.locator('st-rows-preview tbody tr').first().waitFor(WAIT)
  await page.locator('button[data-mode="sweep"]').click()
  const setup = page.locator('st-sweep-setup')
  await setup.locator('select#label').selectOption('y')
  await setup.locator('select#strategy').selectOption('hyperband')
  await fill(page, 'textarea#space', JSON.stringify(SPACE, null, 2))
  await fill(page, 'input#filter', 'day <= 10')
  await fill(page, 'input#eta', '3')
  await fill(page, 'input#minResource', '3')
  await fill(page, 'input#maxResource', '9')
  await fill(page, 'input#parallel', '1')
  await fill(page, 'input#seed', '7')
  const cost = setup.locator('.cost')
  await cost.waitFor(WAIT) // no inline errors: the engine accepted the plan
  expect(await cost.textContent()).toMatch(/boosting rounds in total vs \d+ at full budget/)
  // The form, not the full page: a full-page screenshot resizes the viewport, and Chromium puts the
  // scroll position back a moment later — after the click below has scrolled the button into sight
  // and pressed, so the release lands 408 px lower and Start sweep never gets its click.
  await setup.screenshot({ path: resolve(ARTIFACTS, 'sweep-setup.png') })
  await setup.locator('button[type=submit]').click()

  // Starting it opens its view, #/sweeps/<id>, in sight.
  const root = page.locator('st-app section[data-view=sweep]')
  await root.waitFor({ state: 'attached', ...WAIT })
  const id = await root.getAttribute('data-sweep')
  expect(new URL(page.url()).hash).toBe(`#/sweeps/${id}`)
  const box = await boxInViewport(page, 'st-app section[data-view=sweep]', WAIT.timeout)
  expect(box.inside, `sweep view at ${JSON.stringify(box)} in 1400×900`).toBe(true)
  const view = page.locator('st-sweep-view')
  await view.waitFor(WAIT)
  const state = await until(
    page,
    () => {
      const v = document.querySelector('st-app')!.shadowRoot!.querySelector('st-sweep-view') as ViewEl | null
      if (v?.error) throw new Error(`the page shows an error: ${v.error.message} ${v.error.causes.join(' / ')}`)
      return v?.state && v.state.status !== 'running' && !v.active ? v.state : undefined
    },
    'the sweep to finish',
    SWEEP_WAIT.timeout,
  )
  await failOnPageError(page)
  expect(state.status).toBe('finished')
  expect(state.trials.length).toBeGreaterThanOrEqual(5)

  // Every trial is a row, and every row has a metric.
  const rows = view.locator('st-trial-table tbody tr')
  expect(await rows.count()).toBe(state.trials.length)
  const metrics = await view.locator('st-trial-table tbody td[data-col="metric"]').allTextContents()
  expect(metrics).toHaveLength(state.trials.length)
  for (const m of metrics) expect(Number(m)).toBeGreaterThan(0)

  const curves = view.locator('st-sweep-curves')
  expect(Number(await curves.getAttribute('data-series'))).toBe(state.trials.filter(t => t.curve.length > 0).length)
  expect(Number(await curves.getAttribute('data-points'))).toBeGreaterThanOrEqual(state.trials.length)
  // Hyperband's lower bracket (3 configurations at 3 rounds) promotes one to 9 rounds: the others are pruned, drawn grey dashed.
  const pruned = Number(await curves.getAttribute('data-stopped'))
  expect(pruned).toBeGreaterThanOrEqual(1)
  expect(await view.locator('st-trial-table tbody tr[data-status=pruned]').count()).toBe(pruned)
  expect(await view.locator('.counts').textContent()).toContain(`${pruned} pruned`)
  expect(await curves.locator('canvas').isVisible()).toBe(true)
  const pc = view.locator('st-parallel-coords')
  expect(Number(await pc.getAttribute('data-series'))).toBe(state.trials.length)
  expect(Number(await pc.getAttribute('data-axes'))).toBeGreaterThanOrEqual(2)
  expect(await pc.locator('canvas').isVisible()).toBe(true)

  const params = JSON.parse((await view.locator('st-sweep-result pre.params').textContent())!)
  expect(Object.keys(params)).toEqual(expect.arrayContaining(['eta', 'max_depth', 'num_round']))
  // The rounds the best trial trained, so the params re-train its model.
  const bestTrial = state.trials.find(t => t.id === state.best!.trial)!
  expect(params.num_round).toBe(bestTrial.curve.at(-1)!.resource)
  await page.screenshot({ path: resolve(ARTIFACTS, 'sweep-finished.png'), fullPage: true })

  const saved = new Map<string, string>()
  for (const kind of ['params', 'model', 'model-ubj', 'manifest', 'csv', 'continue', 'sweep', 'optuna']) {
    const [download] = await Promise.all([
      page.waitForEvent('download', WAIT),
      view.locator(`st-sweep-result button[data-download="${kind}"]`).click(),
    ])
    await failOnPageError(page)
    const name = download.suggestedFilename()
    expect(name).toContain(state.id)
    const path = resolve(ARTIFACTS, 'sweep-downloads', name)
    await download.saveAs(path)
    expect(statSync(path).size, `${kind} download ${name}`).toBeGreaterThan(0)
    saved.set(kind, path)
  }
  // The UBJSON download is the JSON model, value for value.
  const json = fromXGBoostJson(decodeModel(readFileSync(saved.get('model')!, 'utf8')))
  const ubj = fromXGBoostJson(decodeModel(readFileSync(saved.get('model-ubj')!)))
  expect(saved.get('model-ubj')).toMatch(/\.ubj$/)
  expect(toXGBoostJsonString(ubj)).toBe(toXGBoostJsonString(json))
  // continue.zip: the best trial's bundle, its model the model download, continue.json naming the sweep.
  const bundle = unzipSync(readFileSync(saved.get('continue')!))
  const text = (name: string) => new TextDecoder().decode(bundle[`continue/${name}`])
  expect(text('model.json')).toBe(readFileSync(saved.get('model')!, 'utf8'))
  expect(JSON.parse(text('continue.json')).source).toEqual({
    kind: 'sweep',
    sweep_id: state.id,
    trial: state.best!.trial,
  })

  expect(state.id).toBe(id)
  // After a reload its URL opens it again; home lists it.
  await page.reload(WAIT)
  await page
    .locator('st-sweep-view st-trial-table tbody tr')
    .nth(state.trials.length - 1)
    .waitFor(WAIT)
  await page.goto(new URL('#/', app.server.url).href, WAIT)
  await page.locator(`st-home-list tr[data-sweep="${state.id}"] td.name a`).click()
  await page
    .locator('st-sweep-view st-trial-table tbody tr')
    .nth(state.trials.length - 1)
    .waitFor(WAIT)
  expect(await page.locator('st-sweep-view st-trial-table tbody tr').count()).toBe(state.trials.length)
  await page.screenshot({ path: resolve(ARTIFACTS, 'sweep-reloaded.png'), fullPage: true })
  expect(pageErrors).toEqual([])
  await context.close()
})
