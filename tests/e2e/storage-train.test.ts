/**
 * Training and sweeping governed tables in the page, in-process (main with a captured io, one
 * page server and headless Chromium for the file): `train --model gbdt` and `train --model recsys`
 * through Unity Catalog with vended credentials, and `sweep` through `s3://` with the shared
 * credentials file, each against the SigV4-verifying S3 test server, give the same model, metrics
 * and trials as the same runs on the table's folder, and manifests and sweep.json that name the table
 * as the user did (`uc:…`, `s3://…`) with the folder run's digest. The page reads the table through the CLI's
 * local storage proxy and finds its log by listing `_delta_log/` through it (no probing); no key,
 * secret, session token or catalog token reaches the page (none of its requests carries one, none
 * goes to the S3 or catalog server) or any output.
 *
 * Why the page's first data-file request is held: to expire the run's credentials mid-run without
 * timing the run, it goes on only once every credential the run signed with so far has expired
 * (for the sweep, once the credentials file holds fresh ones), so the proxy must renew them.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Browser, Route } from 'playwright-core'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { launchBrowser } from '../../src/cli/launch.ts'
import { useAppPageHost } from '../../src/cli/page-run.ts'
import { parseMetricsCsv } from '../../src/run/manifest.ts'
import { startPageServer, type PageServer } from '../../src/serve/page-server.ts'
import { importSweep } from '../../src/tune/export.ts'
import { REPO, runMain, type CliResult } from '../support/cli.ts'
import { type S3Credentials, type S3Server, startS3Server } from '../support/s3-server.ts'
import { startUcServer, type UcServer } from '../support/uc-server.ts'

const UC_TOKEN = 'uc-tr41n-t0ken-5e2'
/** Lifetime (s) of vended credentials (renewed halfway): the page's held request outlives them. */
const VENDED_S = 2
/** Lifetime (s) of the sweep's first credentials: longer than the run takes to open the table in Node, also on a loaded machine. */
const FILE_S = 5
/** The page's requests through the storage proxy: its files, and its listing at the page server's root. */
const PROXY = '/__snaptrain/storage/'
/**
 * The train runs. The reference backend: the storage path is the same on either backend, and it
 * trains these rows in a fraction of WebGPU's time on a machine without a GPU (the sweep below
 * trains on WebGPU).
 */
const GBDT = [
  '--label',
  'y',
  '--features',
  'age,balance,job,day',
  '--filter',
  'age < 30',
  '--valid-fraction',
  '0.2',
  '--params',
  '{"num_round":3,"max_depth":3}',
  '--backend',
  'cpu',
]
const RECSYS_PARAMS = { epochs: 1, batch_size: 512, embedding_dim: 4, layers: [16], lr: 0.01, eval_every: 4 }
const RECSYS = [
  '--label',
  'label',
  '--valid-fraction',
  '0.2',
  '--seed',
  '3',
  '--params',
  JSON.stringify(RECSYS_PARAMS),
  '--backend',
  'cpu',
]

let dir: string
let bucket: string
let s3: S3Server
let uc: UcServer
let server: PageServer
let browser: Browser
/** Every credential the S3 server issued (vended or handed to a run). */
const issued: S3Credentials[] = []
/** Each page's requests (its workers' too) since the test began: URL and headers, one string each. */
const pages: string[][] = []

