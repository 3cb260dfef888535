import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSharingServer, type SharingServer, type SharingServerOptions } from '../../support/sharing-server.ts'

const conformance = (path: string) => fileURLToPath(new URL(`../../conformance/${path}`, import.meta.url))
/** One string partition column (a, b, c at v0; a, e and null added at v1); 6 files of 1 row. */
const LETTERS = conformance('dat/basic_partitioned/delta')
/** Deletion vectors (storage type 'u'), no checkpoint. */
const DV = conformance('golden/basic-dv-no-checkpoint')
/** Deletion vectors and column mapping; the DV file has the test-prefixed name. */
const DV_CM = conformance('golden/table-with-dv-small')
/** Deletion vectors with parquet checkpoints. */
const DV_CHECKPOINT = conformance('golden/basic-dv-with-checkpoint')

const AUTH = { Authorization: 'Bearer test-token' }
const DELTA_DV = { 'delta-sharing-capabilities': 'responseformat=delta;readerfeatures=deletionvectors' }

type Line = Record<string, any>

function parseLines(text: string): Line[] {
  return text
    .trim()
    .split('\n')
    .map(line => JSON.parse(line))
}

function sleep(ms: number): Promise<void> {
  return new Promise(done => setTimeout(done, ms))
}

let injectNext: { status: number; headers?: Record<string, string>; body?: string } | undefined
const OPTIONS: SharingServerOptions = {
  tables: [
    { share: 'retail', schema: 'sales', table: 'letters', dir: LETTERS },
    { share: 'retail', schema: 'sales', table: 'dv', dir: DV },
    { share: 'retail', schema: 'legacy', table: 'dv_legacy', dir: DV, parquetOnly: true },
    { share: 'retail', schema: 'legacy', table: 'no_history', dir: LETTERS, historyShared: false },
    { share: 'lab', schema: 'golden', table: 'dv_cm', dir: DV_CM },
    { share: 'lab', schema: 'golden', table: 'dv_checkpoint', dir: DV_CHECKPOINT },
  ],
  oauth: { clientId: 'app', clientSecret: 's3cret', tokenLifetimeS: 1.5 }, // long enough for a loaded machine to use it before it expires
  cors: true,
  inject: () => {
    const answer = injectNext
    injectNext = undefined
    return answer
  },
}

let server: SharingServer
beforeAll(async () => {
  server = await startSharingServer(OPTIONS)
})
afterAll(() => server.close())

