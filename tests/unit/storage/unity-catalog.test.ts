import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openTableAccess } from '../../../src/sources/index.ts'
import { openUnityCatalogTable, unityCatalogProvider } from '../../../src/storage/unity-catalog.ts'
import { fetchText } from '../../../src/table/http.ts'
import { TableError } from '../../../src/table/types.ts'
import { fakeS3 } from './fake-s3.ts'

const TOKEN = 'dapi-uc-token-0123456789'
const STORAGE = 'https://bucket.storage.test'

/** A Unity-Catalog-like server: tables by full name, one token, READ grants per table. */
interface UcServer {
  url: string
  seen: { method: string; path: string; authorization?: string; body?: string }[]
  close(): Promise<void>
}

const s3 = fakeS3(STORAGE, { 'tables/clicks/_delta_log/00000000000000000000.json': '{"commitInfo":{}}' })

const TABLES: Record<
  string,
  { table_id: string; storage_location: string; data_source_format: string; grant: boolean }
> = {
  'main.web.clicks': {
    table_id: 'tid-clicks',
    storage_location: 's3://bucket/tables/clicks',
    data_source_format: 'DELTA',
    grant: true,
  },
  'main.web.secret': {
    table_id: 'tid-secret',
    storage_location: 's3://bucket/tables/secret',
    data_source_format: 'DELTA',
    grant: false,
  },
  'main.web.csv': {
    table_id: 'tid-csv',
    storage_location: 's3://bucket/tables/csv',
    data_source_format: 'CSV',
    grant: true,
  },
  'main.web.azure': {
    table_id: 'tid-az',
    storage_location: 'abfss://c@acct.dfs.core.windows.net/t',
    data_source_format: 'DELTA',
    grant: true,
  },
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const c of req) chunks.push(c as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' })
  res.end(JSON.stringify(value))
}

async function startUc(): Promise<UcServer> {
  const seen: UcServer['seen'] = []
  const server: Server = createServer(async (req, res) => {
    const text = await body(req)
    const path = decodeURIComponent(new URL(req.url!, 'http://x').pathname)
    seen.push({ method: req.method!, path, authorization: req.headers.authorization, body: text || undefined })
    if (path.endsWith('/tables/main.web.hang')) return // never answers
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      return json(res, 401, { error_code: 'UNAUTHENTICATED', message: 'Invalid access token.' })
    }
    const prefix = '/api/2.1/unity-catalog/'
    if (req.method === 'GET' && path.startsWith(`${prefix}tables/`)) {
      const name = path.slice(`${prefix}tables/`.length)
      const t = TABLES[name]
      if (!t) return json(res, 404, { error_code: 'NOT_FOUND', message: `Table not found: ${name}` })
      return json(res, 200, {
        name: name.split('.')[2],
        catalog_name: 'main',
        schema_name: 'web',
        ...t,
        grant: undefined,
      })
    }
    if (req.method === 'POST' && path === `${prefix}temporary-table-credentials`) {
      const { table_id, operation } = JSON.parse(text) as { table_id: string; operation: string }
      const t = Object.values(TABLES).find(x => x.table_id === table_id)
      if (!t) return json(res, 404, { error_code: 'NOT_FOUND', message: `Table not found: ${table_id}` })
      if (!t.grant || operation !== 'READ') {
        return json(res, 403, { error_code: 'PERMISSION_DENIED', message: 'User does not have SELECT on Table' })
      }
      const c = s3.issue(60_000)
      return json(res, 200, {
        aws_temp_credentials: {
          access_key_id: c.accessKeyId,
          secret_access_key: c.secretAccessKey,
          session_token: c.sessionToken,
        },
        expiration_time: c.expiration,
        url: t.storage_location,
      })
    }
    json(res, 404, { error_code: 'NOT_FOUND', message: 'no such endpoint' })
  })
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
  return {
    url,
    seen,
    close: () =>
      new Promise(r => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
}

let uc: UcServer
beforeAll(async () => {
  uc = await startUc()
})
afterAll(() => uc.close())

async function failure(p: Promise<unknown>): Promise<TableError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(TableError)
  expect((error as Error).message).not.toContain(TOKEN)
  return error as TableError
}

