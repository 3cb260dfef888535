/**
 * `snaptrain bench [--suite NAME|all] [--out FILE] [--quick] [--json] [--markdown] [--timeout S]
 * [--tables DIR] [--rows N]`: serves the bench page, runs suites in headless Chromium (WebGPU) —
 * `all` runs every suite in one page, one after another — prints a table and writes the rows as
 * JSON. Browser and server are always closed, and an overall timeout bounds the run.
 */
import { scaleoutSvg } from './scaleout-plot.ts'
import { scaleoutPoints } from './scaleout-rows.ts'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import type { Page } from 'playwright-core'
import { formatMarkdown, formatTable } from './format.ts'
import { assertSuiteName, SUITE_NAMES, SUITES } from './suites.ts'
import type { BenchRow } from './types.ts'
import type { AdapterSummary } from '../src/gpu/types.ts'
import type { CliIo } from '../src/cli/io.ts'
import { launchBrowser } from '../src/cli/launch.ts'
import { pollPage } from '../src/cli/page-run.ts'
import { IN_CHECKOUT, PROJECT_ROOT, startPageServer } from '../src/serve/page-server.ts'
import { fileStamp } from '../src/cli/out-dir.ts'
import { withTimeout } from '../src/util/deadline.ts'
import { prepareLoaderBench } from './cli-loader.ts'
import { prepareGbdtBench } from './cli-gbdt.ts'
import { GBDT_MIN_ROWS } from './gbdt-types.ts'

/** Parsed `snaptrain bench` options. */
export interface BenchArgs {
  suite: string
  out?: string
  quick: boolean
  json: boolean
  markdown: boolean
  timeoutS: number
  /** Folder served at /tables/ (the suites' clicks and marketing tables) instead of the sample tables. */
  tables?: string
  /** Training rows of the gbdt suite's synthetic data (one size instead of the preset's). */
  rows?: number
  help: boolean
}

const USAGE = `usage: snaptrain bench [--suite NAME|all] [--out FILE] [--quick] [--json] [--markdown] [--timeout SECONDS] [--tables DIR] [--rows N]

  --suite NAME   suite to run (default: device); 'all' runs every suite
  --out FILE     results JSON (default: bench/results/<suite>-<date>.json in a checkout, else
                 ./bench-results/<suite>-<date>.json)
  --quick        small sizes and few repeats (a smoke run, not a measurement)
  --json         print one JSON object {suite, rows, out} as the last line
  --markdown     print the table as Markdown (for bench/README.md)
  --timeout S    give up after S seconds (default 900)
  --tables DIR   serve DIR at /tables/ for the suites that read clicks / marketing (loader, recsys,
                 sweep, scaleout), e.g. small tables from \`snaptrain data --rows 3000
                 --marketing-rows 3000\`; default: the checkout's public/tables (outside a
                 checkout: ./tables), and for the loader suite bench/tables' 1M-row clicks
  --rows N       training rows of the gbdt suite's synthetic data: one size of N rows (>= ${GBDT_MIN_ROWS})
                 instead of 100k and 1M (--quick: 20k); with --quick --tables DIR every suite
                 runs on a tiny table (tests/e2e/bench-suites.test.ts)

suites:
${SUITE_NAMES.map(n => `  ${n.padEnd(10)}${SUITES[n]}`).join('\n')}`

/** Parses argv; throws naming the offending flag or value. */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const a: BenchArgs = { suite: 'device', quick: false, json: false, markdown: false, timeoutS: 900, help: false }
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] =
      argv[i].startsWith('--') && argv[i].includes('=') ? argv[i].split(/=(.*)/s, 2) : [argv[i], undefined]
    const value = (): string => {
      const v = inline ?? argv[++i]
      if (v === undefined || (inline === undefined && v.startsWith('--')))
        throw new Error(`bench: ${flag} needs a value`)
      return v
    }
    if (flag === '--suite') a.suite = value()
    else if (flag === '--out') a.out = value()
    else if (flag === '--timeout') a.timeoutS = positive(flag, value())
    else if (flag === '--tables') a.tables = value()
    else if (flag === '--rows') a.rows = rowCount(flag, value())
    else if (flag === '--quick') a.quick = true
    else if (flag === '--json') a.json = true
    else if (flag === '--markdown') a.markdown = true
    else if (flag === '--help' || flag === '-h') a.help = true
    else throw new Error(`bench: unknown option '${argv[i]}'`)
  }
  return a
}

function rowCount(flag: string, v: string): number {
  const n = Number(v)
  if (!Number.isInteger(n) || n < GBDT_MIN_ROWS)
    throw new Error(`bench: ${flag} must be an integer >= ${GBDT_MIN_ROWS} (rows), got '${v}'`)
  return n
}

function positive(flag: string, v: string): number {
  const n = Number(v)
  if (!(n > 0)) throw new Error(`bench: ${flag} must be a positive number of seconds, got '${v}'`)
  return n
}