/** What a page does with its requests through the storage proxy (the test's; none: let them through). */
interface Hold {
  /** Before the page's first request through the proxy (its listing) goes on. */
  first?: () => Promise<void>
  /** ms since the epoch until which the page's first data-file request through the proxy waits. */
  until: () => number
}
let hold: Hold | undefined

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'snaptrain-storage-train-'))
  bucket = join(dir, 'bucket')
  await cp(join(REPO, 'public/tables/marketing'), join(bucket, 'tables/marketing'), { recursive: true })
  // A small clicks table (three versions, the last deletes rows) keeps the recommender's run short.
  const gen = await runMain(['data', '--out', join(bucket, 'tables'), '--tables', 'clicks', '--rows', '3000'])
  expect(gen.code, gen.stderr).toBe(0)
  s3 = await startS3Server({ root: bucket })
  const issue = s3.issueCredentials.bind(s3)
  s3.issueCredentials = (lifetimeS, scope) => {
    const c = issue(lifetimeS, scope)
    issued.push(c)
    return c
  }
  uc = await startUcServer({
    s3,
    tables: { 'main.web.marketing': 'tables/marketing', 'main.web.clicks': 'tables/clicks' },
    token: UC_TOKEN,
    credentialLifetimeS: VENDED_S,
  })
  ;[server, browser] = await Promise.all([startPageServer(), launchBrowser()])
  useAppPageHost({
    url: server.url,
    newPage: async () => {
      const page = await browser.newPage()
      const requests: string[] = []
      pages.push(requests)
      page.context().on('request', r => requests.push(`${r.url()} ${JSON.stringify(r.headers())}`))
      await page.route(throughProxy, holding())
      return page
    },
  })
}, 120_000)

afterAll(async () => {
  useAppPageHost(undefined)
  await browser?.close()
  await server?.close()
  await uc?.close()
  await s3?.close()
  await rm(dir, { recursive: true, force: true })
})

beforeEach(() => {
  s3.log.length = 0
  uc.log.length = 0
  pages.length = 0
  hold = undefined
})

/** A request of the page through the storage proxy: a file under its path, or its listing at the root. */
function throughProxy(url: URL): boolean {
  return url.pathname.startsWith(PROXY) || (url.searchParams.get('prefix') ?? '').startsWith(PROXY.slice(1))
}

/** One page's route handler: what `hold` says, once per page; every other request goes on at once. */
function holding(): (route: Route) => Promise<void> {
  let listed = false
  let held = false
  return async route => {
    const path = new URL(route.request().url()).pathname
    if (hold && !listed) {
      listed = true
      await hold.first?.()
    }
    if (hold && !held && path.endsWith('.parquet') && !path.includes('/_delta_log/')) {
      held = true
      const until = hold.until()
      while (Date.now() <= until) await new Promise(r => setTimeout(r, until + 10 - Date.now()))
    }
    // The run may have ended (and closed its page) meanwhile: nothing left to continue.
    await route.continue().catch(() => undefined)
  }
}

/** A hold until every credential the catalog vended so far has expired. */
function vendedExpired(): Hold {
  const vendings = () => uc.log.filter(e => e.path.endsWith('/temporary-table-credentials')).map(e => e.at)
  return { until: () => Math.max(...vendings()) + VENDED_S * 1000 }
}

/** The environment of a governed run: nothing from this machine's AWS setup, plus `vars`. */
function env(vars: Record<string, string>): Record<string, string> {
  return {
    AWS_ACCESS_KEY_ID: '',
    AWS_SECRET_ACCESS_KEY: '',
    AWS_SESSION_TOKEN: '',
    AWS_CREDENTIAL_EXPIRATION: '',
    AWS_PROFILE: '',
    AWS_REGION: '',
    AWS_DEFAULT_REGION: '',
    AWS_ENDPOINT_URL: '',
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-credentials'),
    AWS_CONFIG_FILE: join(dir, 'no-config'),
    SNAPTRAIN_UC_ENDPOINT: '',
    SNAPTRAIN_UC_TOKEN: '',
    ...vars,
  }
}

/** The catalog's environment: its endpoint and token. */
function ucEnv(): Record<string, string> {
  return env({ SNAPTRAIN_UC_ENDPOINT: uc.endpoint, SNAPTRAIN_UC_TOKEN: UC_TOKEN })
}

/** Writes the shared credentials file with `c` as the default profile, as `aws configure` would. */
async function writeCredentialsFile(c: S3Credentials): Promise<void> {
  const lines = ['[default]', `aws_access_key_id = ${c.accessKeyId}`, `aws_secret_access_key = ${c.secretAccessKey}`]
  if (c.sessionToken) lines.push(`aws_session_token = ${c.sessionToken}`)
  await writeFile(join(dir, 'credentials'), lines.join('\n') + '\n')
}

