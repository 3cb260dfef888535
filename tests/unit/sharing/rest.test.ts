/**
 * The Delta Sharing REST client (src/sharing/rest.ts) and its Authorization header (auth.ts)
 * against the test sharing server: lists and queries followed over every page, both response
 * formats, refresh tokens, OAuth client credentials (HTTP Basic, renewal ahead of expiry, one new
 * token after a 401). Answers the server would never send come from a small fake fetch.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { SharingAuth } from '../../../src/sharing/auth.ts'
import { parseProfile, type SharingProfile } from '../../../src/sharing/profile.ts'
import { type QueryAnswer, SharingClient } from '../../../src/sharing/rest.ts'
import { explainedStatusError, send } from '../../../src/table/http.ts'
import type { FetchLike, HttpOptions } from '../../../src/table/types.ts'
import { conformanceTable, queryBodies } from '../../support/share-fixture.ts'
import { type SharingServer, type SharingServerOptions, startSharingServer } from '../../support/sharing-server.ts'

const LETTERS = conformanceTable('dat/basic_partitioned/delta')
const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-sharing-rest-'))
/** A copy of LETTERS that one test commits to. */
const MOVING = join(tmp, 'moving')
const OAUTH = { clientId: 'app', clientSecret: 's3cret', tokenLifetimeS: 120 }

let fault: SharingServerOptions['inject']
let server: SharingServer
beforeAll(async () => {
  cpSync(LETTERS, MOVING, { recursive: true })
  server = await startSharingServer({
    tables: [
      { share: 'retail', schema: 'sales', table: 'letters', dir: LETTERS },
      { share: 'retail', schema: 'sales', table: 'dv', dir: conformanceTable('golden/basic-dv-no-checkpoint') },
      { share: 'retail', schema: 'legacy', table: 'letters_v1', dir: LETTERS, parquetOnly: true },
      { share: 'lab', schema: 'golden', table: 'moving', dir: MOVING },
      { share: 'team x', schema: 's', table: 't', dir: LETTERS },
    ],
    pageSize: 2,
    oauth: OAUTH,
    inject: req => fault?.(req),
  })
})
afterEach(() => {
  fault = undefined
})
afterAll(async () => {
  await server.close()
  rmSync(tmp, { recursive: true, force: true })
})

const LETTERS_T = { share: 'retail', schema: 'sales', table: 'letters' }
const profileOf = (p: Record<string, unknown>): SharingProfile => parseProfile(JSON.stringify(p), 'test profile')
const bearerClient = (token?: string) =>
  new SharingClient(profileOf(server.profile({ token })), 'test profile', { attempts: 1 })
const oauthClient = () => new SharingClient(profileOf(server.profile({ version: 2 })), 'oauth profile', { attempts: 1 })
const since = (n: number) => server.log.slice(n)
const tokenRequests = (from: number) => since(from).filter(e => e.kind === 'token')

describe('SharingClient: lists', () => {
  it('follows every page of shares, schemas and tables', async () => {
    const client = bearerClient()
    const from = server.log.length
    expect((await client.listShares()).map(s => s.name)).toEqual(['retail', 'lab', 'team x'])
    const pages = since(from)
    expect(pages.map(e => e.query.startsWith('pageToken='))).toEqual([false, true])
    expect(pages.every(e => e.authorization === 'Bearer test-token' && e.capabilities === undefined)).toBe(true)
    expect(await client.listSchemas('retail')).toEqual([
      { name: 'sales', share: 'retail' },
      { name: 'legacy', share: 'retail' },
    ])
    const tables = await client.listTables('retail', 'sales')
    expect(tables).toEqual([
      { ...LETTERS_T, id: expect.any(String) },
      { share: 'retail', schema: 'sales', table: 'dv', id: expect.any(String) },
    ])
    expect(await client.listTables('team x', 's')).toMatchObject([{ share: 'team x', schema: 's', table: 't' }])
    expect(server.log.at(-1)!.path).toBe('/delta-sharing/shares/team x/schemas/s/tables')
  })
})

