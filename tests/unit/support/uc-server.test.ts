import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AwsClient } from 'aws4fetch'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type S3Server, startS3Server } from '../../support/s3-server.ts'
import { startUcServer, type UcServer } from '../../support/uc-server.ts'

const COMMIT = '_delta_log/00000000000000000000.json'

let dir: string
let s3: S3Server
let uc: UcServer
/** The S3 server's clock (credential expiry): stands still at T0 but for what a test moves it. */
let ahead = 0
const T0 = Date.now()
const now = (): number => T0 + ahead

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'snaptrain-uc-'))
  for (const table of ['clicks', 'marketing']) {
    await mkdir(join(dir, 'tables', table, '_delta_log'), { recursive: true })
    await writeFile(join(dir, 'tables', table, COMMIT), `{"table":"${table}"}\n`)
  }
  s3 = await startS3Server({ root: dir, now })
  uc = await startUcServer({
    s3,
    tables: { 'main.default.clicks': 'tables/clicks', 'main.default.marketing': 'tables/marketing' },
  })
})

afterAll(async () => {
  await uc?.close()
  await s3?.close()
  await rm(dir, { recursive: true, force: true })
})

const api = (path: string) => `${uc.endpoint}api/2.1/unity-catalog/${path}`
const bearer = () => ({ Authorization: `Bearer ${uc.token}` })

async function getTable(name: string, headers: Record<string, string> = bearer()): Promise<Response> {
  return fetch(api(`tables/${encodeURIComponent(name)}`), { headers })
}

async function vend(body: unknown): Promise<Response> {
  return fetch(api('temporary-table-credentials'), {
    method: 'POST',
    headers: { ...bearer(), 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  })
}

interface Vended {
  aws_temp_credentials: { access_key_id: string; secret_access_key: string; session_token: string }
  expiration_time: number
  url: string
}

function s3Client(v: Vended): AwsClient {
  const c = v.aws_temp_credentials
  return new AwsClient({
    accessKeyId: c.access_key_id,
    secretAccessKey: c.secret_access_key,
    sessionToken: c.session_token,
    service: 's3',
    region: s3.region,
    retries: 0,
  })
}

/** s3://<bucket>/<prefix> → the S3 server's URL for it (the bucket is the server's root). */
function httpLocation(location: string): string {
  const m = /^s3:\/\/([^/]+)\/(.*)$/.exec(location)!
  expect(m[1]).toBe(s3.bucket)
  return `${s3.endpoint}${m[2]}/`
}

describe('UC test server', () => {
  it('looks a table up and vends READ credentials that open it on the S3 server', async () => {
    const res = await getTable('main.default.clicks')
    expect(res.status).toBe(200)
    const info = (await res.json()) as Record<string, string>
    expect(info).toMatchObject({
      name: 'clicks',
      catalog_name: 'main',
      schema_name: 'default',
      table_type: 'EXTERNAL',
      data_source_format: 'DELTA',
      storage_location: `s3://${s3.bucket}/tables/clicks`,
    })
    expect(info.table_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/)
    const before = now()
    const vended = await vend({ table_id: info.table_id, operation: 'READ' })
    expect(vended.status).toBe(200)
    const v = (await vended.json()) as Vended
    expect(v.aws_temp_credentials.access_key_id).toMatch(/^ASIA/)
    expect(v.url).toBe(info.storage_location)
    expect(v.expiration_time).toBeGreaterThanOrEqual(before + 3_600_000)
    expect(v.expiration_time).toBeLessThanOrEqual(now() + 3_600_000)
    const root = httpLocation(info.storage_location)
    const commit = await s3Client(v).fetch(root + COMMIT)
    expect([commit.status, await commit.text()]).toEqual([200, '{"table":"clicks"}\n'])
    const prefix = encodeURIComponent('tables/clicks/_delta_log/')
    const list = await s3Client(v).fetch(`${s3.endpoint}?list-type=2&prefix=${prefix}&delimiter=/`)
    expect(await list.text()).toContain(`<Key>tables/clicks/${COMMIT}</Key>`)
    // The credentials are the table's, not the bucket's.
    const other = await s3Client(v).fetch(`${s3.endpoint}tables/marketing/${COMMIT}`)
    expect(other.status).toBe(403)
    await other.text()
  })

  it('answers 401 UNAUTHENTICATED without the bearer token', async () => {
    const none = await getTable('main.default.clicks', {})
    expect([none.status, await none.json()]).toMatchObject([401, { error_code: 'UNAUTHENTICATED' }])
    const wrong = await getTable('main.default.clicks', { Authorization: 'Bearer nope' })
    expect(wrong.status).toBe(401)
    await wrong.text()
    expect(uc.log.at(-1)).toMatchObject({
      method: 'GET',
      path: '/api/2.1/unity-catalog/tables/main.default.clicks',
      authorization: 'Bearer nope',
      status: 401,
    })
  })

  it('answers 404 TABLE_NOT_FOUND for unknown names and ids, 400 for bad bodies', async () => {
    const missing = await getTable('main.default.nope')
    expect(missing.status).toBe(404)
    expect(await missing.json()).toMatchObject({
      error_code: 'TABLE_NOT_FOUND',
      message: 'Table not found: main.default.nope',
    })
    const noId = await vend({ table_id: '00000000-0000-4000-a000-000000000000', operation: 'READ' })
    expect([noId.status, ((await noId.json()) as { error_code: string }).error_code]).toEqual([404, 'TABLE_NOT_FOUND'])
    const bad = await vend({ operation: 'READ' })
    expect([bad.status, ((await bad.json()) as { error_code: string }).error_code]).toEqual([400, 'INVALID_ARGUMENT'])
    const info = (await (await getTable('main.default.marketing')).json()) as { table_id: string }
    const write = await vend({ table_id: info.table_id, operation: 'READ_WRITE' })
    expect([write.status, ((await write.json()) as { error_code: string }).error_code]).toEqual([
      403,
      'PERMISSION_DENIED',
    ])
  })

  it('vends credentials that expire after the configured lifetime', async () => {
    const info = (await (await getTable('main.default.marketing')).json()) as {
      table_id: string
      storage_location: string
    }
    uc.setCredentialLifetime(0.25)
    try {
      const v = (await (await vend({ table_id: info.table_id, operation: 'READ' })).json()) as Vended
      expect(v.expiration_time - now()).toBeLessThanOrEqual(250)
      const url = httpLocation(info.storage_location) + COMMIT
      const fresh = await s3Client(v).fetch(url)
      expect([fresh.status, await fresh.text()]).toEqual([200, '{"table":"marketing"}\n'])
      ahead += 300 // past the expiry, on the S3 server's clock
      const stale = await s3Client(v).fetch(url)
      expect(stale.status).toBe(400)
      expect(await stale.text()).toContain('<Code>ExpiredToken</Code>')
    } finally {
      uc.setCredentialLifetime(3600)
    }
  })
})
