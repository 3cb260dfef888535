/**
 * `npm run screenshots`: the page's four views at 1400×900 in tests/e2e/__screenshots__ (home.png,
 * run.png, compare.png, sweep.png), made the way a user gets there. The page server (src/serve)
 * serves the built app over the static demo's small tables (dist/demo/tables, `npm run build`);
 * in a headless Chromium the page trains two tiny GBDT runs on marketing from its Single run form and
 * a tiny Hyperband sweep from its Sweep form, is reloaded (so every view is read back from what the
 * page kept), then visits `#/`, `#/runs/<id>`, `#/compare/<a>/<b>` and `#/sweeps/<id>`. Console
 * errors, uncaught errors, failed requests and answers ≥ 400 (tests/support/console-guard.ts) are
 * printed and make the command fail, after the screenshots are written.
 *
 * Run by package.json's `screenshots` script after `node tools/build/build.mjs --if-stale`.
 */
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { launchBrowser } from '../../src/cli/launch.ts'
import { PROJECT_ROOT, startPageServer } from '../../src/serve/page-server.ts'
import { guardPage } from '../../tests/support/console-guard.ts'

const OUT = join(PROJECT_ROOT, 'tests', 'e2e', '__screenshots__')
const TABLES = join(PROJECT_ROOT, 'dist', 'demo', 'tables')
const VIEWPORT = { width: 1400, height: 900 }
const WAIT = { timeout: 120_000 }
/** Two small runs that differ in one parameter (Compare shows it), a few seconds each on a software adapter. */
const RUNS = [
  { max_depth: 3, eta: 0.3, num_round: 8 },
  { max_depth: 4, eta: 0.3, num_round: 8 },
]
/** Hyperband over three parameters: 5 configurations, 3 to 9 rounds, on the rows of days 1–10. */
const SWEEP = {
  space: {
    eta: { type: 'loguniform', low: 0.1, high: 0.5 },
    max_depth: { type: 'int', low: 2, high: 4 },
    min_child_weight: { type: 'loguniform', low: 0.5, high: 10 },
  },
  filter: 'day <= 10',
  eta: '3',
  minResource: '3',
  maxResource: '9',
  parallel: '1',
  seed: '7',
}

function say(message: string): void {
  process.stderr.write(`screenshots: ${message}\n`)
}

/** Polls `probe` in the page until it returns something truthy (a function: the app's CSP refuses strings). */
async function until<T>(page: Page, probe: () => T | undefined | false, what: string): Promise<T> {
  const end = Date.now() + WAIT.timeout
  for (;;) {
    const v = await page.evaluate(probe)
    if (v) return v as T
    if (Date.now() > end) throw new Error(`timed out after ${WAIT.timeout / 1000} s waiting for ${what}`)
    await new Promise(r => setTimeout(r, 500))
  }
}

/** Opens marketing from the table list (the home's aside) and waits for its form. */
async function openMarketing(page: Page): Promise<void> {
  await page.locator('st-table-list button[data-table="marketing"]').click(WAIT)
  await page.locator('st-train-panel select#label').waitFor(WAIT)
}

/** Trains `params` from the Single run form; resolves with the run's id once it is finished. */
async function train(page: Page, params: object): Promise<string> {
  const panel = page.locator('st-train-panel')
  await panel.locator('select#label').selectOption('y')
  await panel.locator('textarea#params').fill(JSON.stringify(params))
  await panel.locator('button[type=submit]').click()
  const view = page.locator('st-app [data-view=run]').first()
  await view.waitFor({ state: 'attached', ...WAIT })
  const id = (await view.getAttribute('data-run'))!
  await until(
    page,
    () => {
      const panel = document.querySelector('st-app')?.shadowRoot?.querySelector('st-train-panel')?.shadowRoot
      const alert = panel?.querySelector('st-error-view') as (Element & { error?: { message: string } }) | null
      if (alert?.error) throw new Error(`the page shows an error: ${alert.error.message}`)
      return panel?.querySelector('.result')?.textContent ?? false
    },
    `run ${id} to finish`,
  )
  await page.locator('st-app .downloads button[data-file=manifest]').waitFor(WAIT)
  return id
}

