/**
 * `snaptrain scan` of governed tables through the SigV4-verifying S3 test server and the
 * Unity-Catalog-like server, in-process (main with a captured io, the AWS_* and SNAPTRAIN_UC_*
 * environment set for the run): `s3://bucket/prefix` with the shared credentials file and
 * `uc:catalog.schema.table` with vended credentials print exactly the rows of scanning the same
 * folder directly, also when the credentials expire in the middle of the scan. Bad input (a secret
 * storage refuses, expired credentials with nothing newer, a refused catalog token, an unknown
 * catalog table, no catalog token) exits non-zero with one stderr line naming it and no rows.
 *
 * Why a gate in front of the S3 server: to expire credentials mid-scan without timing the scan,
 * it holds the first data-file request until the credentials it was signed with have expired
 * (and, where the test says so, the credentials file holds fresh ones), then lets it through.
 */
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { REPO, runMain, type CliResult } from '../../support/cli.ts'
import { type S3Credentials, type S3Server, startS3Server } from '../../support/s3-server.ts'
import { startUcServer, type UcServer } from '../../support/uc-server.ts'

/** The tables, as the bucket's key prefixes → their folders in the repository. */
const TABLES = {
  'tables/dv': 'tests/conformance/golden/basic-dv-with-checkpoint',
  'tables/parts': 'tests/conformance/dat/multi_partitioned/delta',
}
/**
 * Lifetime (s) of the credentials that expire during a scan: longer than the scan takes to reach
 * its first data file, where the gate holds it.
 */
const SHORT_S = 1.5
const UC_TOKEN = 'uc-s3cret-t0ken-91f'

let dir: string
let s3: S3Server
let uc: UcServer
let gate: Gate
/** The direct scan of each table's folder, by key prefix. */
const direct: Record<string, CliResult> = {}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'snaptrain-s3-cli-'))
  const bucket = join(dir, 'bucket')
  for (const [key, folder] of Object.entries(TABLES)) {
    await cp(join(REPO, folder), join(bucket, key), { recursive: true })
  }
  s3 = await startS3Server({ root: bucket })
  gate = await startGate(s3.endpoint)
  uc = await startUcServer({
    s3,
    tables: { 'main.web.dv': 'tables/dv', 'main.web.parts': 'tables/parts' },
    token: UC_TOKEN,
    credentialLifetimeS: 3600,
  })
  for (const key of Object.keys(TABLES)) {
    direct[key] = await runMain(['scan', '--table', join(bucket, key), '--format', 'jsonl', '--json'])
    expect(direct[key].code, direct[key].stderr).toBe(0)
  }
})

afterAll(async () => {
  await gate?.close()
  await uc?.close()
  await s3?.close()
  await rm(dir, { recursive: true, force: true })
})

beforeEach(() => {
  s3.log.length = 0
  uc.log.length = 0
  gate.headers.length = 0
  uc.setCredentialLifetime(3600)
})

/**
 * The AWS environment of a run: the gate as the bucket's endpoint, no key in the environment
 * unless `vars` sets one, and the shared files in the test folder (never this machine's own).
 */
function awsEnv(vars: Record<string, string> = {}): Record<string, string> {
  return {
    AWS_ACCESS_KEY_ID: '',
    AWS_SECRET_ACCESS_KEY: '',
    AWS_SESSION_TOKEN: '',
    AWS_CREDENTIAL_EXPIRATION: '',
    AWS_PROFILE: '',
    AWS_REGION: '',
    AWS_DEFAULT_REGION: '',
    AWS_ENDPOINT_URL: '',
    AWS_ENDPOINT_URL_S3: gate.endpoint,
    AWS_SHARED_CREDENTIALS_FILE: join(dir, 'credentials'),
    AWS_CONFIG_FILE: join(dir, 'no-config'),
    SNAPTRAIN_UC_ENDPOINT: '',
    SNAPTRAIN_UC_TOKEN: '',
    ...vars,
  }
}

