import { describe, expect, it } from 'vitest'
import { S3Resolver } from '../../../src/storage/s3-resolver.ts'
import type { CredentialProvider, S3Credentials } from '../../../src/storage/types.ts'
import { fetchBytes, fetchText } from '../../../src/table/http.ts'
import { TableError } from '../../../src/table/types.ts'
import { fakeS3, verify } from './fake-s3.ts'

const TABLE = 'https://bucket.storage.test/tables/clicks/'
const FILE = `${TABLE}part-0.parquet`
const EXPIRED = '<Error><Code>ExpiredToken</Code><Message>The provided token has expired.</Message></Error>'
const T0 = Date.UTC(2025, 0, 1)

/** A clock the test moves, and a provider handing out numbered credentials that expire `lifetimeMs` after issue. */
function setup(lifetimeMs: number | undefined, opts: { fail?: (call: number) => boolean } = {}) {
  const clock = { t: T0 }
  const now = () => clock.t
  let calls = 0
  const provider: CredentialProvider = async () => {
    calls++
    await new Promise(r => setTimeout(r, 1)) // a real source answers later, not in the same tick
    if (opts.fail?.(calls)) throw new Error(`vending service down (call ${calls})`)
    return {
      accessKeyId: `ASIA${calls}`,
      secretAccessKey: `secret-${calls}`,
      sessionToken: `token-${calls}`,
      expiration: lifetimeMs === undefined ? undefined : now() + lifetimeMs,
    }
  }
  const resolver = new S3Resolver({ tableUrl: TABLE, provider, now, table: 'main.web.clicks' })
  return { clock, resolver, calls: () => calls }
}

async function keyOf(resolver: S3Resolver, url = FILE): Promise<string> {
  const out = await resolver.resolve(url, 'GET', {})
  return /Credential=([^/]+)\//.exec(out.headers!.authorization)![1]
}

async function failure(p: Promise<unknown>): Promise<TableError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(TableError)
  return error as TableError
}

describe('credentials: fetched lazily, cached, renewed ahead of expiry', () => {
  it('asks the provider only when a request is signed, then reuses the answer', async () => {
    const s = setup(undefined)
    expect(s.calls()).toBe(0)
    await Promise.all([1, 2, 3, 4, 5].map(() => keyOf(s.resolver)))
    expect(s.calls()).toBe(1)
  })

  it('renews at half the lifetime when that is shorter than 5 minutes', async () => {
    const s = setup(2_000)
    expect(await keyOf(s.resolver)).toBe('ASIA1')
    s.clock.t += 999
    expect(await keyOf(s.resolver)).toBe('ASIA1')
    s.clock.t += 1
    expect(await keyOf(s.resolver)).toBe('ASIA2')
    expect(s.calls()).toBe(2)
  })

  it('renews 5 minutes ahead of a long lifetime', async () => {
    const s = setup(3_600_000)
    await keyOf(s.resolver)
    s.clock.t += 55 * 60_000 - 1
    expect(await keyOf(s.resolver)).toBe('ASIA1')
    s.clock.t += 1
    expect(await keyOf(s.resolver)).toBe('ASIA2')
  })

  it('shares one renewal among the requests that find the credentials due', async () => {
    const s = setup(2_000)
    await keyOf(s.resolver)
    s.clock.t += 1_500
    const keys = await Promise.all(Array.from({ length: 20 }, () => keyOf(s.resolver)))
    expect(new Set(keys)).toEqual(new Set(['ASIA2']))
    expect(s.calls()).toBe(2)
  })

  it('keeps valid credentials through a failed renewal, and fails clearly once they expire', async () => {
    const s = setup(2_000, { fail: call => call > 1 })
    await keyOf(s.resolver)
    s.clock.t += 1_200
    expect(await keyOf(s.resolver)).toBe('ASIA1')
    expect(s.calls()).toBe(2)
    expect(await keyOf(s.resolver)).toBe('ASIA1') // not asked again at once
    expect(s.calls()).toBe(2)
    s.clock.t += 1_000 // past the expiration
    const error = await failure(keyOf(s.resolver))
    expect(error.message).toBe('main.web.clicks: cannot renew the storage credentials: vending service down (call 3)')
    expect(error.url).toBe(TABLE)
  })

  it('names the table and the cause when there are no credentials at all', async () => {
    const s = setup(undefined, { fail: () => true })
    const error = await failure(keyOf(s.resolver))
    expect(error.message).toBe('main.web.clicks: cannot get storage credentials: vending service down (call 1)')
  })

  it('refuses credentials that expired before they came', async () => {
    const s = setup(-1)
    const error = await failure(keyOf(s.resolver))
    expect(error.message).toMatch(/cannot get storage credentials: the credentials it gave expired at 2024-12-31T23:59/)
  })
})

