/**
 * The static demo (`buildDemo`, the last step of `npm run build`): dist/demo is the built app plus
 * small versions of the sample tables, a folder any static host can serve as it is (no server code):
 * - `tables/clicks/` and `tables/marketing/`: written by the sample-table generator
 *   (tools/datagen, `DEMO_ROWS` rows, the default seed), about 2 MB together;
 * - `tables/index.json`: the tables' names and what each `_delta_log/` holds (src/sources/folder/catalog.ts
 *   `TABLE_INDEX`, src/table/listing.ts `IndexedLog`: the commit versions and `_last_checkpoint`), and the
 *   demo's index.html names it (`<st-app tables-url="tables/index.json">`): a host without listing is
 *   asked for no listing and no probe, so the page's requests all succeed;
 * - `_headers` (Netlify and Cloudflare Pages format): COOP/COEP, so the page is cross-origin
 *   isolated (SharedArrayBuffer) where the host honours the file, plus the page's CSP and nosniff,
 *   the headers the CLI's page server sends (src/serve/page-server.ts `PAGE_HEADERS`; a unit test
 *   checks they agree). Without them the page works too, allreduce over messages.
 * Built in a staging folder next to `outDir` and renamed into place.
 */
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** Rows of the demo's tables (clicks: version 0; versions 1 and 2 add and rewrite some). */
export const DEMO_ROWS = { clicks: 10_000, marketing: 20_000 }

/** The tables the demo carries, as `tables/index.json` names them. */
export const DEMO_TABLES = ['clicks', 'marketing']

/** The page's CSP, from the built index.html's `<meta http-equiv>` (the policy of src/serve/csp.ts). */
function pageCsp(indexHtml) {
  const m = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"/i.exec(indexHtml)
  if (!m) throw new Error('buildDemo: appDir/index.html has no Content-Security-Policy <meta> tag')
  return m[1].replaceAll('&#39;', "'").replaceAll('&quot;', '"').replaceAll('&amp;', '&')
}

/** `_headers` for every path: the page server's headers (PAGE_HEADERS). */
export function headersFile(csp) {
  const headers = {
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Embedder-Policy': 'require-corp',
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
  }
  return `/*\n${Object.entries(headers)
    .map(([k, v]) => `  ${k}: ${v}\n`)
    .join('')}`
}

/** The page element, which the demo's index.html points at the tables' index. */
const APP_TAG = '<st-app>'

/**
 * What `tableDir`'s `_delta_log/` holds, as the index carries it (src/table/listing.ts IndexedLog):
 * the first and last commit versions and the `_last_checkpoint` body, if any.
 */
export function indexedLog(tableDir) {
  const log = join(tableDir, '_delta_log')
  const versions = readdirSync(log)
    .map(name => /^(\d{20})\.json$/.exec(name))
    .filter(m => m !== null)
    .map(m => Number(m[1]))
    .sort((a, b) => a - b)
  if (!versions.length) throw new Error(`buildDemo: ${log} holds no commit`)
  const [earliest, latest] = [versions[0], versions[versions.length - 1]]
  if (latest - earliest + 1 !== versions.length) throw new Error(`buildDemo: ${log} has a version gap`)
  const hint = join(log, '_last_checkpoint')
  return existsSync(hint)
    ? { earliest, latest, lastCheckpoint: JSON.parse(readFileSync(hint, 'utf8')) }
    : { earliest, latest }
}

/** The built index.html with the page pointed at `tables/index.json`. */
export function demoIndexHtml(html) {
  if (!html.includes(APP_TAG)) throw new Error(`buildDemo: appDir/index.html has no ${APP_TAG} element`)
  return html.replace(APP_TAG, '<st-app tables-url="tables/index.json">')
}

/** Runs the sample-table generator (TypeScript, through tsx) into `outDir`. */
function generateTables(outDir) {
  execFileSync(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'tools', 'datagen', 'run.ts'),
      '--out',
      outDir,
      '--rows',
      String(DEMO_ROWS.clicks),
      '--marketing-rows',
      String(DEMO_ROWS.marketing),
      '--tables',
      DEMO_TABLES.join(','),
    ],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
  )
}

/**
 * Builds the demo folder `outDir` from the built app in `appDir`.
 * @param {{ appDir: string, outDir: string }} opts
 */
export async function buildDemo({ appDir, outDir }) {
  const app = resolve(ROOT, appDir)
  const out = resolve(ROOT, outDir)
  if (!existsSync(join(app, 'index.html')))
    throw new Error(`buildDemo: appDir ${app} has no index.html (build the app first)`)
  const staged = `${out}.staging-${process.pid}`
  rmSync(staged, { recursive: true, force: true })
  try {
    cpSync(app, staged, { recursive: true })
    // The app build has no tables; whatever a `tables/` folder of its own held is replaced.
    const tables = join(staged, 'tables')
    rmSync(tables, { recursive: true, force: true })
    generateTables(tables)
    const index = { tables: DEMO_TABLES.map(name => ({ name, log: indexedLog(join(tables, name)) })) }
    writeFileSync(join(tables, 'index.json'), `${JSON.stringify(index)}\n`)
    const html = readFileSync(join(staged, 'index.html'), 'utf8')
    writeFileSync(join(staged, 'index.html'), demoIndexHtml(html))
    writeFileSync(join(staged, '_headers'), headersFile(pageCsp(html)))
    const old = `${out}.old-${process.pid}`
    if (existsSync(out)) renameSync(out, old)
    renameSync(staged, out)
    rmSync(old, { recursive: true, force: true })
  } finally {
    rmSync(staged, { recursive: true, force: true })
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildDemo({ appDir: 'dist/app', outDir: 'dist/demo' })
}