/** Starts the sweep from the Sweep form; resolves with its id once it is finished. */
async function sweep(page: Page): Promise<string> {
  await page.locator('button[data-mode="sweep"]').click()
  const setup = page.locator('st-sweep-setup')
  await setup.locator('select#label').selectOption('y')
  await setup.locator('select#strategy').selectOption('hyperband')
  await setup.locator('textarea#space').fill(JSON.stringify(SWEEP.space, null, 2))
  for (const field of ['filter', 'eta', 'minResource', 'maxResource', 'parallel', 'seed'] as const)
    await setup.locator(`input#${field}`).fill(SWEEP[field])
  await setup.locator('.cost').waitFor(WAIT) // the plan is accepted
  await setup.locator('button[type=submit]').click()
  const view = page.locator('st-app [data-view=sweep]').first()
  await view.waitFor({ state: 'attached', ...WAIT })
  const id = (await view.getAttribute('data-sweep'))!
  await until(
    page,
    () => {
      type View = Element & { state?: { status: string }; active?: boolean; error?: { message: string } }
      const v = document.querySelector('st-app')?.shadowRoot?.querySelector('st-sweep-view') as View | null
      if (v?.error) throw new Error(`the page shows an error: ${v.error.message}`)
      return v?.state !== undefined && v.state.status !== 'running' && !v.active
    },
    `sweep ${id} to finish`,
  )
  return id
}

/** Goes to `hash` (after a reload: what the page kept), waits for `ready`, and writes `<name>.png`. */
async function shoot(page: Page, base: string, hash: string, ready: string, name: string): Promise<void> {
  await page.goto(new URL(hash, base).href, WAIT)
  await page.waitForFunction(() => window.snaptrain !== undefined, null, WAIT)
  await page.locator(ready).first().waitFor(WAIT)
  await page.waitForTimeout(1500) // charts draw on the next frames
  const path = join(OUT, `${name}.png`)
  await page.screenshot({ path })
  say(`${name}.png: ${hash}`)
}

async function main(): Promise<number> {
  if (!existsSync(join(TABLES, 'marketing')))
    throw new Error(`${TABLES} has no marketing table: build first (npm run build)`)
  mkdirSync(OUT, { recursive: true })
  const server = await startPageServer({ tables: [{ key: 'tables/', dir: TABLES }] })
  const browser = await launchBrowser()
  try {
    const page = await (await browser.newContext({ viewport: VIEWPORT })).newPage()
    const problems = guardPage(page)
    await page.goto(server.url, WAIT)
    await page.waitForFunction(() => window.snaptrain !== undefined, null, WAIT)
    const ids: string[] = []
    for (const params of RUNS) {
      await page.goto(new URL('#/', server.url).href, WAIT)
      await openMarketing(page)
      say(`training ${JSON.stringify(params)}`)
      ids.push(await train(page, params))
    }
    await page.goto(new URL('#/', server.url).href, WAIT)
    await openMarketing(page)
    say('sweeping (Hyperband, 5 configurations)')
    const sweepId = await sweep(page)
    await page.reload(WAIT)
    const [a, b] = ids
    await shoot(page, server.url, '#/', 'st-home-list tbody tr[data-run]', 'home')
    await shoot(page, server.url, `#/runs/${b}`, `st-app [data-view=run][data-run="${b}"] st-run-view`, 'run')
    await shoot(page, server.url, `#/compare/${a}/${b}`, 'st-run-compare', 'compare')
    await shoot(page, server.url, `#/sweeps/${sweepId}`, 'st-sweep-view', 'sweep')
    for (const p of problems) say(`problem: ${p}`)
    return problems.length ? 1 : 0
  } finally {
    await browser.close()
    await server.close()
  }
}

process.exitCode = await main()
