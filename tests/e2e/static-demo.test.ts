/**
 * The static demo (dist/demo, tools/build/demo.mjs) on a plain static file server
 * (tests/support/static-server.ts: no listing, no COOP/COEP/CSP headers, query strings ignored):
 * the page reads tables/index.json, which names the tables and what their logs hold, so it asks the
 * host nothing that fails (no listing, no probe: every answer below 400, no console error), opens
 * every table, trains marketing through the Train panel while not cross-origin isolated, and trains
 * with 2 ranks with allreduce over messages. Also: a server that ignores Range (whole files, 200) reads the same
 * snapshots and trains, and a host that honours the folder's `_headers` gets an isolated page
 * (SharedArrayBuffer there). dist/demo is built first when missing or older than dist/app.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import type { TrainResult } from '../../src/api-types.ts'
import type { TableIndex } from '../../src/sources/folder/catalog.ts'
import { launchBrowser } from '../../src/cli/launch.ts'
import { PAGE_HEADERS, PROJECT_ROOT } from '../../src/serve/page-server.ts'
import { listCommits, openSnapshot } from '../../src/table/index.ts'
import { until } from '../support/app-harness.ts'
import { guardPage } from '../support/console-guard.ts'
import { parseHeadersFile, startStaticServer, type StaticServer } from '../support/static-server.ts'

const DEMO = join(PROJECT_ROOT, 'dist', 'demo')
const DEMO_TABLES = ['clicks', 'marketing']
const APP = join(PROJECT_ROOT, 'dist', 'app')
const WAIT = { timeout: 60_000 }
/** One round on 2 ranks of marketing: enough allreduces to see the transport, quick on SwiftShader. */
const RANKS_RUN = `window.snaptrain.train({ table: 'tables/marketing', label: 'y', validFraction: 0.2, ranks: 2,
  params: { num_round: 1, max_depth: 3 } })`

let browser: Browser
const servers: StaticServer[] = []

/** Whether dist/demo is there and built from the current dist/app. */
function demoCurrent(): boolean {
  const stamp = (p: string) => statSync(p, { throwIfNoEntry: false })?.mtimeMs
  const demo = stamp(join(DEMO, 'index.html'))
  const app = stamp(join(APP, 'index.html'))
  return demo !== undefined && app !== undefined && demo >= app && existsSync(join(DEMO, 'tables', 'index.json'))
}

beforeAll(async () => {
  if (!demoCurrent()) {
    const { buildDemo } = await import(join(PROJECT_ROOT, 'tools', 'build', 'demo.mjs'))
    await buildDemo({ appDir: APP, outDir: DEMO })
  }
  browser = await launchBrowser()
}, 120_000)

afterAll(async () => {
  await browser?.close()
  for (const s of servers) await s.close()
})

async function serve(opts: Parameters<typeof startStaticServer>[1] = {}): Promise<StaticServer> {
  const s = await startStaticServer(DEMO, opts)
  servers.push(s)
  return s
}

/**
 * A fresh page on `server`'s root, once window.snaptrain is there and the tables are listed (the
 * index read); `pageErrors` collects console errors, uncaught errors, failed requests and answers
 * ≥ 400 (console-guard.ts).
 */
async function openDemo(server: StaticServer): Promise<{ page: Page; pageErrors: string[] }> {
  const page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage()
  const pageErrors = guardPage(page)
  await page.goto(server.url, WAIT)
  await until(page, () => window.snaptrain !== undefined, 'window.snaptrain', WAIT.timeout)
  for (const t of DEMO_TABLES) await page.locator(`st-table-list button[data-table="${t}"]`).waitFor(WAIT)
  return { page, pageErrors }
}

/** Opens table `name` from the list and waits for its snapshot to show. */
async function openTable(page: Page, name: string): Promise<void> {
  await page.locator(`st-table-list button[data-table="${name}"]`).click(WAIT)
  await page.waitForFunction(
    n => {
      const view = document.querySelector('st-app')?.shadowRoot?.querySelector('st-table-view') as
        | (Element & { name?: string; snapshot?: unknown; error?: { message: string } })
        | null
      if (view?.error) throw new Error(`the page shows an error: ${view.error.message}`)
      return view?.name === n && view.snapshot !== undefined
    },
    name,
    WAIT,
  )
}

/** The server's answers that failed (status ≥ 400), as "METHOD url status". */
function failedAnswers(server: StaticServer): string[] {
  return server.requests.filter(r => r.status >= 400).map(r => `${r.method} ${r.url} ${r.status}`)
}

test('the demo folder: the app pointed at its tables index, small sample tables, their logs indexed, a _headers file', async () => {
  const index = JSON.parse(readFileSync(join(DEMO, 'tables', 'index.json'), 'utf8')) as TableIndex
  expect(index.tables.map(t => t.name)).toEqual(DEMO_TABLES)
  // Each log as indexed is what probing the folder finds (the reader trusts the index instead).
  const server = await serve()
  for (const t of index.tables) {
    const history = await listCommits(`${server.url}tables/${t.name}/`)
    expect(t.log).toEqual({ earliest: history[0]?.version, latest: history.at(-1)?.version })
  }
  expect(index.tables.find(t => t.name === 'clicks')?.log?.latest).toBeGreaterThan(0)
  expect(parseHeadersFile(readFileSync(join(DEMO, '_headers'), 'utf8'))).toEqual(PAGE_HEADERS)
  expect(readFileSync(join(DEMO, 'index.html'), 'utf8')).toContain('<st-app tables-url="tables/index.json">')
})

