/**
 * The single run in the app, end to end: GBDT on `marketing` from the Train panel, one run stopped
 * with the Stop button (kept, its manifest marked stopped, its model holding the rounds done),
 * one run to its end whose model, manifest.json and metrics.csv downloaded from the page equal
 * what `snaptrain train` writes for the same configuration (manifest minus the fields listed in
 * RUN_SPECIFIC), and its continue.zip the CLI's continue/ folder (the table's address aside); the ROC's area is the run's AUC; the Runs list survives a reload and compares
 * the two runs; the page logs no console error or warning throughout. Then the recommender's stop
 * through window.snaptrain.stopTraining. Screenshot to tests/artifacts/single-run-compare.png (git-ignored).
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { unzipSync } from 'fflate'
import type { Download, Page } from 'playwright-core'
import { ARTIFACTS, openApp, until, useApp } from '../support/app-harness.ts'
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

/** Collects console errors and warnings (the page is the production build: no Lit dev-mode notice either). */
function consoleProblems(page: Page): string[] {
  const seen: string[] = []
  page.on('console', m => {
    if (m.type() === 'error' || m.type() === 'warning') seen.push(`${m.type()}: ${m.text()}`)
  })
  return seen
}

async function train(page: Page, params: object): Promise<void> {
  const panel = page.locator('st-train-panel')
  await panel.locator('select#label').selectOption('y')
  await panel.locator('textarea#params').fill(JSON.stringify(params))
  await panel.locator('button[type=submit]').click()
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
  const { page, pageErrors } = await openApp(app, { wait: WAIT, acceptDownloads: true })
  const problems = consoleProblems(page)
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

  // 2. A run to its end; its files equal the CLI's for the same configuration.
  const full = { ...PARAMS, num_round: 3 }
  await train(page, full)
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
    '--params',
    JSON.stringify(full),
    '--out',
    out,
  ])
  expect(cli.code, cli.stderr).toBe(0)
  expect(model.equals(readFileSync(join(out, 'model.json')))).toBe(true)
  expect(metrics.toString()).toBe(readFileSync(join(out, 'metrics.csv'), 'utf8'))
  const manifest = JSON.parse(manifestBytes.toString()) as RunManifest
  const cliManifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as RunManifest
  expect(manifest.stopped).toBeUndefined()
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

  // 3. The Runs list survives a reload; ticking both runs compares them.
  await page.reload(WAIT)
  await page.waitForFunction(() => window.snaptrain !== undefined, null, WAIT)
  const items = page.locator('st-run-list li')
  await items.nth(1).waitFor(WAIT)
  expect(await items.count()).toBe(2)
  expect(await items.nth(1).textContent()).toMatch(/stopped/)
  expect(await items.nth(0).textContent()).not.toMatch(/stopped/)
  await items.nth(0).locator('input.compare').check()
  await items.nth(1).locator('input.compare').check()
  const compare = page.locator('st-run-compare')
  await compare.locator('tr[data-param=num_round].differs').waitFor(WAIT)
  expect(await compare.locator('st-line-chart.learning').first().getAttribute('data-lines')).toBe('2')
  expect((await compare.locator('st-run-curves').getAttribute('data-auc'))?.split(',')).toHaveLength(2)
  await page.screenshot({ path: resolve(ARTIFACTS, 'single-run-compare.png'), fullPage: true })

  expect(pageErrors).toEqual([])
  expect(problems).toEqual([])
})

test('the recommender stops after the current step: window.snaptrain.stopTraining', async () => {
  const { page, pageErrors } = await openApp(app, { wait: WAIT })
  const problems = consoleProblems(page)
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
  expect(problems).toEqual([])
})
