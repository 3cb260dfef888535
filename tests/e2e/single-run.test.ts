/**
 * The single run in the app, end to end: GBDT on `marketing` from the Train panel, one run stopped
 * with the Stop button (kept, its manifest marked stopped, its model holding the rounds done),
 * one run to its end whose model, manifest.json and metrics.csv downloaded from the page equal
 * what `snaptrain train` writes for the same configuration (manifest minus the fields listed in
 * RUN_SPECIFIC), and its continue.zip the CLI's continue/ folder (the table's address aside); the ROC's area is the run's AUC;
 * each run's view (#/runs/<id>) opens in sight of a 1400×900 window when it starts and shows the
 * run's progress and Stop but not the form (that stays on home); after a reload
 * that URL reopens the run with the same ROC area, importance and SHAP summary from its kept record;
 * the home list survives the reload and compares the two runs; the page logs no console error or warning throughout. Then the recommender's stop
 * through window.snaptrain.stopTraining. Screenshot to tests/artifacts/single-run-compare.png (git-ignored).
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { unzipSync } from 'fflate'
import type { Download, Page } from 'playwright-core'
import { ARTIFACTS, boxInViewport, openApp, until, useApp } from '../support/app-harness.ts'
import { runMain } from '../support/cli.ts'
import { useAppPageHost } from '../../src/cli/page-run.ts'
import type { RunManifest } from '../../src/api-types.ts'

const WAIT = { timeout: 120_000 }
const app = useApp()
const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-single-run-'))
/** Small and quick on a software adapter: depth 2, 16 bins. */
const PARAMS = { max_depth: 2, eta: 0.3, max_bin: 16 }

/**
 * Manifest fields that name this run's time, adapter or address rather than what was trained: the
 * CLI records the table folder, the page the URL it was given. The digest of what was read
 * (version, files, columns, filter, rows) leaves the address out, so it is the same.
 */
const RUN_SPECIFIC = ['created', 'adapter', 'train_seconds', 'table.url', 'table.path'] as const

beforeAll(() => {
  // The CLI's runs use this file's page server and browser (a fresh page each).
  useAppPageHost({ url: app.server.url, newPage: () => app.browser.newPage() })
})
afterAll(() => useAppPageHost(undefined))

/** Starts a run from the train panel; its view (#/runs/<id>) opens in sight: returns its id. */
async function train(page: Page, params: object): Promise<string> {
  const panel = page.locator('st-train-panel')
  await panel.locator('select#label').selectOption('y')
  await panel.locator('textarea#params').fill(JSON.stringify(params))
  await panel.locator('button[type=submit]').click()
  const view = page.locator('st-app [data-view=run]')
  await view.waitFor({ state: 'attached', ...WAIT })
  const id = (await view.getAttribute('data-run'))!
  expect(new URL(page.url()).hash).toBe(`#/runs/${id}`)
  const box = await boxInViewport(page, 'st-app [data-view=run]', WAIT.timeout)
  expect(box.inside, `run view at ${JSON.stringify(box)} in 1400×900`).toBe(true)
  return id
}

/** Waits for a finished run (the result line) and its download buttons. */
async function finished(page: Page): Promise<string> {
  const text = await until(
    page,
    () => {
      const panel = document.querySelector('st-app')?.shadowRoot?.querySelector('st-train-panel')?.shadowRoot
      const alert = panel?.querySelector('st-error-view') as (Element & { error?: { message: string } }) | null
      if (alert?.error) throw new Error(`the page shows an error: ${alert.error.message}`)
      return panel?.querySelector('.result')?.textContent ?? false
    },
    'the run to finish',
    WAIT.timeout,
  )
  await page.locator('st-app .downloads button[data-file=manifest]').waitFor(WAIT)
  return text
}

async function download(page: Page, file: 'model' | 'manifest' | 'metrics' | 'continue'): Promise<Buffer> {
  const [d] = await Promise.all([
    page.waitForEvent('download', WAIT) as Promise<Download>,
    page.locator(`st-app .downloads button[data-file=${file}]`).click(),
  ])
  return readFileSync((await d.path())!)
}

/** The run view's importance (its text) and SHAP summary (points, features, range) once explained. */
async function explained(page: Page): Promise<{ importance: string; points: string; features: string; range: string }> {
  const shap = page.locator('st-app st-run-explanation st-shap-summary')
  await shap.waitFor(WAIT)
  await until(
    page,
    () => {
      // In the view of a run trained just now it is the app's; in a reopened run's, st-run-view's.
      const app = document.querySelector('st-app')?.shadowRoot
      const explanation =
        app?.querySelector('st-run-view')?.shadowRoot?.querySelector('st-run-explanation') ??
        app?.querySelector('st-run-explanation')
      const shap = explanation?.shadowRoot?.querySelector('st-shap-summary') as HTMLElement | null | undefined
      return Number(shap?.dataset.points) > 0
    },
    'the SHAP summary',
    WAIT.timeout,
  )
  const a = (name: string) => shap.getAttribute(`data-${name}`).then(v => v ?? '')
  const importance = await page
    .locator('st-app st-run-explanation st-feature-importance')
    .evaluate(el => el.shadowRoot?.textContent?.replace(/\s+/g, ' ') ?? '')
  expect(importance.length).toBeGreaterThan(0)
  return { importance, points: await a('points'), features: await a('features'), range: await a('range') }
}

