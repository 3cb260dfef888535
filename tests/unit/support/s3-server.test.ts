import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AwsClient } from 'aws4fetch'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { type S3Credentials, type S3Server, startS3Server } from '../../support/s3-server.ts'

const LOG = 'tables/clicks/_delta_log/'
const FILES: Record<string, Buffer> = {
  [`${LOG}00000000000000000000.json`]: Buffer.from('{"protocol":{}}\n'),
  [`${LOG}00000000000000000001.json`]: Buffer.from('{"add":{}}\n'),
  [`${LOG}00000000000000000002.json`]: Buffer.from('{"remove":{}}\n'),
  'tables/clicks/part-00000.parquet': Buffer.from(Array.from({ length: 100 }, (_, i) => i)),
  'tables/clicks/part-00001.parquet': Buffer.alloc(10, 7),
  'tables/clicks/a b+c.bin': Buffer.from('odd key'),
  'tables/marketing/_delta_log/00000000000000000000.json': Buffer.from('{}\n'),
}

let dir: string
let s3: S3Server
let corsOff: S3Server
/** The server's clock: stands still at T0 but for what a test moves it (past an expiry). */
let ahead = 0
const T0 = Date.now()
const now = (): number => T0 + ahead

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'snaptrain-s3-'))
  for (const [key, bytes] of Object.entries(FILES)) {
    await mkdir(dirname(join(dir, key)), { recursive: true })
    await writeFile(join(dir, key), bytes)
  }
  s3 = await startS3Server({ root: dir, cors: true, now })
  corsOff = await startS3Server({ root: dir })
})

afterAll(async () => {
  await s3?.close()
  await corsOff?.close()
  await rm(dir, { recursive: true, force: true })
})

function client(creds: S3Credentials): AwsClient {
  // retries: 0 so that a 5xx shows up as itself rather than as ten retries.
  return new AwsClient({ ...creds, service: 's3', region: s3.region, retries: 0 })
}

/** The object URL of a key: each segment %-encoded, '+' included (S3 reads a bare '+' as a space). */
function objectUrl(key: string): string {
  return s3.endpoint + key.split('/').map(encodeURIComponent).join('/')
}

function tags(xml: string, tag: string): string[] {
  return [...xml.matchAll(new RegExp(`<${tag}>([^<]*)</${tag}>`, 'g'))].map(m => m[1])
}

async function errorCode(res: Response): Promise<string | undefined> {
  return tags(await res.text(), 'Code')[0]
}

describe('S3 test server objects', () => {
  it('answers a signed Range GET with 206, Content-Range and the bytes', async () => {
    const c = client(s3.permanentCredentials)
    const url = objectUrl('tables/clicks/part-00000.parquet')
    const res = await c.fetch(url, { headers: { Range: 'bytes=10-19' } })
    expect(res.status).toBe(206)
    expect(res.headers.get('content-range')).toBe('bytes 10-19/100')
    expect([...new Uint8Array(await res.arrayBuffer())]).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19])
    const suffix = await c.fetch(url, { headers: { Range: 'bytes=-5' } })
    expect(suffix.headers.get('content-range')).toBe('bytes 95-99/100')
    expect((await suffix.arrayBuffer()).byteLength).toBe(5)
    const open = await c.fetch(url, { headers: { Range: 'bytes=98-' } })
    expect([open.status, open.headers.get('content-range')]).toEqual([206, 'bytes 98-99/100'])
    await open.arrayBuffer()
    const past = await c.fetch(url, { headers: { Range: 'bytes=100-' } })
    expect([past.status, past.headers.get('content-range'), await errorCode(past)]).toEqual([
      416,
      'bytes */100',
      'InvalidRange',
    ])
    const head = await c.fetch(url, { method: 'HEAD' })
    expect([head.status, head.headers.get('content-length'), head.headers.get('accept-ranges')]).toEqual([
      200,
      '100',
      'bytes',
    ])
    expect(head.headers.get('etag')).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/)
    expect(new Date(head.headers.get('last-modified')!).getTime()).toBeGreaterThan(0)
    const entry = s3.log.find(e => e.range === 'bytes=10-19')!
    expect(entry).toMatchObject({ method: 'GET', path: '/tables/clicks/part-00000.parquet', status: 206 })
    expect(entry.accessKeyId).toBe(s3.permanentCredentials.accessKeyId)
  })

  it('serves keys with spaces and plus signs, and 404s unknown keys with NoSuchKey', async () => {
    const c = client(s3.permanentCredentials)
    const res = await c.fetch(objectUrl('tables/clicks/a b+c.bin'))
    expect([res.status, await res.text()]).toEqual([200, 'odd key'])
    const missing = await c.fetch(objectUrl('tables/clicks/nope.parquet'))
    expect([missing.status, await errorCode(missing)]).toEqual([404, 'NoSuchKey'])
    const folder = await c.fetch(objectUrl('tables/clicks'))
    expect(folder.status).toBe(404)
    await folder.text()
  })

  it('refuses unsigned requests, tampered signatures and revoked keys', async () => {
    const url = objectUrl('tables/clicks/part-00001.parquet')
    const unsigned = await fetch(url)
    expect([unsigned.status, await errorCode(unsigned)]).toEqual([403, 'AccessDenied'])
    const signed = await client(s3.permanentCredentials).sign(url)
    const headers = new Headers(signed.headers)
    const auth = headers.get('authorization')!
    headers.set('authorization', auth.slice(0, -1) + (auth.endsWith('0') ? '1' : '0'))
    const tampered = await fetch(url, { headers })
    expect([tampered.status, await errorCode(tampered)]).toEqual([403, 'SignatureDoesNotMatch'])
    const otherPath = await fetch(objectUrl('tables/clicks/part-00000.parquet'), { headers: signed.headers })
    expect([otherPath.status, await errorCode(otherPath)]).toEqual([403, 'SignatureDoesNotMatch'])
    const creds = s3.issueCredentials(60)
    expect((await client(creds).fetch(url)).status).toBe(200)
    s3.revoke(creds.accessKeyId)
    const revoked = await client(creds).fetch(url)
    expect([revoked.status, await errorCode(revoked)]).toEqual([403, 'InvalidAccessKeyId'])
    const wrongRegion = await new AwsClient({ ...s3.permanentCredentials, service: 's3', region: 'eu-west-1' }).fetch(
      url,
    )
    expect([wrongRegion.status, await errorCode(wrongRegion)]).toEqual([400, 'AuthorizationHeaderMalformed'])
  })
})

