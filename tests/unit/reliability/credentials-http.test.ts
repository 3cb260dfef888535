/**
 * No secret crosses the network in clear (table/http.ts send()): a bearer token, an OAuth client
 * secret, a Unity Catalog token, a SigV4 signature or session token and a pre-signed URL are
 * refused before they are sent to an `http://` host that is not loopback, naming the endpoint and
 * the opt-in; with `allowInsecureHttp` (`--allow-insecure-http`) they are sent. Loopback
 * (127.0.0.0/8, localhost, [::1]) is always allowed.
 *
 * The non-loopback hosts (`*.example`) are reached only through an injected fetch that records
 * what would have been sent, so nothing leaves the machine; the CLI case is refused before any
 * request (no DNS lookup either).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseProfile } from '../../../src/sharing/profile.ts'
import { SharingClient } from '../../../src/sharing/rest.ts'
import { S3Resolver } from '../../../src/storage/s3-resolver.ts'
import { openUnityCatalogTable } from '../../../src/storage/unity-catalog.ts'
import { isLoopback, send } from '../../../src/table/http.ts'
import { TableError, type FetchLike, type HttpOptions } from '../../../src/table/types.ts'
import { parseArgs } from '../../../src/cli/args.ts'
import { checkFlags, SPEC as SWEEP_SPEC } from '../../../src/cli/sweep.ts'
import { dataKey, sweepRunConfig } from '../../../src/sweep/data-cache.ts'
import { runMain } from '../../support/cli.ts'
import { conformanceTable, writeProfile } from '../../support/share-fixture.ts'
import { startSharingServer, type SharingServer } from '../../support/sharing-server.ts'

const TOKEN = 'bearer-7c1d-secret'
const CLIENT_SECRET = 'oauth-client-s3cret-42'
const SESSION = 'session-token-9e0a'

/** A fetch that records each URL and its headers, and answers `body` (200). */
function recorder(body = '{"items":[]}') {
  const sent: Array<{ url: string; headers: Headers }> = []
  const fetch: FetchLike = async (url, init) => {
    sent.push({ url, headers: new Headers(init?.headers) })
    return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } })
  }
  return { fetch, sent }
}

/** `p` rejects with a TableError whose message names `endpoint` and the opt-in, and quotes none of `secrets`. */
async function refusedNaming(p: Promise<unknown>, endpoint: string, secrets: string[]): Promise<void> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error, 'expected a refusal').toBeInstanceOf(TableError)
  const message = (error as Error).message
  expect(message).toContain(endpoint)
  expect(message).toContain('plain http')
  expect(message).toContain('--allow-insecure-http')
  for (const s of secrets) expect(message).not.toContain(s)
}

/** The ways a credential is attached, each as a request made through the product's own code. */
const CASES: Array<{
  what: string
  endpoint: string
  secrets: string[]
  run: (http: HttpOptions) => Promise<unknown>
}> = [
  {
    what: 'a bearer token (--token)',
    endpoint: 'http://files.example',
    secrets: [TOKEN],
    run: http =>
      send('http://files.example/t/_delta_log/0.json', { headers: { Authorization: `Bearer ${TOKEN}` } }, http),
  },
  {
    what: "a sharing profile's bearer token",
    endpoint: 'http://sharing.example',
    secrets: [TOKEN],
    run: http => {
      const profile = parseProfile(
        JSON.stringify({
          shareCredentialsVersion: 1,
          endpoint: 'http://sharing.example/delta-sharing/',
          bearerToken: TOKEN,
        }),
        'p.share',
      )
      return new SharingClient(profile, 'p.share', http).listShares()
    },
  },
  {
    what: 'an OAuth client secret (token endpoint)',
    endpoint: 'http://auth.example',
    secrets: [CLIENT_SECRET, btoa(`client:${CLIENT_SECRET}`)],
    run: http => {
      const profile = parseProfile(
        JSON.stringify({
          shareCredentialsVersion: 2,
          type: 'oauth_client_credentials',
          endpoint: 'https://sharing.example/delta-sharing/',
          tokenEndpoint: 'http://auth.example/oauth/token',
          clientId: 'client',
          clientSecret: CLIENT_SECRET,
        }),
        'p.share',
      )
      return new SharingClient(profile, 'p.share', http).listShares()
    },
  },
  {
    what: 'a Unity Catalog token',
    endpoint: 'http://uc.example',
    secrets: [TOKEN],
    run: http => openUnityCatalogTable({ endpoint: 'http://uc.example/', token: TOKEN, table: 'main.web.t', http }),
  },
  {
    what: 'a SigV4 signature and session token',
    endpoint: 'http://minio.example:9000',
    secrets: [SESSION, 'the-secret-key'],
    run: http => {
      const resolver = new S3Resolver({
        tableUrl: 'http://minio.example:9000/tables/t/',
        provider: async () => ({ accessKeyId: 'ASIAX', secretAccessKey: 'the-secret-key', sessionToken: SESSION }),
      })
      return send('http://minio.example:9000/tables/t/_delta_log/0.json', {}, { ...http, resolver })
    },
  },
  {
    what: 'a pre-signed URL',
    endpoint: 'http://bucket.example',
    secrets: ['sig-abc123'],
    run: http => send('http://bucket.example/f.parquet?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=sig-abc123', {}, http),
  },
]