describe('SharingClient: table calls', () => {
  it('reads the version, also the first at or after a time, and explains a refusal', async () => {
    const client = bearerClient()
    expect(await client.tableVersion(LETTERS_T)).toBe(1)
    expect(await client.tableVersion(LETTERS_T, '2000-01-01T00:00:00Z')).toBe(0)
    await expect(client.tableVersion(LETTERS_T, '2999-01-01T00:00:00Z')).rejects.toThrow(
      `retail.sales.letters on ${server.endpoint}: GET ${server.endpoint}shares/retail/schemas/sales/tables/letters/version?startingTimestamp=2999-01-01T00%3A00%3A00Z: 400 Bad Request (INVALID_PARAMETER_VALUE: startingTimestamp is after the latest version)`,
    )
  })

  it('reads metadata in the format answered, asking for Delta actions with the features it reads', async () => {
    const client = bearerClient()
    const dv = await client.metadata({ share: 'retail', schema: 'sales', table: 'dv' })
    expect(dv.format).toBe('delta')
    expect(dv.protocol.deltaProtocol).toMatchObject({ readerFeatures: ['deletionVectors'] })
    expect(server.log.at(-1)!.capabilities).toBe('responseformat=delta;readerfeatures=deletionvectors,columnmapping')
    const legacy = await client.metadata({ share: 'retail', schema: 'legacy', table: 'letters_v1' })
    expect(legacy).toMatchObject({ format: 'parquet', version: 1, protocol: { minReaderVersion: 1 } })
    expect(legacy.metaData.partitionColumns).toEqual(['letter'])
  })

  it("follows a query's pages, sending the page token instead of the refresh fields", async () => {
    const client = bearerClient()
    const from = server.log.length
    const answer = await client.query(LETTERS_T, { includeRefreshToken: true })
    expect(answer.version).toBe(1)
    expect(new Set(answer.files.map(f => f.id)).size).toBe(6)
    const bodies = queryBodies(since(from), 'retail.sales.letters')
    expect(bodies).toEqual([
      { includeRefreshToken: true },
      { pageToken: expect.any(String) },
      { pageToken: expect.any(String) },
    ])
    expect(answer.refreshToken).toEqual(expect.any(String))
    const expiries = answer.files.map(f => f.expirationTimestamp as number)
    expect(answer.minUrlExpirationTimestamp).toBe(Math.min(...expiries))
    const paged = server.log.length
    expect((await client.query(LETTERS_T, { maxFiles: 4 })).files).toHaveLength(6)
    expect(queryBodies(since(paged), 'retail.sales.letters').map(b => b.maxFiles)).toEqual([4, 4])
  })

  it('takes both response formats', async () => {
    const client = bearerClient()
    const parquet = await client.query({ share: 'retail', schema: 'legacy', table: 'letters_v1' }, {})
    expect(parquet.format).toBe('parquet')
    expect(parquet.files[0]).toMatchObject({ url: expect.stringContaining('/files/'), size: expect.any(Number) })
    const delta = await client.query({ share: 'retail', schema: 'sales', table: 'dv' }, {})
    expect(delta.format).toBe('delta')
    const adds = delta.files.map(f => (f.deltaSingleAction as { add: Record<string, any> }).add)
    expect(adds.some(a => a.deletionVector?.storageType === 'p')).toBe(true)
  })

  it('answers the version of a refresh token after the table moved on', async () => {
    const client = bearerClient()
    const moving = { share: 'lab', schema: 'golden', table: 'moving' }
    const first = await client.query(moving, { includeRefreshToken: true })
    const log = join(MOVING, '_delta_log')
    const path = JSON.parse(readFileSync(join(log, '00000000000000000001.json'), 'utf8').split('\n')[0]).add.path
    writeFileSync(
      join(log, '00000000000000000002.json'),
      `${JSON.stringify({ remove: { path, deletionTimestamp: Date.now(), dataChange: true } })}\n`,
    )
    const latest = await client.query(moving, {})
    expect([latest.version, latest.files.length]).toEqual([2, 5])
    const refreshed = await client.query(moving, { refreshToken: first.refreshToken, includeRefreshToken: true })
    expect([refreshed.version, refreshed.files.length]).toEqual([1, 6])
    expect(refreshed.refreshToken).toEqual(expect.any(String))
    const refreshing = queryBodies(server.log, 'lab.golden.moving').filter(b => 'refreshToken' in b)
    expect(refreshing).toEqual([{ refreshToken: first.refreshToken, includeRefreshToken: true }])
  })

  it('refuses unknown tables and a refused token, naming them, without asking twice', async () => {
    const missing = { share: 'retail', schema: 'sales', table: 'nope' }
    await expect(bearerClient().query(missing, {})).rejects.toMatchObject({
      code: 'not-a-table',
      message: expect.stringMatching(
        /^retail\.sales\.nope on .*: 404 .*RESOURCE_DOES_NOT_EXIST.* not shared with this profile/,
      ),
    })
    const from = server.log.length
    await expect(bearerClient('revoked').listShares()).rejects.toMatchObject({
      code: 'sharing',
      message: expect.stringMatching(/^profile test profile: GET .*: 401 .*UNAUTHENTICATED.* token was refused/),
    })
    expect(since(from)).toHaveLength(1)
  })
})