/** The catalog's environment: its endpoint and token, and the gate as the bucket's endpoint. */
function ucEnv(vars: Record<string, string> = {}): Record<string, string> {
  return awsEnv({ SNAPTRAIN_UC_ENDPOINT: uc.endpoint, SNAPTRAIN_UC_TOKEN: UC_TOKEN, ...vars })
}

/** Writes the shared credentials file with `c` as the default profile, as `aws configure` would. */
async function writeCredentialsFile(c: S3Credentials): Promise<void> {
  const lines = ['[default]', `aws_access_key_id = ${c.accessKeyId}`, `aws_secret_access_key = ${c.secretAccessKey}`]
  if (c.sessionToken) lines.push(`aws_session_token = ${c.sessionToken}`)
  await writeFile(join(dir, 'credentials'), lines.join('\n') + '\n')
}

function scan(table: string, env: Record<string, string>): Promise<CliResult> {
  return runMain(['scan', '--table', table, '--format', 'jsonl', '--json'], env)
}

/** The run printed exactly the direct scan's rows and summary (but for how it names the table). */
function expectSameScan(r: CliResult, key: keyof typeof TABLES, display: string): void {
  expect(r.code, r.stderr).toBe(0)
  expect(r.stderr).toBe('')
  const lines = r.stdout.trimEnd().split('\n')
  const want = direct[key].stdout.trimEnd().split('\n')
  expect(lines.length).toBe(want.length)
  expect(lines.slice(0, -1)).toEqual(want.slice(0, -1))
  expect(JSON.parse(lines.at(-1)!)).toEqual({ ...JSON.parse(want.at(-1)!), table: display })
}

/** Every request storage saw was signed with one of `keys`, and no request carried the catalog's token. */
function expectSignedWith(keys: Set<string>): void {
  expect(s3.log.length).toBeGreaterThan(0)
  for (const e of s3.log) expect(keys.has(e.accessKeyId ?? 'unsigned'), `${e.method} ${e.path}`).toBe(true)
  expect(gate.headers.length).toBe(s3.log.length)
  for (const h of gate.headers) expect(h).not.toContain(UC_TOKEN)
}

/**
 * Stops the clock (Date: credential expiry and signature times of the servers and of the in-process
 * CLI alike) for a test that expires credentials mid-run, so a loaded machine cannot expire them
 * early; timers keep running. Restarted after each test.
 */
function stopClock(): void {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() })
}
afterEach(() => {
  vi.useRealTimers()
})

/** Moves the stopped clock past the expiry of the credentials of `c`. */
function pastExpiry(c: { expiration?: string } | number): void {
  if (!vi.isFakeTimers()) throw new Error('pastExpiry: stopClock() first')
  vi.setSystemTime((typeof c === 'number' ? c : Date.parse(c.expiration!)) + 30)
}

/** The first data file (not the log) requested: where a scan is held while its credentials expire. */
const dataFile = (path: string) => path.endsWith('.parquet') && !path.includes('/_delta_log/')

/**
 * Starts a scan and resolves once the gate holds its first data-file request; `release` lets it
 * through. A scan that ends before (it failed) fails the test instead of leaving it waiting.
 */
async function heldScan(table: string, env: Record<string, string>) {
  const held = gate.hold(dataFile)
  const run = scan(table, env)
  const ended = run.then(r => {
    throw new Error(`the scan ended before reading a data file (exit ${r.code}): ${r.stderr}`)
  })
  await Promise.race([held.arrived, ended])
  ended.catch(() => undefined)
  return { run, release: held.release }
}