describe('credentials over plain http:// to a host that is not loopback', () => {
  for (const c of CASES) {
    it(`${c.what}: refused naming ${c.endpoint}, nothing sent; sent with allowInsecureHttp`, async () => {
      const refused = recorder()
      await refusedNaming(c.run({ fetch: refused.fetch, attempts: 1 }), c.endpoint, c.secrets)
      expect(refused.sent).toEqual([])
      const allowed = recorder()
      await c.run({ fetch: allowed.fetch, attempts: 1, allowInsecureHttp: true }).catch(() => undefined)
      expect(allowed.sent.length).toBeGreaterThan(0)
      expect(new URL(allowed.sent[0]!.url).origin).toBe(c.endpoint)
    })
  }

  it('loopback and https are allowed without the opt-in', async () => {
    for (const url of [
      'http://127.0.0.1:9/x',
      'http://127.200.3.4/x',
      'http://localhost:8/x',
      'http://[::1]:7/x',
      'https://files.example/x',
    ]) {
      const r = recorder()
      await send(url, { headers: { Authorization: `Bearer ${TOKEN}` } }, { fetch: r.fetch, attempts: 1 })
      expect(r.sent.map(s => s.url)).toEqual([url])
    }
    expect(isLoopback('127.0.0.1.example.com')).toBe(false)
    expect(isLoopback('localhost.example.com')).toBe(false)
  })

  it('a request without credentials goes anywhere (a public table over http)', async () => {
    const r = recorder()
    await send('http://files.example/t/_delta_log/0.json', {}, { fetch: r.fetch, attempts: 1 })
    expect(r.sent.length).toBe(1)
  })

  it('a redirect from loopback to a plain-http host keeps no credential, so it is followed', async () => {
    const sent: string[] = []
    const fetch: FetchLike = async (url, init) => {
      sent.push(`${url} ${new Headers(init?.headers).get('authorization')}`)
      return url.startsWith('http://127.0.0.1')
        ? new Response(null, { status: 302, headers: { Location: 'http://files.example/x' } })
        : new Response('ok')
    }
    await send('http://127.0.0.1:9/x', { headers: { Authorization: `Bearer ${TOKEN}` } }, { fetch, attempts: 1 })
    expect(sent).toEqual([`http://127.0.0.1:9/x Bearer ${TOKEN}`, 'http://files.example/x null'])
  })
})

describe('snaptrain scan of a share whose endpoint is plain http://', () => {
  const dir = mkdtempSync(join(tmpdir(), 'snaptrain-credentials-http-'))
  let server: SharingServer | undefined
  afterAll(async () => {
    await server?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  // Why 0.0.0.0: it is not a loopback name, so the rule applies, yet on Linux a connection to it
  // reaches this machine's loopback server, so the opt-in can be shown to work without leaving it.
  it('refused without --allow-insecure-http (the server sees nothing); read with it', async () => {
    server = await startSharingServer({
      tables: [
        { share: 'lab', schema: 'golden', table: 'letters', dir: conformanceTable('dat/basic_partitioned/delta') },
      ],
      tokens: [TOKEN],
    })
    const endpoint = server.endpoint.replace('127.0.0.1', '0.0.0.0')
    const profile = writeProfile(dir, 'any.share', { shareCredentialsVersion: 1, endpoint, bearerToken: TOKEN })
    const refused = await runMain(['scan', '--table', `${profile}#lab.golden.letters`, '--json'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(`in clear to ${new URL(endpoint).origin} (plain http, not loopback)`)
    expect(refused.stderr).not.toContain(TOKEN)
    expect(server.log).toEqual([])
    const read = await runMain(['scan', '--table', `${profile}#lab.golden.letters`, '--allow-insecure-http', '--json'])
    expect(read.code, read.stderr).toBe(0)
    expect(JSON.parse(read.stdout.trimEnd().split('\n').at(-1)!).rows).toBeGreaterThan(0)
    expect(server.log.some(e => e.authorization === `Bearer ${TOKEN}`)).toBe(true)
  })

  it('fails naming the endpoint and --allow-insecure-http, quoting no token', async () => {
    const profile = writeProfile(dir, 'plain.share', {
      shareCredentialsVersion: 1,
      endpoint: 'http://sharing.example/delta-sharing/',
      bearerToken: TOKEN,
    })
    const r = await runMain(['scan', '--table', `${profile}#lab.golden.t`, '--json'])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain('http://sharing.example')
    expect(r.stderr).toContain('--allow-insecure-http')
    expect(r.stderr).not.toContain(TOKEN)
  })

  it('--allow-insecure-http is a flag of scan, train, predict, sweep and shares', async () => {
    for (const cmd of ['scan', 'train', 'predict', 'sweep', 'shares']) {
      const r = await runMain([cmd, '--help'])
      expect(r.stdout + r.stderr, cmd).toContain('--allow-insecure-http')
    }
  })

  it("sweep: the opt-in reaches the trials' reads in the page, not only the Node precheck", () => {
    const argv = ['--table', 'http://data.example/t/', '--label', 'y', '--model', 'gbdt', '--strategy', 'random']
    const plain = checkFlags(parseArgs(argv, SWEEP_SPEC).values)
    const opted = checkFlags(parseArgs([...argv, '--allow-insecure-http'], SWEEP_SPEC).values)
    expect(sweepRunConfig(plain, { workers: 0 }).http?.allowInsecureHttp).toBeUndefined()
    const run = sweepRunConfig(opted, { workers: 0, http: { timeoutMs: 5 } })
    expect(run.http).toEqual({ allowInsecureHttp: true, timeoutMs: 5 })
    expect(dataKey(opted)).not.toBe(dataKey(plain)) // data loaded without the opt-in is not reused with it
  })
})