/** A client of a fake server whose query answers `pages` (NDJSON line objects, version header per page). */
function fakeQuery(pages: Array<{ version: string | null; lines: unknown[]; raw?: string }>): Promise<QueryAnswer> {
  let page = 0
  const fetch: FetchLike = async () => {
    const p = pages[page++]!
    const headers: Record<string, string> = { 'delta-sharing-capabilities': 'responseformat=delta' }
    if (p.version !== null) headers['Delta-Table-Version'] = p.version
    return new Response(p.raw ?? p.lines.map(l => `${JSON.stringify(l)}\n`).join(''), { headers })
  }
  const profile = profileOf({ shareCredentialsVersion: 1, endpoint: 'https://sharing.test/ds', bearerToken: 't' })
  return new SharingClient(profile, 'fake', { fetch, attempts: 1 }).query(LETTERS_T, {})
}

describe('SharingClient: answers it refuses', () => {
  const head = [{ protocol: { deltaProtocol: { minReaderVersion: 1 } } }, { metaData: { deltaMetadata: {} } }]
  const name = 'retail.sales.letters on https://sharing.test/ds/'

  it('an end-of-stream error message, a page of another version, a missing line or header', async () => {
    const failed = [...head, { endStreamAction: { errorMessage: 'storage unavailable' } }]
    await expect(fakeQuery([{ version: '3', lines: failed }])).rejects.toThrow(
      `${name}: the server failed the query while answering: storage unavailable`,
    )
    const next = [...head, { endStreamAction: { nextPageToken: 'p2' } }]
    await expect(
      fakeQuery([
        { version: '3', lines: next },
        { version: '4', lines: head },
      ]),
    ).rejects.toThrow(`${name}: page 2 of the query is of version 4, page 1 of 3`)
    await expect(fakeQuery([{ version: '3', lines: [head[0]] }])).rejects.toThrow('has no metaData line')
    await expect(fakeQuery([{ version: null, lines: head }])).rejects.toThrow('has no Delta-Table-Version header')
    await expect(fakeQuery([{ version: '3', lines: [], raw: '{"protocol":{}}\n{oops' }])).rejects.toThrow(
      'query answer line 2 is not JSON',
    )
  })

  it('but reads an answer whose last page carries no end line', async () => {
    const next = [...head, { file: { id: 'a' } }, { endStreamAction: { nextPageToken: 'p2' } }]
    const answer = await fakeQuery([
      { version: '3', lines: next },
      { version: '3', lines: [...head, { file: { id: 'b' } }] },
    ])
    expect(answer.files.map(f => f.id)).toEqual(['a', 'b'])
  })
})