describe('credentials: renewed when storage says they expired', () => {
  it('renews once and asks for the request again', async () => {
    const s = setup(undefined)
    await keyOf(s.resolver)
    expect(await s.resolver.rejected(FILE, 400, EXPIRED)).toBe(true)
    expect(s.calls()).toBe(2)
    expect(await keyOf(s.resolver)).toBe('ASIA2')
  })

  it('renews once for many concurrent rejections', async () => {
    const s = setup(undefined)
    const urls = Array.from({ length: 12 }, (_, i) => `${TABLE}part-${i % 4}.parquet`)
    await Promise.all(urls.map(u => keyOf(s.resolver, u)))
    const answers = await Promise.all(urls.map(u => s.resolver.rejected(u, 403, EXPIRED)))
    expect(answers.every(a => a)).toBe(true)
    expect(s.calls()).toBe(2)
  })

  it('does not renew again for answers to requests signed before the renewal', async () => {
    const s = setup(undefined)
    await Promise.all([keyOf(s.resolver), keyOf(s.resolver), keyOf(s.resolver)]) // three requests of one file
    expect(await s.resolver.rejected(FILE, 400, EXPIRED)).toBe(true) // the first answer: renew
    expect(await keyOf(s.resolver)).toBe('ASIA2') // its retry
    s.clock.t += 5_000
    // The other two answers come late; they concern the old credentials.
    expect(await s.resolver.rejected(FILE, 400, EXPIRED)).toBe(true)
    expect(await s.resolver.rejected(FILE, 400, EXPIRED)).toBe(true)
    expect(s.calls()).toBe(2)
    // Now the new credentials expire too: that is a renewal of its own.
    expect(await s.resolver.rejected(FILE, 400, EXPIRED)).toBe(true)
    expect(s.calls()).toBe(3)
  })

  it('reads a bare 400 (S3 answers HEAD without a body) to temporary credentials as expiry', async () => {
    const s = setup(undefined)
    await keyOf(s.resolver)
    expect(await s.resolver.rejected(FILE, 400, '')).toBe(true)
    expect(s.calls()).toBe(2)
    const permanent = new S3Resolver({
      tableUrl: TABLE,
      provider: async () => ({ accessKeyId: 'AKIA', secretAccessKey: 'S' }),
    })
    await keyOf(permanent)
    expect(await permanent.rejected(FILE, 400, '')).toBe(false)
    expect(await permanent.rejected(FILE, 403, '')).toBe(false)
  })

  it('leaves refusals that are not about expiry to the caller', async () => {
    const s = setup(undefined)
    await keyOf(s.resolver)
    const denied = '<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>'
    expect(await s.resolver.rejected(FILE, 403, denied)).toBe(false)
    expect(s.calls()).toBe(1)
  })

  it('fails clearly when the renewal fails', async () => {
    const s = setup(undefined, { fail: call => call > 1 })
    await keyOf(s.resolver)
    const error = await failure(s.resolver.rejected(FILE, 400, EXPIRED))
    expect(error.message).toBe('main.web.clicks: cannot renew the storage credentials: vending service down (call 2)')
  })

  it('fails clearly when the fresh credentials are refused as expired too', async () => {
    const s = setup(undefined)
    await keyOf(s.resolver)
    expect(await s.resolver.rejected(FILE, 400, EXPIRED)).toBe(true)
    await keyOf(s.resolver) // the retry, signed with the fresh credentials ...
    const error = await failure(s.resolver.rejected(FILE, 400, EXPIRED)) // ... refused as well
    expect(error.message).toMatch(/^main\.web\.clicks: storage refused the credentials just renewed as expired too/)
    expect(s.calls()).toBe(2)
  })

  it('fails clearly when the source has nothing newer than the refused credentials', async () => {
    const same: S3Credentials = { accessKeyId: 'AKIASAME', secretAccessKey: 'same-secret' }
    const r = new S3Resolver({ tableUrl: TABLE, provider: async () => same })
    await keyOf(r)
    const error = await failure(r.rejected(FILE, 403, EXPIRED))
    expect(error.message).toBe(
      `${TABLE}: storage refused the credentials as expired and their source has no newer ones`,
    )
  })

  it('never puts a secret into a message, even when the provider quotes one', async () => {
    let n = 0
    const leaky: CredentialProvider = async () => {
      n++
      if (n > 1) throw new Error('refused key id ASIA1 with secret s3cr3t-1 and token tok-1')
      return { accessKeyId: 'ASIA1', secretAccessKey: 's3cr3t-1', sessionToken: 'tok-1' }
    }
    const r = new S3Resolver({ tableUrl: TABLE, provider: leaky })
    await keyOf(r)
    const error = await failure(r.rejected(FILE, 400, EXPIRED))
    expect(error.message).not.toMatch(/s3cr3t-1|tok-1/)
    expect(error.message).toContain('REDACTED')
  })
})