/** Runs the command; resolves to the exit code (2 for usage errors). */
export async function run(argv: string[], io: CliIo): Promise<number> {
  let args: BenchArgs
  try {
    args = parseBenchArgs(argv)
    if (!args.help) assertSuiteName(args.suite, true)
    if (args.tables !== undefined && !['clicks', 'marketing'].some(t => existsSync(resolve(args.tables!, t))))
      throw new Error(`bench: --tables ${args.tables}: no clicks or marketing table in that folder`)
  } catch (e) {
    io.err(`snaptrain: ${(e as Error).message}\n${USAGE}`)
    return 2
  }
  if (args.help) {
    io.out(USAGE)
    return 0
  }
  const suites = args.suite === 'all' ? [...SUITE_NAMES] : [args.suite]
  const commit = gitCommit()
  const date = new Date().toISOString()
  const { rows, adapter } = await bounded(args.timeoutS, closers => runInBrowser(suites, args, commit, io, closers))
  const results = IN_CHECKOUT ? resolve(PROJECT_ROOT, 'bench', 'results') : resolve('bench-results')
  const out = resolve(args.out ?? resolve(results, `${args.suite}-${fileStamp(date)}.json`))
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(
    out,
    JSON.stringify(
      { suite: args.suite, commit, date, quick: args.quick, gbdt_rows: args.rows, adapter, rows },
      null,
      2,
    ) + '\n',
  )
  // The scale-out suite's plot (bench/README.md "Scale-out"), drawn in Node from the rows.
  if (suites.includes('scaleout')) writeFileSync(out.replace(/\.json$/, '') + '.svg', scaleoutSvg(scaleoutPoints(rows)))
  io.out(args.markdown ? formatMarkdown(rows) : formatTable(rows))
  io.out(`adapter: ${rows[0]?.adapter ?? 'unknown'}  commit: ${commit || 'unknown'}  results: ${out}`)
  if (args.json) io.out(JSON.stringify({ suite: args.suite, rows, out }))
  return 0
}

/** Things to close when the run ends, however it ends (newest first). */
type Closers = Array<() => Promise<void>>

async function runInBrowser(
  suites: string[],
  args: BenchArgs,
  commit: string,
  io: CliIo,
  closers: Closers,
): Promise<{ rows: BenchRow[]; adapter?: AdapterSummary }> {
  const { quick, tables } = args
  // The loader suite's table, CSV export and their servers are prepared in Node first.
  const loader = suites.includes('loader') ? await prepareLoaderBench(quick, io, tables) : undefined
  if (loader) closers.push(() => loader.close())
  // The gbdt suite's XGBoost peer runs in Node before the browser, on the same seeded rows; its
  // Delta tables are served for the open → first round row.
  const gbdt = suites.includes('gbdt') ? await prepareGbdtBench(quick, io, args.rows) : undefined
  if (gbdt) closers.push(() => gbdt.close())
  // Suites read the sample tables at /tables/: --tables DIR, else a checkout's, else those `snaptrain data` wrote to ./tables.
  const dir = tables ?? (!IN_CHECKOUT && existsSync('tables') ? 'tables' : undefined)
  const local = dir === undefined ? undefined : [{ key: 'tables/', dir: resolve(dir) }]
  const server = await startPageServer({ page: 'bench', tables: local })
  closers.push(() => server.close())
  const browser = await launchBrowser()
  closers.push(() => browser.close())
  const page = await openBenchPage(await browser.newPage(), server.url, io)
  const adapter = await page.evaluate<AdapterSummary | undefined>('window.snaptrainBench?.describeAdapter?.()')
  const rows: BenchRow[] = []
  for (const suite of suites) {
    const extra =
      suite === 'loader' && loader
        ? { loader: loader.input }
        : suite === 'gbdt' && gbdt
          ? { gbdt: gbdt.input, gbdtRows: args.rows }
          : {}
    rows.push(...(await page.evaluate<BenchRow[]>(suiteScript(suite, quick, commit, extra))))
  }
  return { rows, adapter }
}

/**
 * The page-side call as source text, on bench.html's `window.snaptrainBench` (bench/page.ts; the
 * app's `window.snaptrain` has no bench entry). Source text, not a function: a compiler's name
 * helpers (tsx runs esbuild with keepNames, whose `__name(...)` wrappers are undefined in the
 * page) would break a function passed to page.evaluate.
 */
export function suiteScript(
  suite: string,
  quick: boolean,
  commit: string,
  extra: Record<string, unknown> = {},
): string {
  const opts = JSON.stringify({ quick, commit, ...extra })
  return `(() => {
    const w = window
    return w.snaptrainBench.runBenchSuite(${JSON.stringify(suite)}, { ...${opts}, onProgress: m => { w.__snaptrainBenchProgress(m) } })
  })()`
}

/** Runs `body` under the overall timeout, then closes whatever it opened (also on timeout). */
async function bounded<T>(seconds: number, body: (closers: Closers) => Promise<T>): Promise<T> {
  const closers: Closers = []
  try {
    return await withBenchTimeout(body(closers), seconds)
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined)
  }
}

async function openBenchPage(page: Page, url: string, io: CliIo): Promise<Page> {
  page.on('pageerror', e => io.err(`page error: ${e.message}`))
  await page.exposeFunction('__snaptrainBenchProgress', (msg: string) => io.err(msg))
  await page.goto(`${url}bench.html`, { timeout: 60_000 })
  await pollPage(page, 'Boolean(window.snaptrainBench)', 60_000)
  return page
}

/** `p`, or a rejection naming the limit after `seconds` (the caller's finally blocks clean up). */
export function withBenchTimeout<T>(p: Promise<T>, seconds: number): Promise<T> {
  return withTimeout(p, seconds * 1000, `bench: timed out after ${seconds} s (raise --timeout)`)
}

/** Short HEAD commit, or '' outside a git checkout. */
export function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim()
  } catch {
    return ''
  }
}

/** ISO date made safe for file names (shared with the CLI's default run folders). */
export { fileStamp }