describe('S3 test server temporary credentials', () => {
  it('accepts them until they expire, then answers 400 ExpiredToken', async () => {
    const creds = s3.issueCredentials(0.3)
    expect(creds.accessKeyId).toMatch(/^ASIA[A-Z2-7]{16}$/)
    expect(creds.sessionToken).toBeTruthy()
    expect(Date.parse(creds.expiration!)).toBeGreaterThan(now())
    const url = objectUrl('tables/clicks/part-00001.parquet')
    const ok = await client(creds).fetch(url, { headers: { Range: 'bytes=0-3' } })
    expect([ok.status, (await ok.arrayBuffer()).byteLength]).toEqual([206, 4])
    ahead += 350 // past the expiry, on the server's clock
    const res = await client(creds).fetch(url)
    expect(res.status).toBe(400)
    const xml = await res.text()
    expect(tags(xml, 'Code')).toEqual(['ExpiredToken'])
    expect(tags(xml, 'Message')).toEqual(['The provided token has expired.'])
    expect(s3.log.at(-1)).toMatchObject({ status: 400, code: 'ExpiredToken', accessKeyId: creds.accessKeyId })
    const noToken = await client({ ...creds, sessionToken: undefined }).fetch(url)
    expect([noToken.status, await errorCode(noToken)]).toEqual([403, 'InvalidAccessKeyId'])
  })

  it('keeps scoped credentials to their prefix', async () => {
    const c = client(s3.issueCredentials(60, { prefix: 'tables/clicks/' }))
    expect((await c.fetch(objectUrl(`${LOG}00000000000000000000.json`))).status).toBe(200)
    const other = await c.fetch(objectUrl('tables/marketing/_delta_log/00000000000000000000.json'))
    expect([other.status, await errorCode(other)]).toEqual([403, 'AccessDenied'])
    const list = await c.fetch(`${s3.endpoint}?list-type=2&prefix=${encodeURIComponent(LOG)}`)
    expect(list.status).toBe(200)
    await list.text()
    const listOther = await c.fetch(`${s3.endpoint}?list-type=2&prefix=tables/`)
    expect([listOther.status, await errorCode(listOther)]).toEqual([403, 'AccessDenied'])
  })

  it('serves presigned URLs until X-Amz-Expires runs out', async () => {
    const c = client(s3.issueCredentials(60))
    const url = objectUrl('tables/clicks/part-00001.parquet')
    const signed = await c.sign(url, { aws: { signQuery: true } })
    const res = await fetch(signed.url)
    expect([res.status, (await res.arrayBuffer()).byteLength]).toEqual([200, 10])
    // Signed two hours ago for one hour: the URL has expired, though the credentials have not.
    const then = new Date(Date.now() - 7_200_000).toISOString().replace(/[:-]|\.\d{3}/g, '')
    const old = await c.sign(`${url}?X-Amz-Expires=3600`, { aws: { signQuery: true, datetime: then } })
    const expired = await fetch(old.url)
    const xml = await expired.text()
    expect([expired.status, tags(xml, 'Code')[0], tags(xml, 'Message')[0]]).toEqual([
      403,
      'AccessDenied',
      'Request has expired',
    ])
  })
})

