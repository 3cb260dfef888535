/**
 * Redirects never carry a credential elsewhere (table/http.ts send()): storage that answers a
 * signed request with a redirect to another origin is refused, naming the redirect, before
 * anything reaches that origin; an S3 bucket that answers from another region of AWS is re-signed
 * for that region (same bucket, endpoint computed, never taken from the answer); a plain request
 * with a token follows a redirect to another origin without its credential headers.
 *
 * The servers are this file's own, on 127.0.0.1, closed after the file; the AWS hosts of the
 * regional tests are an injected fetch (fake-s3.ts), so nothing leaves the machine.
 */
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { S3Resolver } from '../../../src/storage/s3-resolver.ts'
import { s3RegionalUrl } from '../../../src/storage/s3-location.ts'
import { fetchBytes, fetchText, send } from '../../../src/table/http.ts'
import { TableError, type FetchLike } from '../../../src/table/types.ts'
import { REPO, runMain } from '../../support/cli.ts'
import { type S3Server, startS3Server } from '../../support/s3-server.ts'
import { fakeS3 } from './fake-s3.ts'

/** One request a test server saw: method, path and its headers (lower-case names). */
interface Seen {
  method: string
  url: string
  headers: Record<string, string | string[] | undefined>
}

interface LoggingServer {
  origin: string
  seen: Seen[]
  close(): Promise<void>
}

/** A loopback server that logs every request and answers with `handle`. */
async function logging(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<LoggingServer> {
  const seen: Seen[] = []
  const server: Server = createServer((req, res) => {
    seen.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: { ...req.headers } })
    handle(req, res)
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    seen,
    close: () =>
      new Promise<void>(resolve => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** What the other origin answers: bytes that are not the table's. */
const FOREIGN = 'not the table: the bytes of another origin'

/** Every header a credential travels in; none may reach the other origin. */
function expectNoCredentials(seen: Seen[]): void {
  for (const s of seen) {
    for (const name of ['authorization', 'x-amz-security-token', 'x-amz-date', 'cookie', 'x-api-key']) {
      expect(s.headers[name], `${s.method} ${s.url}: ${name}`).toBeUndefined()
    }
    expect(s.url).not.toMatch(/X-Amz-Signature|X-Amz-Credential/i)
  }
}

describe('signed storage answering with a redirect to another origin', () => {
  let dir: string
  let s3: S3Server
  let other: LoggingServer
  /** In front of the S3 server: data files are answered 307 to `other`, the rest is passed on. */
  let front: LoggingServer
  let redirectStatus = 307

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'snaptrain-redirects-'))
    await cp(join(REPO, 'tests/conformance/golden/basic-dv-with-checkpoint'), join(dir, 'bucket/tables/dv'), {
      recursive: true,
    })
    s3 = await startS3Server({ root: join(dir, 'bucket') })
    other = await logging((_req, res) => res.end(FOREIGN))
    const upstream = new URL(s3.endpoint)
    front = await logging((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname
      if (path.endsWith('.parquet') && !path.includes('/_delta_log/')) {
        res.writeHead(redirectStatus, { Location: `${other.origin}${req.url}` })
        res.end()
        return
      }
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
    })
  })

  afterAll(async () => {
    await front?.close()
    await other?.close()
    await s3?.close()
    await rm(dir, { recursive: true, force: true })
  })

  beforeEach(() => {
    other.seen.length = 0
    front.seen.length = 0
  })

  for (const status of [301, 302, 307]) {
    it(`scan s3://… fails naming the ${status}; the other origin is sent nothing`, async () => {
      redirectStatus = status
      const key = s3.issueCredentials(3600)
      const file = join(dir, 'credentials')
      await writeFile(
        file,
        `[default]\naws_access_key_id = ${key.accessKeyId}\naws_secret_access_key = ${key.secretAccessKey}\n` +
          `aws_session_token = ${key.sessionToken}\n`,
      )
      const r = await runMain(['scan', '--table', `s3://${s3.bucket}/tables/dv`, '--format', 'jsonl', '--json'], {
        AWS_ACCESS_KEY_ID: '',
        AWS_SECRET_ACCESS_KEY: '',
        AWS_SESSION_TOKEN: '',
        AWS_PROFILE: '',
        AWS_REGION: '',
        AWS_DEFAULT_REGION: '',
        AWS_ENDPOINT_URL: '',
        AWS_ENDPOINT_URL_S3: `${front.origin}/`,
        AWS_SHARED_CREDENTIALS_FILE: file,
        AWS_CONFIG_FILE: join(dir, 'no-config'),
      })
      expect(r.code).toBe(1)
      expect(r.stdout).toBe('')
      expect(r.stderr).toContain(`storage answered ${status} redirecting to ${other.origin}`)
      expect(r.stderr).toContain('a signed request is not followed elsewhere')
      for (const secret of [key.sessionToken!, key.secretAccessKey]) expect(r.stderr).not.toContain(secret)
      // The table was reached (the log read, signed), the redirect seen, and nothing went to the other origin.
      expect(front.seen.some(s => s.headers['x-amz-security-token'] === key.sessionToken)).toBe(true)
      expect(other.seen).toEqual([])
    })
  }
})