describe('scan --table s3://bucket/prefix (shared credentials file)', () => {
  it('reads both tables exactly as their folders, signing every request with the file’s key', async () => {
    const key = s3.issueCredentials(3600)
    await writeCredentialsFile(key)
    for (const prefix of Object.keys(TABLES) as Array<keyof typeof TABLES>) {
      const location = `s3://${s3.bucket}/${prefix}`
      expectSameScan(await scan(location, awsEnv()), prefix, location)
    }
    expectSignedWith(new Set([key.accessKeyId]))
    expect(s3.log.every(e => e.status < 300)).toBe(true)
    // Both the listing (`_delta_log/` at the bucket root) and the partition folders with escapes and emoji.
    expect(s3.log.some(e => e.query.includes('list-type=2'))).toBe(true)
    expect(s3.log.some(e => e.path.includes('/letter=%2F%2520%25f/'))).toBe(true)
    expect(s3.log.some(e => e.path.includes('/data=😈/'))).toBe(true)
  })

  it('credentials that expire mid-scan are renewed from the rewritten file', async () => {
    stopClock()
    const first = s3.issueCredentials(SHORT_S)
    await writeCredentialsFile(first)
    const { run, release } = await heldScan(`s3://${s3.bucket}/tables/dv`, awsEnv())
    const second = s3.issueCredentials(3600)
    await writeCredentialsFile(second) // what `aws sso login` or a credential refresher does
    pastExpiry(first)
    release()
    expectSameScan(await run, 'tables/dv', `s3://${s3.bucket}/tables/dv`)
    expectSignedWith(new Set([first.accessKeyId, second.accessKeyId]))
    // From storage's first refusal on, the old key is refused as expired and the new one answered.
    const from = s3.log.findIndex(e => e.code === 'ExpiredToken')
    expect(from).toBeGreaterThan(0)
    for (const e of s3.log.slice(from)) {
      const where = `${e.method} ${e.path}`
      if (e.code === 'ExpiredToken') expect(e.accessKeyId, where).toBe(first.accessKeyId)
      else expect([e.accessKeyId, e.status < 300], where).toEqual([second.accessKeyId, true])
    }
    expect(s3.log.some(e => e.accessKeyId === second.accessKeyId)).toBe(true)
  })
})

describe('scan --table uc:catalog.schema.table (vended credentials)', () => {
  it('reads both tables exactly as their folders; the token goes to the catalog only', async () => {
    for (const [name, prefix] of [
      ['main.web.dv', 'tables/dv'],
      ['main.web.parts', 'tables/parts'],
    ] as const) {
      expectSameScan(await scan(`uc:${name}`, ucEnv()), prefix, `uc:${name}`)
    }
    const vended = new Set(s3.log.map(e => e.accessKeyId!))
    expect(vended.size).toBe(2) // one vending per table
    expectSignedWith(vended)
    expect(uc.log.length).toBeGreaterThan(0)
    for (const e of uc.log) expect(e.authorization).toBe(`Bearer ${UC_TOKEN}`)
  })

  it('re-vends credentials that expire mid-scan', async () => {
    stopClock()
    uc.setCredentialLifetime(SHORT_S)
    const { run, release } = await heldScan('uc:main.web.dv', ucEnv())
    // Every key vended so far (usually one; more if the scan renewed ahead of expiry) has expired.
    const vendings = uc.log.filter(e => e.path.endsWith('/temporary-table-credentials'))
    pastExpiry(Math.max(...vendings.map(e => e.at)) + SHORT_S * 1000)
    release()
    expectSameScan(await run, 'tables/dv', 'uc:main.web.dv')
    const keys = new Set(s3.log.map(e => e.accessKeyId!))
    expect(keys.size).toBeGreaterThanOrEqual(2)
    expect(uc.log.filter(e => e.path.endsWith('/temporary-table-credentials')).length).toBe(keys.size)
    expectSignedWith(keys)
  })
})