describe('SharingAuth: OAuth client credentials', () => {
  it('gets one token with HTTP Basic for many concurrent calls and sends it as Bearer', async () => {
    const client = oauthClient()
    const from = server.log.length
    await Promise.all([client.listShares(), client.tableVersion(LETTERS_T), client.metadata(LETTERS_T)])
    const [token, ...rest] = tokenRequests(from)
    expect(rest).toEqual([])
    expect(token.authorization).toBe(`Basic ${Buffer.from('app:s3cret').toString('base64')}`)
    expect(token.method).toBe('POST')
    const api = since(from).filter(e => e.kind === 'api')
    expect(api.every(e => e.status === 200 && /^Bearer \S+$/.test(e.authorization ?? ''))).toBe(true)
    expect(new Set(api.map(e => e.authorization)).size).toBe(1)
  })

  it('renews the token a minute before it expires, or at half its life when that is sooner', async () => {
    const auth = new SharingAuth(profileOf(server.profile({ version: 2 })), 'oauth profile')
    const t0 = Date.now()
    const from = server.log.length
    const first = await auth.header(t0)
    expect(await auth.header(t0 + 59_999)).toBe(first)
    expect(tokenRequests(from)).toHaveLength(1)
    const renewed = await auth.header(t0 + 60_000)
    expect(renewed).not.toBe(first)
    expect(tokenRequests(from)).toHaveLength(2)

    let issued = 0
    const fetch: FetchLike = async () => Response.json({ access_token: `t${++issued}`, expires_in: 10 })
    const short = profileOf({ ...server.profile({ version: 2 }), tokenEndpoint: 'https://login.test/token' })
    const halfLife = new SharingAuth(short, 'short', { fetch })
    expect(await halfLife.header(t0)).toBe('Bearer t1')
    expect(await halfLife.header(t0 + 4_999)).toBe('Bearer t1')
    expect(await halfLife.header(t0 + 5_000)).toBe('Bearer t2')
  })

  it('fetches one new token after a 401, and lets a second 401 stand', async () => {
    const client = oauthClient()
    await client.listShares()
    let refusals = 1
    fault = req =>
      req.kind === 'api' && refusals-- > 0 ? { status: 401, body: '{"errorCode":"UNAUTHENTICATED"}' } : undefined
    const from = server.log.length
    expect(await client.tableVersion(LETTERS_T)).toBe(1)
    expect(tokenRequests(from)).toHaveLength(1)
    expect(since(from).map(e => e.status)).toEqual([401, 200, 200])
    refusals = 2
    const again = server.log.length
    await expect(client.tableVersion(LETTERS_T)).rejects.toThrow(/401 .*UNAUTHENTICATED/)
    expect(since(again).map(e => `${e.kind} ${e.status}`)).toEqual(['api 401', 'token 200', 'api 401'])
  })

  it('explains a refused client and an answer without a usable token', async () => {
    const wrong = profileOf({ ...server.profile({ version: 2 }), clientSecret: 'guess' })
    await expect(new SharingAuth(wrong, 'wrong.share').header()).rejects.toThrow(
      `profile wrong.share: the token endpoint refused the client: POST ${server.origin}/oauth/token: 401 Unauthorized (invalid_client)`,
    )
    const fetch: FetchLike = async () => Response.json({ access_token: 'x' })
    const odd = profileOf({ ...server.profile({ version: 2 }), tokenEndpoint: 'https://login.test/token' })
    await expect(new SharingAuth(odd, 'odd', { fetch }).header()).rejects.toThrow(
      'did not answer an access_token with a positive expires_in',
    )
  })
})

/** A fake fetch answering `answers` in turn (the last one again), recording when each call came (fake ms). */
function scripted(answers: Array<() => Response>): FetchLike & { calls: number[] } {
  const calls: number[] = []
  const fetch = async () => {
    calls.push(Date.now())
    return answers[Math.min(calls.length, answers.length) - 1]!()
  }
  return Object.assign(fetch, { calls })
}
const tooMany = (retryAfter?: string) => () =>
  new Response('slow down', {
    status: 429,
    statusText: 'Too Many Requests',
    headers: retryAfter === undefined ? {} : { 'Retry-After': retryAfter },
  })
