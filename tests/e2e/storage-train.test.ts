/**
 * Training and sweeping governed tables in the page, in-process (main with a captured io, one
 * page server and headless Chromium for the file): `train` through Unity Catalog with vended
 * credentials that expire and are re-vended during the run, and `sweep` through `s3://` with the
 * AWS environment, each against the SigV4-verifying S3 test server, give the same model, metrics
 * and trials as the same runs on the table's folder. The page reads the table through the CLI's
 * local storage proxy: no key, secret, session token or catalog token reaches the page (none of
 * its requests carries one, none goes to the S3 or catalog server) or any output.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { launchBrowser } from '../../src/cli/launch.ts'
import { useAppPageHost } from '../../src/cli/page-run.ts'
import { startPageServer, type PageServer } from '../../src/serve/page-server.ts'
import { importSweep } from '../../src/tune/export.ts'
import { REPO, runMain, type CliResult } from '../support/cli.ts'
import { type S3Credentials, type S3Server, startS3Server } from '../support/s3-server.ts'
import { startUcServer, type UcServer } from '../support/uc-server.ts'

const UC_TOKEN = 'uc-tr41n-t0ken-5e2'
/** Lifetime (s) of vended credentials: a run outlives a few of them. */
const VENDED_S = 2
/**
 * The train run. The reference backend: the storage path is the same on either backend, and it
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

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'snaptrain-storage-train-'))
  bucket = join(dir, 'bucket')
  await cp(join(REPO, 'public/tables/marketing'), join(bucket, 'tables/marketing'), { recursive: true })
  s3 = await startS3Server({ root: bucket })
  const issue = s3.issueCredentials.bind(s3)
  s3.issueCredentials = (lifetimeS, scope) => {
    const c = issue(lifetimeS, scope)
    issued.push(c)
    return c
  }
  uc = await startUcServer({
    s3,
    tables: { 'main.web.marketing': 'tables/marketing' },
    token: UC_TOKEN,
    credentialLifetimeS: VENDED_S,
  })
  ;[server, browser] = await Promise.all([startPageServer({ hmr: false }), launchBrowser()])
  useAppPageHost({
    url: server.url,
    newPage: async () => {
      const page = await browser.newPage()
      const requests: string[] = []
      pages.push(requests)
      page.context().on('request', r => requests.push(`${r.url()} ${JSON.stringify(r.headers())}`))
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
  pages.length = 0
})

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

/**
 * Runs the command on the table's folder, then on the governed table (one environment for both:
 * the folder run reads none of it), with `--out <dir>/<name>-folder` and `<name>-governed`. One
 * after the other: side by side, the two pages share the machine's cores and both take longer.
 */
async function runPair(
  name: string,
  args: (table: string) => string[],
  governed: string,
  vars: Record<string, string>,
): Promise<{ folder: string; governed: string; r: CliResult }> {
  const out = { folder: join(dir, `${name}-folder`), governed: join(dir, `${name}-governed`) }
  const a = await runMain([...args(join(bucket, 'tables/marketing')), '--out', out.folder], env(vars))
  const b = await runMain([...args(governed), '--out', out.governed, '--json'], env(vars))
  expect(a.code, a.stderr).toBe(0)
  expect(b.code, b.stderr).toBe(0)
  return { ...out, r: b }
}

/**
 * No secret in what the governed run left for the user (stdout, stderr, the files in `out`), and
 * none in what its page asked for; the page asked its own origin only (the storage proxy), never
 * storage or the catalog.
 */
async function expectNoSecrets(r: CliResult, out: string, files: string[]): Promise<void> {
  const secrets = [UC_TOKEN, ...issued.flatMap(c => [c.secretAccessKey, c.sessionToken ?? ''].filter(Boolean))]
  const page = pages.filter(p => p.some(q => q.includes('/__snaptrain/storage/')))
  expect(page).toHaveLength(1)
  const texts = await Promise.all(files.map(f => readFile(join(out, f), 'latin1')))
  for (const text of [r.stdout, r.stderr, ...texts, ...page[0]]) {
    for (const s of secrets) expect(text.includes(s), `a secret starting ${s.slice(0, 4)}`).toBe(false)
  }
  for (const q of page[0]) expect(/^(data:|blob:)/.test(q) || q.startsWith(server.url), q).toBe(true)
}

/**
 * Every request storage saw was signed and none was refused (a 404 is the page probing for log
 * files it cannot list); returns the distinct access key ids.
 */
function signingKeys(): Set<string> {
  expect(s3.log.length).toBeGreaterThan(0)
  for (const e of s3.log) {
    expect(e.accessKeyId, `${e.method} ${e.path}`).toMatch(/^A[SK]IA/)
    expect(e.status < 300 || e.code === 'NoSuchKey', `${e.method} ${e.path}: ${e.status} ${e.code}`).toBe(true)
  }
  return new Set(s3.log.map(e => e.accessKeyId!))
}

describe('train --model gbdt through Unity Catalog', () => {
  it('re-vended credentials mid-run; model.json and metrics.csv byte-identical to the folder run', async () => {
    const run = await runPair('gbdt', table => ['train', '--table', table, ...GBDT], 'uc:main.web.marketing', {
      SNAPTRAIN_UC_ENDPOINT: uc.endpoint,
      SNAPTRAIN_UC_TOKEN: UC_TOKEN,
    })
    for (const name of ['model.json', 'metrics.csv']) {
      expect(await readFile(join(run.governed, name)), name).toEqual(await readFile(join(run.folder, name)))
    }
    const metrics = (await readFile(join(run.governed, 'metrics.csv'), 'utf8')).trim().split(/\r?\n/)
    expect(metrics).toHaveLength(4) // a header and three rounds, with the validation AUC
    expect(metrics[0]).toMatch(/auc/)
    // The manifests differ only where they name the table and the run's time.
    const manifest = async (out: string) => {
      const { created, train_seconds, table, ...rest } = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'))
      const { url, path, digest, ...snapshot } = table
      return { path, manifest: { ...rest, table: snapshot } }
    }
    const [want, got] = [await manifest(run.folder), await manifest(run.governed)]
    expect(got.path).toBe('uc:main.web.marketing')
    expect(got.manifest).toEqual(want.manifest)
    expect(got.manifest.table.rows).toBe(6281)
    expect(signingKeys().size).toBeGreaterThanOrEqual(2) // renewed at least once
    await expectNoSecrets(run.r, run.governed, ['model.json', 'metrics.csv', 'manifest.json'])
  })
})

describe('sweep through s3://', () => {
  it('2 trials: the same trials, metrics and best model as the folder sweep', async () => {
    const space = join(dir, 'space.json')
    await writeFile(space, JSON.stringify({ max_depth: { type: 'int', low: 2, high: 4 }, eta: 0.3, num_round: 2 }))
    const key = s3.issueCredentials(3600)
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
    const run = await runPair('sweep', sweep, `s3://${s3.bucket}/tables/marketing`, {
      AWS_ACCESS_KEY_ID: key.accessKeyId,
      AWS_SECRET_ACCESS_KEY: key.secretAccessKey,
      AWS_SESSION_TOKEN: key.sessionToken!,
      AWS_CREDENTIAL_EXPIRATION: key.expiration!,
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
    expect(signingKeys()).toEqual(new Set([key.accessKeyId]))
    await expectNoSecrets(run.r, run.governed, ['sweep.json', 'trials.csv', 'model.json', 'manifest.json'])
  })
})
