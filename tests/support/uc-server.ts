/**
 * A Unity-Catalog-like REST endpoint for tests: looks tables up by three-part name and vends
 * short-lived credentials for the S3 test server, scoped to the table's prefix. Shapes follow the
 * Unity Catalog OSS REST API (unitycatalog/unitycatalog `api/all.yaml`): TableInfo from
 * `GET tables/{full_name}`, TemporaryCredentials from `POST temporary-table-credentials`, and
 * errors as the OSS server writes them: `{ error_code, message, details }`.
 *
 * Statuses: 401 UNAUTHENTICATED without the bearer token, 404 TABLE_NOT_FOUND for an unknown name
 * or table id, 400 INVALID_ARGUMENT for a malformed body, 403 PERMISSION_DENIED for READ_WRITE
 * (the S3 server is read-only), 404 NOT_FOUND for other paths.
 */
import { createServer } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { createHash } from 'node:crypto'
import type { S3Server } from './s3-server.ts'

/** Options of `startUcServer`. */
export interface UcServerOptions {
  /** The S3 server holding the tables; vended credentials are its temporary keys. */
  s3: S3Server
  /** Three-part name ('main.default.clicks') → key prefix of the table in the bucket ('tables/clicks'). */
  tables: Record<string, string>
  /** Bearer token clients must send; default 'uc-token'. */
  token?: string
  /** Lifetime of vended credentials, seconds (fractional allowed); default 3600. */
  credentialLifetimeS?: number
  /** Answer CORS preflights and add CORS headers so a browser page can call the API; default false. */
  cors?: boolean
}

/** A running catalog server. */
export interface UcServer {
  /** 'http://127.0.0.1:PORT/': the catalog base; the API lives under api/2.1/unity-catalog/. */
  endpoint: string
  token: string
  log: Array<{ at: number; method: string; path: string; authorization?: string; status: number }>
  /** Lifetime of credentials vended from now on, seconds. */
  setCredentialLifetime(s: number): void
  close(): Promise<void>
}

const API = '/api/2.1/unity-catalog/'

interface Table {
  fullName: string
  prefix: string
  id: string
}

interface State {
  s3: S3Server
  token: string
  lifetimeS: number
  cors: boolean
  byName: Map<string, Table>
  byId: Map<string, Table>
  createdAt: number
  log: UcServer['log']
}

/** A UC API error: HTTP status, error_code and message. */
class UcError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