describe('Unity Catalog credential vending', () => {
  it('finds the table and vends READ credentials for it', async () => {
    const before = uc.seen.length
    const t = await openUnityCatalogTable({
      endpoint: uc.url,
      token: TOKEN,
      table: 'main.web.clicks',
      s3Endpoint: STORAGE,
    })
    expect(t).toMatchObject({
      name: 'main.web.clicks',
      tableId: 'tid-clicks',
      storageLocation: 's3://bucket/tables/clicks',
      tableUrl: `${STORAGE}/tables/clicks/`,
    })
    const c = await t.provider()
    expect(c.accessKeyId).toMatch(/^ASIAFAKE/)
    expect(c.sessionToken).toMatch(/^token-/)
    expect(c.expiration).toBeGreaterThan(Date.now())
    const calls = uc.seen.slice(before)
    expect(calls.map(s => `${s.method} ${s.path}`)).toEqual([
      'GET /api/2.1/unity-catalog/tables/main.web.clicks',
      'POST /api/2.1/unity-catalog/temporary-table-credentials',
    ])
    expect(JSON.parse(calls[1].body!)).toEqual({ table_id: 'tid-clicks', operation: 'READ' })
    // A fresh vend on each call: the resolver renews through it.
    expect((await t.provider()).accessKeyId).not.toBe(c.accessKeyId)
  })

  it('accepts an endpoint that already names the API path', async () => {
    const t = await openUnityCatalogTable({
      endpoint: `${uc.url}api/2.1/unity-catalog`,
      token: TOKEN,
      table: 'main.web.clicks',
    })
    expect(t.tableUrl).toBe('https://bucket.s3.us-east-1.amazonaws.com/tables/clicks/')
  })

  it('reads the table with vended credentials; the token goes to the catalog only', async () => {
    const before = s3.requests.length
    const { tableUrl, resolver } = await openTableAccess({
      kind: 'unity-catalog',
      endpoint: uc.url,
      token: TOKEN,
      table: 'main.web.clicks',
      s3Endpoint: STORAGE,
    })
    const text = await fetchText(`${tableUrl}_delta_log/00000000000000000000.json`, { fetch: s3.fetch, resolver })
    expect(text).toBe('{"commitInfo":{}}')
    const storage = s3.requests.slice(before)
    expect(storage.map(r => r.status)).toEqual([200])
    for (const r of storage) {
      expect(r.headers.get('authorization')).toMatch(/^AWS4-HMAC-SHA256 /)
      expect([...r.headers.values()].join(' ')).not.toContain(TOKEN)
    }
  })

  it('a worker’s provider looks the table id up itself', async () => {
    const provider = unityCatalogProvider({ endpoint: uc.url, token: TOKEN, table: 'main.web.clicks' })
    const before = uc.seen.length
    await provider()
    await provider()
    expect(uc.seen.slice(before).map(s => s.method)).toEqual(['GET', 'POST', 'POST'])
  })

  it('says the token was refused (401), with the server’s message', async () => {
    const error = await failure(
      openUnityCatalogTable({ endpoint: uc.url, token: 'wrong-token', table: 'main.web.clicks' }),
    )
    expect(error.message).toBe(
      `Unity Catalog table main.web.clicks at ${uc.url}api/2.1/unity-catalog/: the catalog refused the token ` +
        '(401: UNAUTHENTICATED: Invalid access token.)',
    )
    expect(error.message).not.toContain('wrong-token')
  })

  it('says the table does not exist (404)', async () => {
    const error = await failure(openUnityCatalogTable({ endpoint: uc.url, token: TOKEN, table: 'main.web.nope' }))
    expect(error.code).toBe('not-a-table')
    expect(error.message).toMatch(
      /main\.web\.nope .*no such table in the catalog \(404: NOT_FOUND: Table not found: main\.web\.nope\)$/,
    )
  })

  it('says there is no grant (403) when vending is refused', async () => {
    const t = await openUnityCatalogTable({
      endpoint: uc.url,
      token: TOKEN,
      table: 'main.web.secret',
      s3Endpoint: STORAGE,
    })
    const error = await failure(t.provider())
    expect(error.message).toMatch(
      /main\.web\.secret .*no grant to read it \(POST temporary-table-credentials\) \(403: PERMISSION_DENIED: User does not have SELECT on Table\)$/,
    )
  })

  it('refuses tables it cannot read: not Delta, not on S3', async () => {
    const csv = await failure(openUnityCatalogTable({ endpoint: uc.url, token: TOKEN, table: 'main.web.csv' }))
    expect(csv.code).toBe('unsupported-feature')
    expect(csv.message).toMatch(/is a CSV table, not Delta/)
    const az = await failure(openUnityCatalogTable({ endpoint: uc.url, token: TOKEN, table: 'main.web.azure' }))
    expect(az.message).toBe('Unity Catalog table main.web.azure: its storage is abfss:, only s3:// is supported')
  })

  it('bounds every wait: a catalog that does not answer times out', async () => {
    const started = Date.now()
    const error = await failure(
      openUnityCatalogTable({
        endpoint: uc.url,
        token: TOKEN,
        table: 'main.web.hang',
        http: { timeoutMs: 200, attempts: 1 },
      }),
    )
    expect(error.message).toMatch(/main\.web\.hang .*timed out after 200 ms/)
    expect(Date.now() - started).toBeLessThan(5_000)
  })

  it('refuses a name that is not catalog.schema.table', () => {
    expect(() => unityCatalogProvider({ endpoint: uc.url, token: TOKEN, table: 'web.clicks' })).toThrow(
      /expected catalog\.schema\.table/,
    )
  })
})