/**
 * Runs the command on the table's folder (`tables/<table>` in the bucket) and on the governed
 * table at the same time (one environment for both: the folder run reads none of it, and reaches
 * neither server, so their logs are the governed run's), with `--out <dir>/<name>-folder` and
 * `<name>-governed`; the governed run's page is held as `how` says.
 */
async function runPair(
  name: string,
  table: string,
  args: (table: string) => string[],
  governed: string,
  vars: Record<string, string>,
  how: Hold,
): Promise<{ folder: string; governed: string; r: CliResult }> {
  const out = { folder: join(dir, `${name}-folder`), governed: join(dir, `${name}-governed`) }
  hold = how
  const [a, b] = await Promise.all([
    runMain([...args(join(bucket, 'tables', table)), '--out', out.folder], vars),
    runMain([...args(governed), '--out', out.governed, '--json'], vars),
  ])
  expect(a.code, a.stderr).toBe(0)
  expect(b.code, b.stderr).toBe(0)
  return { ...out, r: b }
}

/** The requests of the governed run's page (the one that asked the storage proxy): URL and headers. */
function governedPage(): string[] {
  const page = pages.filter(p => p.some(q => q.includes(PROXY)))
  expect(page).toHaveLength(1)
  return page[0]
}

/**
 * No secret in what the governed run left for the user (stdout, stderr, the files in `out`), and
 * none in what its page asked for; the page asked its own origin only (the storage proxy), never
 * storage or the catalog.
 */
async function expectNoSecrets(r: CliResult, out: string, files: string[]): Promise<void> {
  const secrets = [UC_TOKEN, ...issued.flatMap(c => [c.secretAccessKey, c.sessionToken ?? ''].filter(Boolean))]
  const page = governedPage()
  const texts = await Promise.all(files.map(f => readFile(join(out, f), 'latin1')))
  for (const text of [r.stdout, r.stderr, ...texts, ...page]) {
    for (const s of secrets) expect(text.includes(s), `a secret starting ${s.slice(0, 4)}`).toBe(false)
  }
  for (const q of page) expect(/^(data:|blob:)/.test(q) || q.startsWith(server.url), q).toBe(true)
}

/**
 * Every request storage saw was signed with a key it issued, asked for something that is there (no
 * 404: nothing probed) and was answered, but for requests signed with one of `expired` and refused
 * as ExpiredToken; returns the distinct access key ids.
 */
function signingKeys(expired: string[] = []): Set<string> {
  expect(s3.log.length).toBeGreaterThan(0)
  const keys = new Set(issued.map(c => c.accessKeyId))
  for (const e of s3.log) {
    const where = `${e.method} ${e.path}?${e.query}: ${e.status} ${e.code ?? ''}`
    expect(keys.has(e.accessKeyId ?? 'unsigned'), where).toBe(true)
    const refusedAsExpired = e.code === 'ExpiredToken' && expired.includes(e.accessKeyId!)
    expect(e.status < 300 || refusedAsExpired, where).toBe(true)
  }
  return new Set(s3.log.map(e => e.accessKeyId!))
}

/** Every access key issued so far (the catalog's vended ones, in the Unity Catalog tests). */
function vendedKeys(): string[] {
  return issued.map(c => c.accessKeyId)
}

/**
 * The page found the table's log by listing it through the proxy: it asked its own root for a
 * ListObjectsV2 of `_delta_log/` under its proxy path, storage answered a signed ListObjectsV2 of
 * the table's own prefix, and the log files the page read are the table's `versions` commits,
 * never a name it had to guess (`_last_checkpoint`, the commit after the last one).
 */