/** Serves the catalog at `http://127.0.0.1:PORT/` until `close()`. */
export async function startUcServer(opts: UcServerOptions): Promise<UcServer> {
  const tables = Object.entries(opts.tables).map(([fullName, prefix]) => ({
    fullName,
    prefix: prefix.replace(/^\/+|\/+$/g, ''),
    id: tableId(fullName),
  }))
  const state: State = {
    s3: opts.s3,
    token: opts.token ?? 'uc-token',
    lifetimeS: opts.credentialLifetimeS ?? 3600,
    cors: opts.cors ?? false,
    byName: new Map(tables.map(t => [t.fullName, t])),
    byId: new Map(tables.map(t => [t.id, t])),
    createdAt: Date.now(),
    log: [],
  }
  const sockets = new Set<Socket>()
  const server = createServer((req, res) => void handle(state, req, res))
  server.on('connection', s => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const addr = server.address()
  if (!addr || typeof addr === 'string') throw new Error('UC server did not bind a TCP port')
  return {
    endpoint: `http://127.0.0.1:${addr.port}/`,
    token: state.token,
    log: state.log,
    setCredentialLifetime: s => void (state.lifetimeS = s),
    close: () =>
      new Promise<void>(resolve => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}

/** A stable UUID-shaped id per name, so ids survive a server restart within a test. */
function tableId(fullName: string): string {
  const h = createHash('sha256').update(fullName).digest('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`
}

async function handle(state: State, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const method = req.method ?? 'GET'
  const path = new URL(req.url ?? '/', 'http://x').pathname
  const entry = { at: Date.now(), method, path, authorization: req.headers.authorization, status: 0 }
  state.log.push(entry)
  if (state.cors && req.headers.origin !== undefined) {
    res.setHeader('Access-Control-Allow-Origin', '*')
    res.setHeader('Vary', 'Origin')
  }
  let status = 200
  let body: unknown
  try {
    if (method === 'OPTIONS' && state.cors) return preflight(res, entry)
    body = await route(state, method, path, req)
  } catch (e) {
    const err = e instanceof UcError ? e : new UcError(500, 'INTERNAL', String(e))
    status = err.status
    body = {
      error_code: err.code,
      message: err.message,
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: err.code }],
    }
  }
  const bytes = Buffer.from(JSON.stringify(body), 'utf8')
  entry.status = status
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': bytes.length }).end(bytes)
}

function preflight(res: ServerResponse, entry: { status: number }): void {
  entry.status = 204
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST')
  res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type')
  res.setHeader('Access-Control-Max-Age', '600')
  res.writeHead(204).end()
}

async function route(state: State, method: string, path: string, req: IncomingMessage): Promise<unknown> {
  const auth = req.headers.authorization
  if (auth === undefined) throw new UcError(401, 'UNAUTHENTICATED', 'No authorization found.')
  if (auth !== `Bearer ${state.token}`) throw new UcError(401, 'UNAUTHENTICATED', 'Invalid access token.')
  if (method === 'GET' && path.startsWith(`${API}tables/`)) {
    return tableInfo(state, decodeURIComponent(path.slice(`${API}tables/`.length)))
  }
  if (method === 'POST' && path === `${API}temporary-table-credentials`) {
    return vend(state, await readJson(req))
  }
  throw new UcError(404, 'NOT_FOUND', `No route for ${method} ${path}`)
}

/** TableInfo of an external Delta table stored at s3://<bucket>/<prefix>. */
function tableInfo(state: State, fullName: string): Record<string, unknown> {
  const table = state.byName.get(fullName)
  if (!table) throw new UcError(404, 'TABLE_NOT_FOUND', `Table not found: ${fullName}`)
  const [catalog, schema, name] = fullName.split('.')
  return {
    name,
    catalog_name: catalog,
    schema_name: schema,
    table_type: 'EXTERNAL',
    data_source_format: 'DELTA',
    columns: [],
    storage_location: storageLocation(state, table),
    properties: {},
    owner: 'snaptrain-test',
    created_at: state.createdAt,
    created_by: 'snaptrain-test',
    updated_at: state.createdAt,
    updated_by: 'snaptrain-test',
    table_id: table.id,
  }
}

/** TemporaryCredentials for a READ of one table: S3 session credentials scoped to its prefix. */
function vend(state: State, body: unknown): Record<string, unknown> {
  const { table_id: id, operation } = (body ?? {}) as { table_id?: unknown; operation?: unknown }
  if (typeof id !== 'string' || typeof operation !== 'string') {
    throw new UcError(400, 'INVALID_ARGUMENT', 'table_id and operation are required')
  }
  const table = state.byId.get(id)
  if (!table) throw new UcError(404, 'TABLE_NOT_FOUND', `Neither table nor staging table found with id: ${id}`)
  if (operation === 'READ_WRITE')
    throw new UcError(403, 'PERMISSION_DENIED', 'This catalog vends READ credentials only.')
  if (operation !== 'READ') throw new UcError(400, 'INVALID_ARGUMENT', `Unsupported operation: ${operation}`)
  const creds = state.s3.issueCredentials(state.lifetimeS, { prefix: `${table.prefix}/` })
  return {
    aws_temp_credentials: {
      access_key_id: creds.accessKeyId,
      secret_access_key: creds.secretAccessKey,
      session_token: creds.sessionToken,
    },
    expiration_time: Date.parse(creds.expiration!),
    url: storageLocation(state, table),
  }
}

function storageLocation(state: State, table: Table): string {
  return `s3://${state.s3.bucket}/${table.prefix}`
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null')
  } catch {
    throw new UcError(400, 'INVALID_ARGUMENT', 'Request body is not valid JSON')
  }
}