const ok = () => new Response('ok')

describe('send: 429 Too Many Requests', () => {
  const URL_ = 'http://sharing.test/ds/shares'
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    vi.setSystemTime(Date.UTC(2025, 0, 1, 0, 0, 0))
  })
  afterAll(() => {
    vi.useRealTimers()
  })

  /** Runs `send` to the end on the fake clock; returns its response and the call times relative to the start. */
  async function timed(
    fetch: ReturnType<typeof scripted>,
    opts: HttpOptions = {},
  ): Promise<[Response | Error, number[]]> {
    const t0 = Date.now()
    const pending = send(URL_, undefined, { fetch, backoffMs: 1, ...opts }).catch((e: Error) => e)
    await vi.runAllTimersAsync()
    return [await pending, fetch.calls.map(t => t - t0)]
  }

  it('waits the seconds Retry-After asks for, then asks again', async () => {
    const [res, calls] = await timed(scripted([tooMany('3'), ok]))
    expect((res as Response).status).toBe(200)
    expect(calls).toEqual([0, 3000])
  })

  it('waits until a Retry-After HTTP date, and 1 s without the header', async () => {
    const at = new Date(Date.now() + 7000).toUTCString()
    expect((await timed(scripted([tooMany(at), ok])))[1]).toEqual([0, 7000])
    expect((await timed(scripted([tooMany(), ok])))[1]).toEqual([0, 1000])
    const past = new Date(Date.now() - 60_000).toUTCString()
    expect((await timed(scripted([tooMany(past), ok])))[1]).toEqual([0, 0])
  })

  it('waits at most the request timeout, and names the URL when the attempts run out', async () => {
    const [error, calls] = await timed(scripted([tooMany('3600')]), { timeoutMs: 2500, attempts: 3 })
    expect(calls).toEqual([0, 2500, 5000])
    expect(error).toMatchObject({ code: 'http', message: `GET ${URL_}: 429 Too Many Requests` })
  })
})

describe('explainedStatusError', () => {
  const url = 'http://bucket.test/t/part-0.parquet'
  const explain = (status: number, body: string) =>
    explainedStatusError('GET', url, new Response(body, { status, statusText: 'Refused' }))

  it("adds S3's Code and Message and nothing else of the body", async () => {
    const body =
      '<?xml version="1.0"?><Error><Code>SignatureDoesNotMatch</Code><Message>The signature does not match.</Message>' +
      '<StringToSign>AWS4-HMAC-SHA256 secret-ish</StringToSign><RequestId>ABC</RequestId></Error>'
    expect((await explain(403, body)).message).toBe(
      `GET ${url}: 403 Refused (SignatureDoesNotMatch: The signature does not match.)`,
    )
    expect((await explain(404, '<Error><Code>NoSuchKey</Code></Error>')).message).toBe(
      `GET ${url}: 404 Refused (NoSuchKey)`,
    )
  })

  it('adds a JSON errorCode (or OAuth error) and message, and nothing for other bodies', async () => {
    const sharing = JSON.stringify({ errorCode: 'RESOURCE_DOES_NOT_EXIST', message: 'no table', details: ['x'] })
    expect((await explain(404, sharing)).message).toBe(`GET ${url}: 404 Refused (RESOURCE_DOES_NOT_EXIST: no table)`)
    const oauth = JSON.stringify({ error: 'invalid_client', error_description: 'unknown client' })
    expect((await explain(401, oauth)).message).toBe(`GET ${url}: 401 Refused (invalid_client: unknown client)`)
    for (const other of ['<html>Forbidden</html>', '{"detail":"no"}', 'null', '', 'plain words'])
      expect((await explain(403, other)).message).toBe(`GET ${url}: 403 Refused`)
    const long = await explain(500, JSON.stringify({ errorCode: 'INTERNAL', message: 'm'.repeat(1000) }))
    expect(long.message.length).toBeLessThan(url.length + 330)
  })
})