test('a plain static host, the demo in a subfolder: tables from index.json, Train on marketing in the panel, not isolated, ranks over messages', async () => {
  // A project site (GitHub Pages: https://user.github.io/<project>/): the app's paths are relative.
  const server = await serve({ mount: 'snaptrain' })
  const { page, pageErrors } = await openDemo(server)
  expect(await page.evaluate(() => globalThis.crossOriginIsolated)).toBe(false)
  expect(await page.evaluate(() => typeof SharedArrayBuffer)).toBe('undefined')
  // Loaded and every table opened: nothing failed, nothing logged.
  for (const t of DEMO_TABLES) await openTable(page, t)
  expect(pageErrors).toEqual([])
  expect(failedAnswers(server)).toEqual([])

  await openTable(page, 'marketing')
  const panel = page.locator('st-train-panel')
  await panel.waitFor(WAIT)
  await panel.locator('select#label').selectOption('y')
  await panel.locator('textarea#params').fill('{"max_depth": 3, "eta": 0.3, "num_round": 4}')
  await panel.locator('button[type=submit]').click()
  const shown = await until(
    page,
    () => {
      const p = document.querySelector('st-app')?.shadowRoot?.querySelector('st-train-panel')?.shadowRoot
      const alert = p?.querySelector('st-error-view') as (Element & { error?: { message: string } }) | null
      if (alert?.error) throw new Error(`the page shows an error: ${alert.error.message}`)
      const m = /(\d+) rounds in [\d.]+ s · AUC (\d\.\d+)/.exec(p?.textContent ?? '')
      return m ? { rounds: Number(m[1]), auc: Number(m[2]) } : undefined
    },
    'the finished run with its AUC',
    WAIT.timeout,
  )
  expect(shown.rounds).toBe(4)
  expect(shown.auc).toBeGreaterThan(0.7)

  const ranks = await page.evaluate<TrainResult>(RANKS_RUN)
  expect(ranks.summary.collective_transport).toBe('messages')
  expect(ranks.summary.collectives?.find(c => c.op === 'allreduce')?.calls).toBeGreaterThan(0)
  expect(ranks.manifest.table.rows).toBe(20_000)
  expect(pageErrors).toEqual([])
  expect(failedAnswers(server)).toEqual([])

  const paths = server.requests.map(r => `${r.method} ${r.url} ${r.status}`)
  // The page named the index: no listing request; the logs as indexed: no probe; data read in ranges.
  expect(paths).toContain('GET /snaptrain/tables/index.json 200')
  expect(paths.filter(p => p.includes('list-type') || p.startsWith('HEAD') || p.includes('_last_checkpoint'))).toEqual(
    [],
  )
  expect(paths).toContain('GET /snaptrain/tables/marketing/_delta_log/00000000000000000000.json 200')
  expect(server.requests.some(r => r.range && r.status === 206 && r.url.endsWith('.parquet'))).toBe(true)
  await page.context().close()
})

test('a host that ignores Range (whole files, 200) reads the same snapshots, versions and rows', async () => {
  const ranged = await serve()
  const whole = await serve({ range: false })
  const truth = await openSnapshot(`${ranged.url}tables/clicks/`)
  const { page, pageErrors } = await openDemo(whole)
  const got = await page.evaluate(async () => {
    const s = await window.snaptrain.openSnapshot('tables/clicks/')
    const commits = await window.snaptrain.listCommits('tables/clicks/')
    const rows = await window.snaptrain.readRows(s, { limit: 5 })
    const r = await window.snaptrain.train({
      table: 'tables/marketing',
      label: 'y',
      validFraction: 0.2,
      params: { num_round: 1, max_depth: 3 },
    })
    return {
      version: s.version,
      files: s.files.length,
      fields: s.schema.fields.map(f => f.name),
      versions: commits.map(c => c.version),
      users: rows.map(row => String(row.user_id)),
      auc: r.summary.auc,
    }
  })
  expect(got.version).toBe(truth.version)
  expect(got.files).toBe(truth.files.length)
  expect(got.fields).toEqual(truth.schema.fields.map(f => f.name))
  expect(got.versions).toEqual((await listCommits(`${ranged.url}tables/clicks/`)).map(c => c.version))
  expect(got.versions.length).toBeGreaterThan(1)
  expect(got.users).toHaveLength(5)
  expect(got.auc).toBeGreaterThan(0.6)
  expect(pageErrors).toEqual([])
  expect(failedAnswers(whole)).toEqual([])
  const rangedAsks = whole.requests.filter(r => r.range)
  expect(rangedAsks.length).toBeGreaterThan(0)
  expect(rangedAsks.every(r => r.status === 200)).toBe(true)
  await page.context().close()
})

test('a host honouring _headers: the page is cross-origin isolated, tables listed from the index', async () => {
  const server = await serve({ headersFile: true })
  const { page, pageErrors } = await openDemo(server)
  expect(await page.evaluate(() => globalThis.crossOriginIsolated)).toBe(true)
  expect(await page.evaluate(() => typeof SharedArrayBuffer)).toBe('function')
  // The rank group takes the shared-memory path here (rank-group.ts; trained in tests/e2e/train-ranks.test.ts).
  for (const t of DEMO_TABLES) await openTable(page, t)
  expect(pageErrors).toEqual([])
  expect(failedAnswers(server)).toEqual([])
  await page.context().close()
})