describe('S3 test server listing', () => {
  it('pages ListObjectsV2 with max-keys and continuation tokens', async () => {
    const c = client(s3.permanentCredentials)
    const keys: string[] = []
    let token: string | undefined
    let pages = 0
    do {
      const q = new URLSearchParams({ 'list-type': '2', prefix: 'tables/clicks/', 'max-keys': '2' })
      if (token) q.set('continuation-token', token)
      const res = await c.fetch(`${s3.endpoint}?${q}`)
      expect(res.status).toBe(200)
      const xml = await res.text()
      expect(tags(xml, 'Name')).toEqual([s3.bucket])
      keys.push(...tags(xml, 'Key'))
      token = tags(xml, 'NextContinuationToken')[0]
      expect(tags(xml, 'IsTruncated')).toEqual([String(token !== undefined)])
      pages++
    } while (token)
    const expected = Object.keys(FILES)
      .filter(k => k.startsWith('tables/clicks/'))
      .sort()
    expect(keys).toEqual(expected)
    expect(pages).toBe(3)
  })

  it('rolls up CommonPrefixes with a delimiter and honours start-after', async () => {
    const c = client(s3.permanentCredentials)
    const q = new URLSearchParams({ 'list-type': '2', prefix: 'tables/clicks/', delimiter: '/' })
    const xml = await (await c.fetch(`${s3.endpoint}?${q}`)).text()
    expect(tags(xml, 'Prefix')).toEqual(['tables/clicks/', 'tables/clicks/_delta_log/'])
    expect(tags(xml, 'Key')).toEqual([
      'tables/clicks/a b+c.bin',
      'tables/clicks/part-00000.parquet',
      'tables/clicks/part-00001.parquet',
    ])
    const size = tags(xml, 'Size')[1]
    expect(size).toBe('100')
    const head = await c.fetch(objectUrl('tables/clicks/part-00000.parquet'), { method: 'HEAD' })
    expect(tags(xml, 'ETag')[1]).toBe(head.headers.get('etag')!.replace(/"/g, '&quot;'))
    const after = new URLSearchParams({
      'list-type': '2',
      prefix: LOG,
      'start-after': `${LOG}00000000000000000000.json`,
    })
    const rest = await (await c.fetch(`${s3.endpoint}?${after}`)).text()
    expect(tags(rest, 'Key')).toEqual([`${LOG}00000000000000000001.json`, `${LOG}00000000000000000002.json`])
  })
})

describe('S3 test server CORS', () => {
  const preflight = (endpoint: string, headers: string) =>
    fetch(endpoint + 'tables/clicks/part-00000.parquet', {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://127.0.0.1:1',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': headers,
      },
    })

  it('answers preflights for signed reads and exposes the range headers', async () => {
    const asked = 'authorization,range,x-amz-content-sha256,x-amz-date,x-amz-security-token'
    const res = await preflight(s3.endpoint, asked)
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect(res.headers.get('access-control-allow-headers')).toBe(asked.split(',').join(', '))
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, HEAD')
    const other = await preflight(s3.endpoint, 'x-custom')
    expect([other.status, await errorCode(other)]).toEqual([403, 'AccessForbidden'])
    const off = await preflight(corsOff.endpoint, 'authorization')
    expect([off.status, await errorCode(off)]).toEqual([403, 'AccessForbidden'])
    const get = await client(s3.permanentCredentials).fetch(objectUrl('tables/clicks/part-00000.parquet'), {
      headers: { Origin: 'http://127.0.0.1:1', Range: 'bytes=0-0' },
    })
    await get.arrayBuffer()
    expect(get.headers.get('access-control-allow-origin')).toBe('*')
    expect(get.headers.get('access-control-expose-headers')).toContain('Content-Range')
    expect(get.headers.get('access-control-expose-headers')).toContain('ETag')
  })
})