function expectListedLog(table: string, versions: number): void {
  const page = governedPage().map(q => new URL(q.slice(0, q.indexOf(' '))))
  const listings = page.filter(u => u.searchParams.get('list-type') === '2' && throughProxy(u))
  expect(listings.length).toBeGreaterThan(0)
  for (const u of listings) expect(u.searchParams.get('prefix')).toMatch(/^__snaptrain\/storage\/[^/]+\/_delta_log\/$/)
  const listed = s3.log.filter(e => e.path === '/' && new URLSearchParams(e.query).get('list-type') === '2')
  expect(listed.map(e => new URLSearchParams(e.query).get('prefix'))).toContain(`tables/${table}/_delta_log/`)
  const commits = Array.from({ length: versions }, (_, v) => `${String(v).padStart(20, '0')}.json`)
  const logFile = (path: string) => path.slice(path.lastIndexOf('/') + 1)
  const read = page.filter(u => u.pathname.startsWith(PROXY) && u.pathname.includes('/_delta_log/'))
  expect([...new Set(read.map(u => logFile(u.pathname)))].sort()).toEqual(commits)
  for (const e of s3.log.filter(e => e.path.includes('/_delta_log/')))
    expect(commits, e.path).toContain(logFile(e.path))
}

/** One round's metrics without the wall-clock one (the recommender's elapsed_seconds). */
async function metricsWithoutTime(out: string): Promise<Array<Record<string, number>>> {
  const rounds = parseMetricsCsv(await readFile(join(out, 'metrics.csv'), 'utf8'))
  return rounds.map(({ elapsed_seconds: _t, ...m }) => m)
}

describe('train through Unity Catalog, the vended credentials expiring mid-run', () => {
  it('gbdt: model.json and metrics.csv byte-identical to the folder run', async () => {
    const train = (table: string) => ['train', '--table', table, ...GBDT]
    const run = await runPair('gbdt', 'marketing', train, 'uc:main.web.marketing', ucEnv(), vendedExpired())
    for (const name of ['model.json', 'metrics.csv']) {
      expect(await readFile(join(run.governed, name)), name).toEqual(await readFile(join(run.folder, name)))
    }
    const metrics = (await readFile(join(run.governed, 'metrics.csv'), 'utf8')).trim().split(/\r?\n/)
    expect(metrics).toHaveLength(4) // a header and three rounds, with the validation AUC
    expect(metrics[0]).toMatch(/auc/)
    // The manifests differ only where they name the table (as the user did, never by the local
    // proxy's port) and the run's time; the digest of what was read is the same.
    const manifest = async (out: string) => {
      const { created, train_seconds, table, ...rest } = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'))
      const { url, path, ...snapshot } = table
      return { url, path, manifest: { ...rest, table: snapshot } }
    }
    const [want, got] = [await manifest(run.folder), await manifest(run.governed)]
    expect(got.path).toBe('uc:main.web.marketing')
    expect(got.url).toBe('uc:main.web.marketing')
    expect(want.url).toBe(`${pathToFileURL(join(bucket, 'tables', 'marketing')).href}/`)
    expect(got.manifest).toEqual(want.manifest)
    expect(got.manifest.table.rows).toBe(6281)
    // Vended keys live 2 s: on a loaded machine a request signed in time may arrive after expiry,
    // and its ExpiredToken is renewed like any other (the models above are the proof it worked).
    expect(signingKeys(vendedKeys()).size).toBeGreaterThanOrEqual(2) // renewed at least once
    expectListedLog('marketing', 1)
    await expectNoSecrets(run.r, run.governed, ['model.json', 'metrics.csv', 'manifest.json'])
  })

  it('recsys: model.bin byte-identical and the same metrics (elapsed time aside) as the folder run', async () => {
    const train = (table: string) => ['train', '--table', table, '--model', 'recsys', ...RECSYS]
    const run = await runPair('recsys', 'clicks', train, 'uc:main.web.clicks', ucEnv(), vendedExpired())
    expect(await readFile(join(run.governed, 'model.bin'))).toEqual(await readFile(join(run.folder, 'model.bin')))
    const want = await metricsWithoutTime(run.folder)
    expect(want.length).toBeGreaterThan(0)
    expect(await metricsWithoutTime(run.governed)).toEqual(want)
    expect(signingKeys(vendedKeys()).size).toBeGreaterThanOrEqual(2)
    expectListedLog('clicks', 3)
    await expectNoSecrets(run.r, run.governed, ['model.bin', 'metrics.csv', 'manifest.json'])
  })
})