describe('bad input: exit ≠ 0, one stderr line naming the cause, no rows', () => {
  /** A failed run: its code, no stdout, one stderr line matching `message`, and no secret in it. */
  function expectRefused(r: CliResult, code: number, message: RegExp, secrets: string[] = []): void {
    expect(r.code, r.stderr).toBe(code)
    expect(r.stdout).toBe('')
    expect(r.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(message)])
    for (const s of secrets) expect(r.stderr).not.toContain(s)
  }

  it('a secret storage refuses (SignatureDoesNotMatch)', async () => {
    const { accessKeyId } = s3.permanentCredentials
    const wrong = 'wR0ng/s3cret/0f+the+right+length+xxxxxx'
    const r = await scan(
      `s3://${s3.bucket}/tables/dv`,
      awsEnv({ AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: wrong }),
    )
    expectRefused(r, 1, /tables\/dv\/_delta_log\/\S*: 403 Forbidden \(SignatureDoesNotMatch: /, [wrong])
    expect(s3.log.filter(e => e.status < 300)).toEqual([])
  })

  it('credentials that expire mid-scan while the file holds no newer ones', async () => {
    stopClock()
    const only = s3.issueCredentials(SHORT_S)
    await writeCredentialsFile(only)
    const { run, release } = await heldScan(`s3://${s3.bucket}/tables/dv`, awsEnv())
    pastExpiry(only)
    release()
    expectRefused(await run, 1, /tables\/dv.*expired.*no newer ones/, [only.secretAccessKey, only.sessionToken!])
    expect(s3.log.filter(e => e.code === 'ExpiredToken').length).toBeGreaterThan(0)
  })

  it('expired credentials in the environment', async () => {
    stopClock()
    const old = s3.issueCredentials(0.05)
    pastExpiry(old)
    const r = await scan(
      `s3://${s3.bucket}/tables/dv`,
      awsEnv({
        AWS_ACCESS_KEY_ID: old.accessKeyId,
        AWS_SECRET_ACCESS_KEY: old.secretAccessKey,
        AWS_SESSION_TOKEN: old.sessionToken!,
        AWS_CREDENTIAL_EXPIRATION: old.expiration!,
      }),
    )
    expectRefused(r, 1, /tables\/dv.*expired at/, [old.secretAccessKey, old.sessionToken!])
  })

  it('a catalog token the catalog refuses (401)', async () => {
    const r = await scan('uc:main.web.dv', ucEnv({ SNAPTRAIN_UC_TOKEN: 'not-the-token' }))
    expectRefused(r, 1, /main\.web\.dv.*refused the token.*401/, ['not-the-token'])
    expect(s3.log).toEqual([])
  })

  it('a table the catalog does not have (404)', async () => {
    const r = await scan('uc:main.web.nosuch', ucEnv())
    expectRefused(r, 1, /main\.web\.nosuch.*no such table in the catalog.*404/, [UC_TOKEN])
    expect(s3.log).toEqual([])
  })

  it('no SNAPTRAIN_UC_TOKEN', async () => {
    const r = await scan('uc:main.web.dv', ucEnv({ SNAPTRAIN_UC_TOKEN: '' }))
    expectRefused(r, 2, /uc:main\.web\.dv.*SNAPTRAIN_UC_TOKEN/)
    expect(uc.log).toEqual([])
  })
})

/** A forwarding proxy in front of the S3 server that can hold one request until told to let it through. */
interface Gate {
  /** 'http://127.0.0.1:PORT/': use it as the bucket's endpoint. */
  endpoint: string
  /** Each forwarded request's raw headers, as one string. */
  headers: string[]
  /** Holds the next request whose path matches until `release()`; `arrived` resolves when it came. */
  hold(match: (path: string) => boolean): { arrived: Promise<void>; release(): void }
  close(): Promise<void>
}

async function startGate(target: string): Promise<Gate> {
  const upstream = new URL(target)
  let holding: { match: (path: string) => boolean; arrive: () => void; released: Promise<void> } | undefined
  const headers: string[] = []
  const sockets = new Set<Socket>()
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    // Headers as they came, Host included: the signature covers it.
    const out = request({
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: req.headers,
    })
    out.on('response', answer => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    out.on('error', () => res.destroy())
    req.pipe(out)
  }
  const server = createServer(async (req, res) => {
    headers.push(req.rawHeaders.join('\n'))
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)
    const hold = holding
    if (hold?.match(path)) {
      holding = undefined
      hold.arrive()
      await hold.released
    }
    forward(req, res)
  })
  server.on('connection', s => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  return {
    endpoint: `http://127.0.0.1:${port}/`,
    headers,
    hold(match) {
      let arrive!: () => void
      let release!: () => void
      const arrived = new Promise<void>(r => (arrive = r))
      const released = new Promise<void>(r => (release = r))
      holding = { match, arrive, released }
      return { arrived, release }
    },
    close: () =>
      new Promise<void>(resolve => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}