/** `m` without the RUN_SPECIFIC fields. */
function comparable(m: RunManifest): Record<string, unknown> {
  const out = structuredClone(m) as unknown as Record<string, Record<string, unknown>>
  for (const path of RUN_SPECIFIC) {
    const [a, b] = path.split('.')
    if (b) delete out[a][b]
    else delete out[a]
  }
  return out
}

test('stop one run, finish another, download the CLI bytes, keep both across a reload, compare', async () => {
  const { page, pageErrors } = await openApp(app, {
    wait: WAIT,
    acceptDownloads: true,
    viewport: { width: 1400, height: 900 },
    warnings: true,
  })
  await page.locator('st-table-list button', { hasText: 'marketing' }).first().click()
  await page.locator('st-train-panel select#label').waitFor(WAIT)

  // 1. A long run, stopped once two rounds are done: kept, marked, its model has the rounds done.
  await train(page, { ...PARAMS, num_round: 500 })
  await until(
    page,
    () => {
      const p = document.querySelector('st-app')?.shadowRoot?.querySelector('st-train-panel')?.shadowRoot
      const m = /^(\d+) \/ 500 rounds · .* elapsed · about .* left$/.exec(
        p?.querySelector('.progress')?.textContent ?? '',
      )
      return m !== null && Number(m[1]) >= 2
    },
    'two rounds with elapsed and remaining time',
    WAIT.timeout,
  )
  // The run's view shows its status (progress, Stop), not the form: that stays on home.
  expect(await page.locator('st-app [data-view=run] st-train-panel form').count()).toBe(0)
  await page.locator('st-train-panel button.stop').click()
  expect(await finished(page)).toMatch(/stopped after \d+ rounds/)
  const stopped = JSON.parse((await download(page, 'manifest')).toString()) as RunManifest
  const k = stopped.stopped && 'at_round' in stopped.stopped ? stopped.stopped.at_round : -1
  expect(stopped.stopped).toEqual({ at_round: k, reason: 'user' })
  expect(k).toBeGreaterThanOrEqual(2)
  expect(k).toBeLessThan(500)
  expect(stopped.metrics).toHaveLength(k)
  const stoppedModel = JSON.parse((await download(page, 'model')).toString())
  expect(stoppedModel.learner.gradient_booster.model.trees).toHaveLength(k)
  expect((await download(page, 'metrics')).toString().trim().split('\n')).toHaveLength(k + 1)

  // 2. Back home, a run to its end without the leaky `duration` (the feature picker, as the sweep
  // form's); its files equal the CLI's for the same configuration (--features: the columns left chosen).
  await page.locator('st-app nav.crumbs a').click()
  const picker = page.locator('st-train-panel st-feature-picker')
  await picker.locator('input[data-feature=duration]').uncheck()
  const chosen = await picker
    .locator('input[data-feature]:checked')
    .evaluateAll(boxes => boxes.map(b => (b as HTMLElement).dataset.feature!))
  expect(chosen).not.toContain('duration')
  expect(chosen).toContain('age')
  const full = { ...PARAMS, num_round: 3 }
  const id = await train(page, full)
  expect(await finished(page)).toMatch(/^3 rounds in/)
  const [model, manifestBytes, metrics] = [
    await download(page, 'model'),
    await download(page, 'manifest'),
    await download(page, 'metrics'),
  ]
  const out = join(tmp, 'cli')
  const cli = await runMain([
    'train',
    '--table',
    'public/tables/marketing',
    '--label',
    'y',
    '--valid-fraction',
    '0.2',
    '--features',
    chosen.join(','),
    '--params',
    JSON.stringify(full),
    // The page's default: training-rows metrics beside the validation ones (train-auc, …).
    '--eval-train',
    '--out',
    out,
  ])
  expect(cli.code, cli.stderr).toBe(0)
  expect(model.equals(readFileSync(join(out, 'model.json')))).toBe(true)
  expect(metrics.toString()).toBe(readFileSync(join(out, 'metrics.csv'), 'utf8'))
  const manifest = JSON.parse(manifestBytes.toString()) as RunManifest
  const cliManifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as RunManifest
  expect(manifest.stopped).toBeUndefined()
  expect(manifest.features.map(f => f.name)).toEqual(chosen)
  expect(comparable(manifest)).toEqual(comparable(cliManifest))
  // Same serialiser: with the run-specific fields set alike, the manifest's bytes are the CLI's.
  const aligned = {
    ...manifest,
    ...Object.fromEntries(['created', 'adapter', 'train_seconds'].map(f => [f, cliManifest[f as keyof RunManifest]])),
  }
  // The page's table has no `path` (no local folder): the CLI's table, in its key order, with the page's values.
  const own = (k: string) => ['url', 'path', 'digest'].includes(k)
  aligned.table = Object.fromEntries(
    Object.entries(cliManifest.table).map(([k, v]) => [
      k,
      own(k) ? v : manifest.table[k as keyof typeof manifest.table],
    ]),
  ) as RunManifest['table']
  expect(`${JSON.stringify(aligned, null, 2)}\n`).toBe(readFileSync(join(out, 'manifest.json'), 'utf8'))
  // continue.zip: the CLI's continue/ folder, file for file; only the table's address (the page's URL) differs.
  const zip = unzipSync(await download(page, 'continue'))
  const cliBundle = readdirSync(join(out, 'continue')).sort()
  expect(Object.keys(zip).sort()).toEqual(cliBundle.map(n => `continue/${n}`))
  for (const n of ['model.json', 'snaptrain_continue.py'])
    expect(Buffer.from(zip[`continue/${n}`]).equals(readFileSync(join(out, 'continue', n))), n).toBe(true)
  const pageSpec = JSON.parse(new TextDecoder().decode(zip['continue/continue.json']))
  const cliSpec = JSON.parse(readFileSync(join(out, 'continue', 'continue.json'), 'utf8'))
  for (const spec of [pageSpec, cliSpec]) {
    delete spec.table.url
    delete spec.table.path
    spec.scan.args[1] = 'TABLE'
  }
  expect(pageSpec).toEqual(cliSpec)

  // The ROC of the validation rows has the run's AUC as its area; the threshold moves the confusion matrix.
  const curves = page.locator('st-app st-run-curves')
  const auc = Number(await curves.getAttribute('data-auc'))
  expect(auc).toBeCloseTo(manifest.metrics.at(-1)!.auc, 9)
  const tp = () => curves.locator('td.tp').first().textContent()
  const at05 = Number(await tp())
  await curves.locator('input#threshold').fill('0.05')
  await curves.locator('input#threshold').dispatchEvent('change')
  expect(Number(await tp())).toBeGreaterThan(at05)

  // Its importance and SHAP, computed in the page, are kept with the run.
  const shown = await explained(page)

  // 3. Reopened by URL after a reload: the same ROC, importance and SHAP, from the kept record.
  await page.goto(new URL('#/', app.server.url).href, WAIT)
  await page.reload(WAIT)
  await page.goto(new URL(`#/runs/${id}`, app.server.url).href, WAIT)
  await page.waitForFunction(() => window.snaptrain !== undefined, null, WAIT)
  await page.locator(`st-app [data-view=run][data-run="${id}"] st-run-view`).waitFor(WAIT)
  expect(Number(await page.locator('st-app st-run-curves').getAttribute('data-auc'))).toBe(auc)
  expect(await explained(page)).toEqual(shown)

  // The home list survives the reload; ticking both runs compares them.
  await page.goto(new URL('#/', app.server.url).href, WAIT)
  const items = page.locator('st-home-list tbody tr[data-run]')
  await items.nth(1).waitFor(WAIT)
  expect(await items.count()).toBe(2)
  expect(await items.nth(1).textContent()).toMatch(/stopped/)
  expect(await items.nth(0).textContent()).not.toMatch(/stopped/)
  await items.nth(0).locator('input.compare').check()
  await items.nth(1).locator('input.compare').check()
  await page.locator('st-home-list a.compare-link').click()
  const compare = page.locator('st-run-compare')
  await compare.locator('tr[data-param=num_round].differs').waitFor(WAIT)
  expect(await compare.locator('st-line-chart.learning').first().getAttribute('data-lines')).toBe('2')
  expect((await compare.locator('st-run-curves').getAttribute('data-auc'))?.split(',')).toHaveLength(2)
  await page.screenshot({ path: resolve(ARTIFACTS, 'single-run-compare.png'), fullPage: true })

  expect(pageErrors).toEqual([])
})

test('the recommender stops after the current step: window.snaptrain.stopTraining', async () => {
  const { page, pageErrors } = await openApp(app, { wait: WAIT, warnings: true })
  const r = await page.evaluate(async () => {
    let asked = -1
    const run = await window.snaptrain.train(
      {
        model: 'recsys',
        table: 'tables/clicks',
        label: 'label',
        filter: 'user_id < 3000',
        validFraction: 0.2,
        params: { epochs: 3, batch_size: 128, embedding_dim: 4, layers: [8], eval_every: 2 },
      },
      p => {
        if (p.kind === 'round' && asked < 0) asked = window.snaptrain.stopTraining()
      },
    )
    return { stopped: run.manifest.stopped, steps: run.summary.steps, evaluations: run.metrics.length, asked }
  })
  expect(r.asked).toBe(1)
  expect(r.stopped).toEqual({ at_step: r.steps, reason: 'user' })
  // Stopped right after the first evaluation (step 2): the step in progress is the last.
  expect(r.steps).toBeGreaterThanOrEqual(2)
  expect(r.steps).toBeLessThanOrEqual(4)
  expect(r.evaluations).toBeGreaterThanOrEqual(1)
  expect(pageErrors).toEqual([])
})