describe('through the reader’s HTTP layer', () => {
  const objects = { 'tables/clicks/part-0.parquet': 'PAR1....PAR1', 'tables/clicks/_delta_log/x.json': '{}' }

  function world(lifetimeMs: number, tell: boolean) {
    const clock = { t: T0 }
    const now = () => clock.t
    const s3 = fakeS3('https://bucket.storage.test', objects, now)
    let calls = 0
    const provider: CredentialProvider = async () => {
      calls++
      const c = s3.issue(lifetimeMs)
      return tell ? c : { ...c, expiration: undefined }
    }
    const resolver = new S3Resolver({ tableUrl: TABLE, provider, now })
    return { clock, s3, resolver, calls: () => calls, http: { fetch: s3.fetch, resolver, backoffMs: 1 } }
  }

  it('the fake checks signatures', async () => {
    const clock = { t: T0 }
    const s3 = fakeS3('https://bucket.storage.test', objects, () => clock.t)
    const creds = s3.issue(10_000)
    const resolver = new S3Resolver({ tableUrl: TABLE, provider: async () => creds, now: () => clock.t })
    const headers = new Headers((await resolver.resolve(FILE, 'GET', {})).headers)
    const secretOf = () => creds.secretAccessKey
    expect(verify('GET', new URL(FILE), headers, secretOf)).toBeUndefined()
    expect(verify('HEAD', new URL(FILE), headers, secretOf)).toBe('SignatureDoesNotMatch')
    expect(verify('GET', new URL(`${TABLE}part-1.parquet`), headers, secretOf)).toBe('SignatureDoesNotMatch')
    headers.set('x-amz-security-token', 'forged')
    expect(verify('GET', new URL(FILE), headers, secretOf)).toBe('SignatureDoesNotMatch')
  })

  it('reads signed files and listings', async () => {
    const w = world(10_000, true)
    expect(await fetchText(FILE, w.http)).toBe('PAR1....PAR1')
    const ranged = await fetchBytes(FILE, w.http, [0, 4])
    expect(new TextDecoder().decode(ranged)).toBe('PAR1')
    expect(w.s3.requests.map(r => r.status)).toEqual([200, 200])
  })

  it('renews credentials that storage says expired, once for concurrent reads', async () => {
    const w = world(2_000, false)
    await fetchText(FILE, w.http)
    w.clock.t += 2_500
    const texts = await Promise.all(Array.from({ length: 8 }, () => fetchText(FILE, w.http)))
    expect(texts.every(t => t === 'PAR1....PAR1')).toBe(true)
    expect(w.calls()).toBe(2)
    expect(w.s3.requests.filter(r => r.status === 400).length).toBe(8)
  })

  it('renews ahead of a known expiry, so storage never refuses', async () => {
    const w = world(2_000, true)
    for (let i = 0; i < 6; i++) {
      expect(await fetchText(FILE, w.http)).toBe('PAR1....PAR1')
      w.clock.t += 700
    }
    expect(w.calls()).toBeGreaterThanOrEqual(3)
    expect(w.s3.requests.every(r => r.status === 200)).toBe(true)
  })

  it('gives a clear error when renewing keeps failing', async () => {
    const clock = { t: T0 }
    const s3 = fakeS3('https://bucket.storage.test', objects, () => clock.t)
    let calls = 0
    const provider: CredentialProvider = async () => {
      if (++calls > 1) throw new Error('catalog unreachable')
      return { ...s3.issue(1_000), expiration: undefined }
    }
    const resolver = new S3Resolver({ tableUrl: TABLE, provider, now: () => clock.t })
    const http = { fetch: s3.fetch, resolver, backoffMs: 1 }
    await fetchText(FILE, http)
    clock.t += 5_000
    const error = await failure(fetchText(FILE, http))
    expect(error.message).toContain(`${TABLE}: cannot renew the storage credentials: catalog unreachable`)
  })

  it('never sends credentials to another origin', async () => {
    const w = world(10_000, true)
    const error = await failure(fetchText('http://elsewhere.test/tables/clicks/part-0.parquet', w.http))
    expect(error.message).toContain('http://elsewhere.test/tables/clicks/part-0.parquet')
    expect(w.s3.requests).toEqual([])
    expect(w.calls()).toBe(0)
  })
})