function api(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${server.endpoint}${path}`, { ...init, headers: { ...AUTH, ...init.headers } })
}

function query(table: string, body: unknown = {}, headers: Record<string, string> = {}): Promise<Response> {
  const path = table.includes('/') ? table : `shares/retail/schemas/sales/tables/${table}`
  return api(`${path}/query`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', ...headers },
  })
}

async function queryLines(table: string, body: unknown = {}, headers: Record<string, string> = {}): Promise<Line[]> {
  const res = await query(table, body, headers)
  expect(res.status, await res.clone().text()).toBe(200)
  return parseLines(await res.text())
}

describe('sharing server: names', () => {
  it('lists shares, schemas and tables with maxResults/pageToken paging, case-insensitively', async () => {
    const first = await (await api('shares?maxResults=1')).json()
    expect(first.items).toEqual([{ name: 'retail', id: expect.any(String) }])
    const second = await (await api(`shares?maxResults=1&pageToken=${first.nextPageToken}`)).json()
    expect(second.items.map((s: Line) => s.name)).toEqual(['lab'])
    expect(second.nextPageToken).toBeUndefined()
    expect(await (await api('shares/RETAIL')).json()).toEqual({ share: { name: 'retail', id: first.items[0].id } })
    const schemas = await (await api('shares/Retail/schemas')).json()
    expect(schemas.items).toEqual([
      { name: 'sales', share: 'retail' },
      { name: 'legacy', share: 'retail' },
    ])
    const tables = await (await api('shares/retail/schemas/SALES/tables')).json()
    expect(tables.items.map((t: Line) => [t.name, t.schema, t.share])).toEqual([
      ['letters', 'sales', 'retail'],
      ['dv', 'sales', 'retail'],
    ])
    const all = await (await api('shares/retail/all-tables?maxResults=3')).json()
    const rest = await (await api(`shares/retail/all-tables?maxResults=3&pageToken=${all.nextPageToken}`)).json()
    expect([...all.items, ...rest.items].map((t: Line) => t.name)).toEqual(['letters', 'dv', 'dv_legacy', 'no_history'])
  })

  it('answers 400 for a bad maxResults or a foreign page token, 404 for unknown names', async () => {
    for (const bad of ['-1', 'ten', '501']) {
      const res = await api(`shares?maxResults=${bad}`)
      expect(res.status).toBe(400)
      expect((await res.json()).errorCode).toBe('INVALID_PARAMETER_VALUE')
    }
    const token = (await (await api('shares?maxResults=1')).json()).nextPageToken
    expect((await api(`shares/retail/schemas?pageToken=${token}`)).status).toBe(400)
    for (const path of [
      'shares/nope',
      'shares/retail/schemas/nope/tables',
      'shares/retail/schemas/sales/tables/nope/version',
    ]) {
      const res = await api(path)
      expect(res.status).toBe(404)
      expect((await res.json()).errorCode).toBe('RESOURCE_DOES_NOT_EXIST')
    }
  })

  it('needs a bearer token on every API route (401 UNAUTHENTICATED)', async () => {
    const cases: Record<string, string>[] = [{}, { Authorization: 'Bearer wrong' }, { Authorization: 'Basic dGVzdA==' }]
    for (const headers of cases) {
      const res = await fetch(`${server.endpoint}shares`, { headers })
      expect(res.status).toBe(401)
      expect(res.headers.get('WWW-Authenticate')).toMatch(/^Bearer/)
      expect(await res.json()).toEqual({ errorCode: 'UNAUTHENTICATED', message: expect.any(String) })
    }
  })
})

describe('sharing server: queries', () => {
  it('answers parquet format with pre-signed URLs that need no token, serve Range, and refuse HEAD', async () => {
    const res = await query('letters')
    expect(res.headers.get('Delta-Table-Version')).toBe('1')
    expect(res.headers.get('delta-sharing-capabilities')).toBe('responseformat=parquet')
    const lines = parseLines(await res.text())
    expect(lines[0]).toEqual({ protocol: { minReaderVersion: 1 } })
    expect(lines[1].metaData).toMatchObject({
      partitionColumns: ['letter'],
      numFiles: 6,
      version: 1,
      format: { provider: 'parquet' },
    })
    const files = lines.slice(2).map(l => l.file)
    expect(files).toHaveLength(6)
    expect(lines.some(l => l.endStreamAction)).toBe(false)
    const file = files.find(f => f.partitionValues.letter === 'b')
    expect(file).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{40}$/),
      size: 751,
      stats: expect.stringContaining('numRecords'),
    })
    expect(file.expirationTimestamp).toBeGreaterThan(Date.now())
    const local = readFileSync(join(LETTERS, 'letter=b', new URL(file.url).pathname.split('/').pop()!))
    const whole = await fetch(file.url)
    expect(whole.status).toBe(200)
    expect(Buffer.from(await whole.arrayBuffer()).equals(local)).toBe(true)
    const head = await fetch(file.url, { headers: { Range: 'bytes=0-3' } })
    expect(head.status).toBe(206)
    expect(head.headers.get('Content-Range')).toBe(`bytes 0-3/${local.length}`)
    expect(await head.text()).toBe('PAR1')
    expect((await fetch(file.url, { headers: { Range: 'bytes=99999-' } })).status).toBe(416)
    expect((await fetch(file.url, { method: 'HEAD' })).status).toBe(403)
    const withToken = await fetch(file.url, { headers: AUTH })
    expect(withToken.status).toBe(400)
    expect(await withToken.text()).toContain('<Code>InvalidArgument</Code>')
    const again = parseLines(await (await query('letters')).text())
    expect(again.slice(2).map(l => l.file.id)).toEqual(files.map(f => f.id))
  })

  it('travels by version and timestamp, and refuses it where history is not shared', async () => {
    const v0 = await query('letters', { version: 0 })
    expect(v0.headers.get('Delta-Table-Version')).toBe('0')
    const files = parseLines(await v0.text()).slice(2)
    expect(files).toHaveLength(3)
    expect(files[0].file).toMatchObject({ version: 0, timestamp: expect.any(Number) })
    const future = await query('letters', { timestamp: '2999-01-01T00:00:00Z' })
    expect(future.headers.get('Delta-Table-Version')).toBe('1')
    for (const body of [
      { version: 7 },
      { timestamp: '2000-01-01T00:00:00Z' },
      { timestamp: 'yesterday' },
      { version: -1 },
    ]) {
      const res = await query('letters', body)
      expect(res.status).toBe(400)
      expect((await res.json()).errorCode).toBe('INVALID_PARAMETER_VALUE')
    }
    const refused = await query('shares/retail/schemas/legacy/tables/no_history', { version: 0 })
    expect(refused.status).toBe(400)
    expect((await refused.json()).message).toContain('history sharing')
    expect((await query('shares/retail/schemas/legacy/tables/no_history')).status).toBe(200)
    expect((await api('shares/retail/schemas/sales/tables/letters/version')).headers.get('Delta-Table-Version')).toBe(
      '1',
    )
    const head = await api('shares/retail/schemas/sales/tables/letters', { method: 'HEAD' })
    expect(head.headers.get('Delta-Table-Version')).toBe('1')
    const since = await api('shares/retail/schemas/sales/tables/letters/version?startingTimestamp=2000-01-01T00:00:00Z')
    expect(since.headers.get('Delta-Table-Version')).toBe('0')
  })

  it('answers delta format with deletion vectors rewritten to pre-signed "p" descriptors', async () => {
    const res = await query('dv', {}, DELTA_DV)
    expect(res.headers.get('delta-sharing-capabilities')).toBe('responseformat=delta')
    const [protocol, metadata, ...files] = parseLines(await res.text())
    expect(protocol.protocol.deltaProtocol).toMatchObject({ minReaderVersion: 3, readerFeatures: ['deletionVectors'] })
    expect(metadata.metaData).toMatchObject({ location: 's3://sharing-test/retail.sales.dv', version: 1, numFiles: 2 })
    expect(metadata.metaData.deltaMetadata.schemaString).toContain('"id"')
    const withDv = files.map(l => l.file).find(f => f.deltaSingleAction.add.deletionVector)
    const add = withDv.deltaSingleAction.add
    expect(add.path.startsWith(`${server.origin}/files/retail.sales.dv/`)).toBe(true)
    expect(add.deletionVector).toMatchObject({ storageType: 'p', offset: 1, sizeInBytes: 36, cardinality: 2 })
    expect(withDv.deletionVectorFileId).toMatch(/^[0-9a-f]{40}$/)
    expect(add.stats).toContain('"tightBounds":false')
    const dvFile = await fetch(add.deletionVector.pathOrInlineDv)
    expect(dvFile.status).toBe(200)
    const local = readFileSync(join(DV, 'deletion_vector_899cef78-06b3-4c14-b024-03860e62cd40.bin'))
    expect(Buffer.from(await dvFile.arrayBuffer()).equals(local)).toBe(true)

    const cm = await queryLines(
      'lab/schemas/golden/tables/dv_cm'.replace(/^/, 'shares/'),
      {},
      {
        'delta-sharing-capabilities': 'ResponseFormat=Delta;ReaderFeatures=DeletionVectors,ColumnMapping',
      },
    )
    const cmDv = cm[2].file.deltaSingleAction.add.deletionVector
    expect((await fetch(cmDv.pathOrInlineDv)).status).toBe(200)
    const checkpointed = await queryLines('shares/lab/schemas/golden/tables/dv_checkpoint', {}, DELTA_DV)
    expect(checkpointed[1].metaData.version).toBe(46)
  })

  it('refuses parquet for a table needing reader features, and delta without the features listed', async () => {
    const cases: Record<string, string>[] = [{}, { 'delta-sharing-capabilities': 'responseformat=parquet' }]
    for (const headers of cases) {
      const res = await query('dv', {}, headers)
      expect(res.status).toBe(400)
      const error = await res.json()
      expect(error.errorCode).toBe('UNSUPPORTED_OPERATION')
      expect(error.message).toContain('deletionVectors')
    }
    const res = await query('shares/lab/schemas/golden/tables/dv_cm', {}, DELTA_DV)
    expect(res.status).toBe(400)
    expect((await res.json()).message).toContain('columnMapping')
    const either = { 'delta-sharing-capabilities': 'responseformat=delta,parquet;readerfeatures=deletionvectors' }
    expect((await query('letters', {}, either)).headers.get('delta-sharing-capabilities')).toBe(
      'responseformat=parquet',
    )
    expect((await query('dv', {}, either)).headers.get('delta-sharing-capabilities')).toBe('responseformat=delta')
    const meta = await api('shares/retail/schemas/sales/tables/dv/metadata', { headers: DELTA_DV })
    expect(meta.headers.get('Delta-Table-Version')).toBe('1')
    expect(parseLines(await meta.text()).map(l => Object.keys(l)[0])).toEqual(['protocol', 'metaData'])
  })

  it('answers a parquet-only table in parquet even when asked for delta, deletion vectors lost', async () => {
    const res = await query('shares/retail/schemas/legacy/tables/dv_legacy', {}, DELTA_DV)
    expect(res.headers.get('delta-sharing-capabilities')).toBe('responseformat=parquet')
    const [protocol, metadata, ...files] = parseLines(await res.text())
    expect(protocol).toEqual({ protocol: { minReaderVersion: 1 } })
    expect(metadata.metaData.configuration['delta.enableDeletionVectors']).toBe('true')
    expect(files.map(l => Object.keys(l.file).sort())).toContainEqual(
      ['expirationTimestamp', 'id', 'partitionValues', 'size', 'stats', 'url'].sort(),
    )
  })

  it('pages with maxFiles: every page repeats protocol and metaData and ends with endStreamAction', async () => {
    const all = (await queryLines('letters')).slice(2).map(l => l.file.id)
    const first = await queryLines('letters', { maxFiles: 4 })
    expect(first.map(l => Object.keys(l)[0])).toEqual([
      'protocol',
      'metaData',
      'file',
      'file',
      'file',
      'file',
      'endStreamAction',
    ])
    const end = first[6].endStreamAction
    expect(end.minUrlExpirationTimestamp).toBeGreaterThan(Date.now())
    const second = await queryLines('letters', { maxFiles: 4, pageToken: end.nextPageToken })
    expect(second.map(l => Object.keys(l)[0])).toEqual(['protocol', 'metaData', 'file', 'file', 'endStreamAction'])
    expect(second[4].endStreamAction.nextPageToken).toBeUndefined()
    expect([...first.slice(2, 6), ...second.slice(2, 4)].map(l => l.file.id)).toEqual(all)
    const changed = await query('letters', { maxFiles: 4, pageToken: end.nextPageToken, limitHint: 1 })
    expect(changed.status).toBe(400)
    expect((await changed.json()).message).toContain('differ from those of the first page')
  })

  it('refreshes URLs with a refresh token: same version and files, fresh URLs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sharing-'))
    cpSync(LETTERS, dir, { recursive: true })
    const commit1 = join(dir, '_delta_log', '00000000000000000001.json')
    renameSync(commit1, `${commit1}.later`)
    const own = await startSharingServer({ tables: [{ share: 's', schema: 'd', table: 't', dir }] })
    try {
      const path = `${own.endpoint}shares/s/schemas/d/tables/t/query`
      const post = (body: unknown) => fetch(path, { method: 'POST', headers: AUTH, body: JSON.stringify(body) })
      const original = parseLines(await (await post({ includeRefreshToken: true })).text())
      const token = original[original.length - 1].endStreamAction.refreshToken
      expect(token).toEqual(expect.any(String))
      renameSync(`${commit1}.later`, commit1) // version 1 is committed meanwhile
      own.setUrlLifetime(7200)
      const refreshed = await post({ refreshToken: token })
      expect(refreshed.headers.get('Delta-Table-Version')).toBe('0')
      const files = parseLines(await refreshed.text()).slice(2)
      expect(files.map(l => l.file.id)).toEqual(original.slice(2, -1).map(l => l.file.id))
      expect(files[0].file.url).not.toBe(original[2].file.url)
      for (const body of [{ refreshToken: 'garbage' }, { includeRefreshToken: true, version: 0 }]) {
        const res = await post(body)
        expect(res.status).toBe(400)
        expect((await res.json()).errorCode).toBe('INVALID_PARAMETER_VALUE')
      }
      const foreign = await query('letters', { refreshToken: token })
      expect((await foreign.json()).message).toContain('not one this server issued')
      const ours = parseLines(await (await query('letters', { includeRefreshToken: true })).text()).pop()!
      const other = await query('shares/retail/schemas/legacy/tables/no_history', {
        refreshToken: ours.endStreamAction.refreshToken,
      })
      expect((await other.json()).message).toContain('another table')
    } finally {
      await own.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('expires file URLs (403 AccessDenied) and rejects tampered ones (403 SignatureDoesNotMatch)', async () => {
    server.setUrlLifetime(0.2)
    try {
      const lines = await queryLines('letters')
      const url = new URL(lines[2].file.url)
      expect(Number(url.searchParams.get('X-Sharing-Expires')) - Date.now()).toBeLessThanOrEqual(200)
      expect((await fetch(url)).status).toBe(200)
      const tampered = new URL(url)
      tampered.searchParams.set('X-Sharing-Expires', String(Date.now() + 60_000))
      const bad = await fetch(tampered)
      expect(bad.status).toBe(403)
      expect(await bad.text()).toContain('<Code>SignatureDoesNotMatch</Code>')
      await sleep(250)
      const expired = await fetch(url)
      expect(expired.status).toBe(403)
      const xml = await expired.text()
      expect(xml).toMatch(/^<\?xml /)
      expect(xml).toContain('<Code>AccessDenied</Code><Message>Request has expired</Message>')
    } finally {
      server.setUrlLifetime(3600)
    }
  })

  it('prunes partitions by jsonPredicateHints, keeps all files when it cannot apply them, and takes limitHint', async () => {
    const column = { op: 'column', name: 'letter', valueType: 'string' }
    const literal = (value: string) => ({ op: 'literal', value, valueType: 'string' })
    const letters = async (predicate: unknown) => {
      const hints = typeof predicate === 'string' ? predicate : JSON.stringify(predicate)
      const lines = await queryLines('letters', { jsonPredicateHints: hints })
      return lines.slice(2).map(l => l.file.partitionValues.letter)
    }
    expect(await letters({ op: 'equal', children: [column, literal('a')] })).toEqual(['a', 'a'])
    expect(await letters({ op: 'lessThan', children: [column, literal('c')] })).toEqual(['a', 'a', 'b'])
    expect(await letters({ op: 'isNull', children: [column] })).toEqual([null])
    const notA = { op: 'not', children: [{ op: 'equal', children: [column, literal('a')] }] }
    expect(
      await letters({ op: 'and', children: [notA, { op: 'not', children: [{ op: 'isNull', children: [column] }] }] }),
    ).toEqual(['b', 'c', 'e'])
    expect(await letters('{not json')).toHaveLength(6)
    expect(
      await letters({ op: 'equal', children: [{ op: 'column', name: 'number', valueType: 'long' }, literal('1')] }),
    ).toHaveLength(6)
    expect((await queryLines('letters', { limitHint: 2 })).slice(2)).toHaveLength(2)
  })
})

describe('sharing server: faults, OAuth, CORS and the log', () => {
  it('sends what inject returns (429 with Retry-After) and logs it', async () => {
    injectNext = {
      status: 429,
      headers: { 'Retry-After': '1', 'Content-Type': 'application/json' },
      body: '{"errorCode":"TOO_MANY"}',
    }
    const limited = await query('letters')
    expect(limited.status).toBe(429)
    expect(limited.headers.get('Retry-After')).toBe('1')
    expect((await query('letters')).status).toBe(200)
    const entries = server.log.filter(e => e.path.endsWith('/letters/query')).slice(-2)
    expect(entries.map(e => e.status)).toEqual([429, 200])
    expect(entries[0]).toMatchObject({ method: 'POST', kind: 'api', authorization: 'Bearer test-token', body: '{}' })
  })

  it('issues expiring OAuth tokens for client credentials in the form body or HTTP Basic', async () => {
    const profile = server.profile({ version: 2 })
    expect(profile).toEqual({
      shareCredentialsVersion: 2,
      type: 'oauth_client_credentials',
      endpoint: server.endpoint,
      tokenEndpoint: `${server.origin}/oauth/token`,
      clientId: 'app',
      clientSecret: 's3cret',
    })
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' }
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(profile.tokenEndpoint as string, { method: 'POST', body, headers: { ...form, ...headers } })
    const byForm = await post('grant_type=client_credentials&client_id=app&client_secret=s3cret')
    const token = await byForm.json()
    expect(token).toEqual({ access_token: expect.any(String), token_type: 'bearer', expires_in: 1.5 })
    const basic = { Authorization: `Basic ${Buffer.from('app:s3cret').toString('base64')}` }
    expect((await post('grant_type=client_credentials', basic)).status).toBe(200)
    const wrong = await post('grant_type=client_credentials&client_id=app&client_secret=nope')
    expect(wrong.status).toBe(401)
    expect(await wrong.json()).toEqual({ error: 'invalid_client' })
    expect((await post('grant_type=password&client_id=app&client_secret=s3cret')).status).toBe(400)
    const bearer = { Authorization: `Bearer ${token.access_token}` }
    expect((await fetch(`${server.endpoint}shares`, { headers: bearer })).status).toBe(200)
    await sleep(1600)
    const late = await fetch(`${server.endpoint}shares`, { headers: bearer })
    expect(late.status).toBe(401)
    expect((await late.json()).message).toContain('expired')
    expect(server.profile()).toEqual({
      shareCredentialsVersion: 1,
      endpoint: server.endpoint,
      bearerToken: 'test-token',
    })
  })

  it('answers CORS preflights without a token and exposes the sharing headers (only with cors on)', async () => {
    const origin = { Origin: 'http://page.test' }
    const preflight = await fetch(`${server.endpoint}shares/retail/schemas/sales/tables/letters/query`, {
      method: 'OPTIONS',
      headers: {
        ...origin,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization',
      },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('Access-Control-Allow-Origin')).toBe('http://page.test')
    expect(preflight.headers.get('Access-Control-Allow-Headers')).toContain('delta-sharing-capabilities')
    expect(server.log[server.log.length - 1]).toMatchObject({ kind: 'preflight', method: 'OPTIONS', status: 204 })
    const version = await api('shares/retail/schemas/sales/tables/letters/version', { headers: origin })
    expect(version.headers.get('Access-Control-Allow-Origin')).toBe('http://page.test')
    expect(version.headers.get('Access-Control-Expose-Headers')).toContain('Delta-Table-Version')
    const file = (await queryLines('letters'))[2].file
    expect((await fetch(file.url, { headers: origin })).headers.get('Access-Control-Allow-Origin')).toBe(
      'http://page.test',
    )

    const plain = await startSharingServer({ tables: [{ share: 's', schema: 'd', table: 't', dir: LETTERS }] })
    try {
      const res = await fetch(`${plain.endpoint}shares`, { headers: { ...AUTH, ...origin } })
      expect(res.headers.get('Access-Control-Allow-Origin')).toBeNull()
      expect((await fetch(`${plain.endpoint}shares`, { method: 'OPTIONS', headers: origin })).status).toBe(405)
    } finally {
      await plain.close()
    }
  })

  it('logs every request, with the token on API routes only', async () => {
    const own = await startSharingServer({
      tables: [{ share: 's', schema: 'd', table: 't', dir: LETTERS }],
      tokens: ['tok'],
    })
    try {
      const res = await fetch(`${own.endpoint}shares/s/schemas/d/tables/t/query`, {
        method: 'POST',
        headers: { Authorization: 'Bearer tok', 'delta-sharing-capabilities': 'responseformat=parquet' },
        body: '{"maxFiles":1}',
      })
      const url = parseLines(await res.text())[2].file.url
      await fetch(url, { headers: { Range: 'bytes=0-7' } })
      expect(own.log).toEqual([
        {
          at: expect.any(Number),
          method: 'POST',
          kind: 'api',
          path: '/delta-sharing/shares/s/schemas/d/tables/t/query',
          query: '',
          authorization: 'Bearer tok',
          capabilities: 'responseformat=parquet',
          body: '{"maxFiles":1}',
          status: 200,
        },
        {
          at: expect.any(Number),
          method: 'GET',
          kind: 'file',
          path: expect.stringMatching(/^\/files\/s\.d\.t\/letter=/),
          query: expect.stringContaining('X-Sharing-Signature='),
          range: 'bytes=0-7',
          status: 206,
        },
      ])
    } finally {
      await own.close()
    }
  })
})