describe('sweep through s3://, the credentials expiring mid-run', () => {
  it('2 trials: the same trials, metrics and best model as the folder sweep; renewed from the rewritten file', async () => {
    const space = join(dir, 'space.json')
    await writeFile(space, JSON.stringify({ max_depth: { type: 'int', low: 2, high: 4 }, eta: 0.3, num_round: 2 }))
    const first = s3.issueCredentials(FILE_S)
    await writeCredentialsFile(first)
    let second: S3Credentials | undefined
    const sweep = (table: string) => [
      'sweep',
      '--table',
      table,
      '--label',
      'y',
      '--features',
      'age,balance,job,day',
      '--filter',
      'age < 30',
      '--model',
      'gbdt',
      '--strategy',
      'random',
      '--trials',
      '2',
      '--parallel',
      '1',
      '--seed',
      '3',
      '--space',
      space,
    ]
    const vars = env({ AWS_SHARED_CREDENTIALS_FILE: join(dir, 'credentials') })
    const run = await runPair('sweep', 'marketing', sweep, `s3://${s3.bucket}/tables/marketing`, vars, {
      // The run has read the file by the time its page reads the table; then, as `aws sso login`
      // or a credential refresher would, the file gets fresh credentials.
      first: async () => {
        second = s3.issueCredentials(3600)
        await writeCredentialsFile(second)
      },
      until: () => Date.parse(first.expiration!),
    })
    const trials = async (out: string) =>
      importSweep(await readFile(join(out, 'sweep.json'), 'utf8')).trials.map(t => ({
        config: t.config,
        status: t.status,
        metric: t.metric,
        curve: t.curve.map(p => [p.resource, p.metric]),
      }))
    const want = await trials(run.folder)
    expect(want.map(t => t.status)).toEqual(['completed', 'completed'])
    expect(await trials(run.governed)).toEqual(want)
    expect(await readFile(join(run.governed, 'model.json'))).toEqual(await readFile(join(run.folder, 'model.json')))
    // The first key opened the table, then storage refused it as expired (the page's listing or
    // its held read, whichever came after the expiry) and the file's new one signed the rest.
    expect(signingKeys([first.accessKeyId])).toEqual(new Set([first.accessKeyId, second!.accessKeyId]))
    expect(s3.log[0]).toMatchObject({ accessKeyId: first.accessKeyId, status: 200 })
    const from = s3.log.findIndex(e => e.code === 'ExpiredToken')
    expect(from).toBeGreaterThan(0)
    for (const e of s3.log.slice(from)) {
      if (e.code !== 'ExpiredToken') expect(e.accessKeyId, `${e.method} ${e.path}`).toBe(second!.accessKeyId)
    }
    expectListedLog('marketing', 1)
    await expectNoSecrets(run.r, run.governed, ['sweep.json', 'trials.csv', 'model.json', 'manifest.json'])
    // The sweep and its best trial name the table as the user did, never by the proxy's URL.
    const address = `s3://${s3.bucket}/tables/marketing`
    const stored = importSweep(await readFile(join(run.governed, 'sweep.json'), 'utf8'))
    expect(stored.config).toMatchObject({ table: address, tablePath: address })
    const best = JSON.parse(await readFile(join(run.governed, 'manifest.json'), 'utf8'))
    const folder = JSON.parse(await readFile(join(run.folder, 'manifest.json'), 'utf8'))
    expect(best.table).toMatchObject({ url: address, path: address, digest: folder.table.digest })
    for (const text of [JSON.stringify(stored), JSON.stringify(best)]) expect(text).not.toContain('__snaptrain')
  })
})