describe('plain requests follow redirects without their credentials', () => {
  let a: LoggingServer
  let b: LoggingServer
  beforeAll(async () => {
    b = await logging((_req, res) => res.end(FOREIGN))
    a = await logging((req, res) => {
      res.writeHead(307, { Location: `${b.origin}${req.url}` })
      res.end()
    })
  })
  afterAll(async () => {
    await a?.close()
    await b?.close()
  })

  it("a token for the table's origin and custom credential headers stay home", async () => {
    const opts = { headers: { Authorization: 'Bearer tok-3f9', 'X-Api-Key': 'key-77' }, attempts: 1 }
    const bytes = await fetchBytes(`${a.origin}/t/data.bin`, opts, undefined, `${a.origin}/t/`)
    expect(new TextDecoder().decode(bytes)).toBe(FOREIGN)
    expect(a.seen[0]?.headers.authorization).toBe('Bearer tok-3f9')
    expect(b.seen.length).toBe(1)
    expectNoCredentials(b.seen)
  })

  it('a pre-signed URL (a signature in its query) is not followed elsewhere; nothing reaches the other origin', async () => {
    b.seen.length = 0
    const signed = `${a.origin}/f.parquet?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=abc123`
    const error = await send(signed, {}, { attempts: 1 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TableError)
    expect((error as TableError).code).toBe('access')
    expect((error as Error).message).toContain(`storage answered 307 redirecting to ${b.origin}`)
    expect(b.seen).toEqual([])
  })

  it('in a browser (an opaque redirect answer), a request with credentials fails naming the URL; one without is followed by fetch', async () => {
    const modes: Array<RequestRedirect | undefined> = []
    const fetch: FetchLike = async (_url, init) => {
      modes.push(init?.redirect)
      const res = new Response(null, { status: 200 })
      // What a browser's fetch answers to redirect: 'manual' (status 0, no Location); Node cannot construct one.
      if (init?.redirect === 'manual') Object.defineProperty(res, 'type', { value: 'opaqueredirect' })
      return res
    }
    const error = await send(
      'https://t.example/x',
      { headers: { Authorization: 'Bearer t' } },
      { fetch, attempts: 1 },
    ).catch((e: unknown) => e)
    expect((error as Error).message).toBe(
      'GET https://t.example/x: answered with a redirect, which the page does not follow for a request that carries ' +
        'credentials or is limited by an allow-list',
    )
    expect((await send('https://t.example/x', {}, { fetch, attempts: 1 })).status).toBe(200)
    expect(modes).toEqual(['manual', 'follow'])
  })

  it('a redirect loop ends after a bounded number of hops, naming it', async () => {
    const loop = await logging((req, res) => {
      res.writeHead(302, { Location: req.url ?? '/' })
      res.end()
    })
    try {
      const error = await send(`${loop.origin}/x`, {}, { attempts: 1, headers: { Authorization: 'Bearer t' } }).catch(
        (e: unknown) => e,
      )
      expect((error as Error).message).toMatch(/more than 10 redirects/)
      expect(loop.seen.length).toBe(11)
    } finally {
      await loop.close()
    }
  })
})

describe('an S3 bucket in another region of AWS', () => {
  const EAST = 'https://snap-bucket.s3.us-east-1.amazonaws.com'
  const WEST = 'https://snap-bucket.s3.eu-west-1.amazonaws.com'
  const TABLE = `${EAST}/tables/t/`
  const KEY = 'tables/t/_delta_log/00000000000000000000.json'

  /** A fetch where the table's region answers `answer` and eu-west-1 is a signature-checking fake S3. */
  function regions(answer: () => Response) {
    const west = fakeS3(WEST, { [KEY]: '{"commitInfo":{}}' })
    const elsewhere: string[] = []
    const east: string[] = []
    const fetch: FetchLike = async (input, init) => {
      if (input.startsWith(EAST)) {
        east.push(input)
        return answer()
      }
      if (input.startsWith(WEST)) return west.fetch(input, init)
      elsewhere.push(input)
      return new Response(FOREIGN)
    }
    const credentials = west.issue(3_600_000)
    const resolver = new S3Resolver({ tableUrl: TABLE, provider: async () => credentials })
    return { fetch, resolver, west, east, elsewhere, credentials }
  }

  const permanentRedirect = (endpoint: string) => () =>
    new Response(
      `<Error><Code>PermanentRedirect</Code><Message>use the endpoint</Message><Endpoint>${endpoint}</Endpoint></Error>`,
      { status: 301, headers: { 'x-amz-bucket-region': 'eu-west-1' } },
    )

  it('s3RegionalUrl moves the host only, and only an AWS one', () => {
    expect(s3RegionalUrl(`${EAST}/k?x=1`, 'eu-west-1')).toBe(`${WEST}/k?x=1`)
    expect(s3RegionalUrl('https://b.s3.amazonaws.com/k', 'eu-west-1')).toBe('https://b.s3.eu-west-1.amazonaws.com/k')
    expect(s3RegionalUrl('http://127.0.0.1:9000/k', 'eu-west-1')).toBeUndefined()
    expect(s3RegionalUrl(`${EAST}/k`, 'evil.example/')).toBeUndefined()
  })

  it('a 301 PermanentRedirect naming the same bucket there is re-signed for eu-west-1 and read', async () => {
    const r = regions(permanentRedirect('snap-bucket.s3.eu-west-1.amazonaws.com'))
    const opts = { fetch: r.fetch, resolver: r.resolver, attempts: 1 }
    expect(await fetchText(`${TABLE}_delta_log/00000000000000000000.json`, opts, TABLE)).toBe('{"commitInfo":{}}')
    // Later requests go to the bucket's region at once.
    expect(await fetchText(`${TABLE}_delta_log/00000000000000000000.json`, opts, TABLE)).toBe('{"commitInfo":{}}')
    expect(r.east.length).toBe(1)
    expect(r.west.requests.map(q => q.status)).toEqual([200, 200])
    expect(r.west.requests[0]!.headers.get('authorization')).toContain('/eu-west-1/s3/aws4_request')
    expect(r.elsewhere).toEqual([])
  })

  it('a 307 whose Location is the same bucket there is re-signed and read', async () => {
    const r = regions(
      () =>
        new Response(null, {
          status: 307,
          headers: { Location: `${WEST}/${KEY}`, 'x-amz-bucket-region': 'eu-west-1' },
        }),
    )
    const opts = { fetch: r.fetch, resolver: r.resolver, attempts: 1 }
    expect(await fetchText(`${TABLE}_delta_log/00000000000000000000.json`, opts, TABLE)).toBe('{"commitInfo":{}}')
  })

  for (const [what, answer] of [
    ['an endpoint on another host', permanentRedirect('evil.example.com')],
    ['another bucket', permanentRedirect('other-bucket.s3.eu-west-1.amazonaws.com')],
    [
      'a Location on another host',
      () =>
        new Response(null, {
          status: 307,
          headers: { Location: 'https://evil.example.com/x', 'x-amz-bucket-region': 'eu-west-1' },
        }),
    ],
    ['no region named', () => new Response(null, { status: 307, headers: { Location: `${WEST}/${KEY}` } })],
  ] as const) {
    it(`a redirect to ${what} is refused; nothing is signed for or sent there`, async () => {
      const r = regions(answer)
      const error = await fetchText(`${TABLE}_delta_log/00000000000000000000.json`, {
        fetch: r.fetch,
        resolver: r.resolver,
        attempts: 1,
      }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(TableError)
      expect((error as TableError).code).toBe('access')
      expect((error as Error).message).toMatch(
        /storage answered 30[17] redirecting to .*a signed request is not followed/,
      )
      expect((error as Error).message).not.toContain(r.credentials.sessionToken)
      expect(r.west.requests).toEqual([])
      expect(r.elsewhere).toEqual([])
    })
  }

  it('with --allow-origin, the region moved to must be listed too', async () => {
    const r = regions(permanentRedirect('snap-bucket.s3.eu-west-1.amazonaws.com'))
    const opts = { fetch: r.fetch, resolver: r.resolver, attempts: 1, allowOrigins: ['https://a.example'] }
    await expect(fetchText(`${TABLE}_delta_log/00000000000000000000.json`, opts, TABLE)).rejects.toThrow(
      `(its request goes to ${WEST}): origin ${WEST} is not allowed`,
    )
    expect(r.west.requests).toEqual([])
  })
})
