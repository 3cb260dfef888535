/**
 * A Delta Sharing server for tests, written from the published protocol (delta-io/delta-sharing
 * PROTOCOL.md): it shares local Delta tables over loopback HTTP behind bearer tokens (static, or
 * issued by an OAuth client-credentials endpoint), answers both response formats with paging and
 * refresh tokens, and hands out pre-signed file URLs that expire and fail as S3's do. Faults can be
 * injected before normal handling, and every request lands in a log.
 *
 * Why the reader's own log replay (src/table): the files answered at a version are then exactly
 * the ones a direct read of the table folder sees, so a test can compare a shared read with a
 * direct one. Where the spec leaves a choice, the reference server's behaviour (error codes,
 * messages, which parameters may be combined) is followed. Three choices a client meets:
 * a query without `maxFiles` is still cut into pages of `pageSize` (this server's own choice, so a
 * test can force paging on a client that never asks for it); `includeRefreshToken` and
 * `refreshToken` are refused beside `version`, `timestamp` or `pageToken` (the reference server's
 * rule); a file URL refuses an Authorization header beside its signature, as S3 does.
 *
 * This file holds the options, dispatch, routing and bearer-token check; the rest sits beside it:
 * sharing-lists.ts (share, schema and table lists), sharing-query.ts (queries, pages, refresh
 * tokens), sharing-format.ts (response format and lines), sharing-predicate.ts (file selection),
 * sharing-table.ts (log replay), sharing-files.ts (pre-signed URLs, the file route),
 * sharing-oauth.ts (the token endpoint) and sharing-common.ts (what they share).
 */
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { resolve } from 'node:path'
import { TableError } from '../../src/table/types.ts'
import {
  type Answer,
  ApiError,
  type Call,
  type Context,
  E,
  FILES,
  json,
  PREFIX,
  safeDecode,
  TOKEN_PATH,
  tableKey,
  unsupported,
} from './sharing-common.ts'
import { serveFile } from './sharing-files.ts'
import { capabilities, checkFileIdHash, metadataLine, ndjson, protocolLine, responseFormat } from './sharing-format.ts'
import { findTable, getShare, listAllTables, listSchemas, listShares, listTables } from './sharing-lists.ts'
import { issueToken } from './sharing-oauth.ts'
import { queryTable } from './sharing-query.ts'
import { checkHistory, openLog, parseTimestamp, resolveSnapshot, versionAtOrAfter } from './sharing-table.ts'

/** One shared table: where it sits in the share tree and which local folder holds it. */
export interface SharedTableSpec {
  share: string
  schema: string
  table: string
  /** Local table folder (the one holding `_delta_log/`). */
  dir: string
  /** Answer only responseformat=parquet for this table, whatever the client asks (a legacy server). */
  parquetOnly?: boolean
  /** Version and timestamp queries allowed (default true). */
  historyShared?: boolean
}

/** Options of `startSharingServer`. */
export interface SharingServerOptions {
  tables: SharedTableSpec[]
  /** Accepted bearer tokens (default ['test-token']). */
  tokens?: string[]
  /**
   * Enables `POST /oauth/token` (client_credentials grant; client id and secret in the form body or
   * HTTP Basic), which issues bearer tokens that expire after `tokenLifetimeS` (default 3600 s).
   */
  oauth?: { clientId: string; clientSecret: string; tokenLifetimeS?: number; scope?: string }
  /** Lifetime of pre-signed file URLs in seconds (default 3600; fractions allowed). */
  urlLifetimeS?: number
  /**
   * Serve the files under this path prefix and a folder per file, `/files/<table>/<prefix>/<digest
   * of the path>/<path>`, as an object store serves a shared table whose files live elsewhere: a
   * client sees neither the table's relative paths nor their order (default: the relative paths).
   */
  filePrefix?: string
  /** maxResults of list calls and maxFiles of queries when the client gives none (default 100). */
  pageSize?: number
  /**
   * Send CORS headers on API, token and file routes and answer OPTIONS preflights (default false:
   * the reference server sends none, so a browser client needs a proxy or a server that does).
   */
  cors?: boolean
  /**
   * Fault injection, asked before normal handling (and before the token check) of every request
   * but preflights: an answer returned is sent as it is, and logged.
   */
  inject?: (req: {
    method: string
    path: string
    kind: 'api' | 'file' | 'token'
  }) => { status: number; headers?: Record<string, string>; body?: string } | undefined
}

/** One request the server saw. */
export interface SharingRequest {
  /** ms since epoch when it arrived. */
  at: number
  method: string
  kind: 'api' | 'file' | 'token' | 'preflight'
  /** URL pathname, %-decoded. */
  path: string
  /** Query string without the '?'. */
  query: string
  authorization?: string
  range?: string
  status: number
  /** Request body of API POSTs. */
  body?: string
  /** The `delta-sharing-capabilities` request header. */
  capabilities?: string
  /** The `Origin` request header: a browser's cross-origin request carries it, a server-side client's does not. */
  origin?: string
}

/** A running server. */
export interface SharingServer {
  /** Profile endpoint, ending in '/': `http://127.0.0.1:PORT/delta-sharing/`. */
  endpoint: string
  /** `http://127.0.0.1:PORT`. */
  origin: string
  /** Every request, in arrival order. */
  log: SharingRequest[]
  /** A profile file object: v1 (bearer token) or v2 (OAuth client credentials; needs `oauth`). */
  profile(opts?: { version?: 1 | 2; expirationTime?: string; token?: string }): Record<string, unknown>
  /** Lifetime (s) of the file URLs handed out from now on. */
  setUrlLifetime(seconds: number): void
  close(): Promise<void>
}

const ALLOW_HEADERS = 'Authorization, Content-Type, delta-sharing-capabilities, fileidhash, Range'
const EXPOSE_HEADERS = 'Delta-Table-Version, delta-sharing-capabilities, fileidhash, Content-Range, Content-Length'

/**
 * Start the server on 127.0.0.1, port 0 (any free port).
 *
 * @throws Error when a table folder has no `_delta_log/` or two tables share a (case-insensitive) name
 */
export async function startSharingServer(opts: SharingServerOptions): Promise<SharingServer> {
  checkTables(opts.tables)
  const ctx: Context = {
    opts,
    origin: '',
    secret: randomBytes(32),
    urlLifetimeMs: (opts.urlLifetimeS ?? 3600) * 1000,
    pageSize: opts.pageSize ?? 100,
    issued: new Map(),
  }
  const log: SharingRequest[] = []
  const server = createServer((req, res) => {
    handle(ctx, log, req, res).catch(error => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' })
      res.end(String(error))
    })
  })
  await new Promise<void>(done => server.listen(0, '127.0.0.1', done))
  ctx.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const endpoint = `${ctx.origin}${PREFIX}`
  return {
    endpoint,
    origin: ctx.origin,
    log,
    profile: p => profile(ctx, endpoint, p),
    setUrlLifetime: seconds => {
      ctx.urlLifetimeMs = seconds * 1000
    },
    close: () =>
      new Promise<void>(done => {
        server.close(() => done())
        server.closeAllConnections()
      }),
  }
}

function checkTables(tables: SharedTableSpec[]): void {
  const seen = new Set<string>()
  for (const t of tables) {
    if (!existsSync(resolve(t.dir, '_delta_log')))
      throw new Error(`shared table ${tableKey(t)}: no _delta_log/ in ${t.dir}`)
    const key = tableKey(t).toLowerCase()
    if (seen.has(key)) throw new Error(`shared table ${tableKey(t)} is listed twice`)
    seen.add(key)
  }
}

function profile(
  ctx: Context,
  endpoint: string,
  p: { version?: 1 | 2; expirationTime?: string; token?: string } = {},
): Record<string, unknown> {
  if ((p.version ?? 1) === 1) {
    const bearerToken = p.token ?? (ctx.opts.tokens ?? ['test-token'])[0]
    return {
      shareCredentialsVersion: 1,
      endpoint,
      bearerToken,
      ...(p.expirationTime && { expirationTime: p.expirationTime }),
    }
  }
  const oauth = ctx.opts.oauth
  if (!oauth) throw new Error('profile({ version: 2 }) needs the oauth option of startSharingServer')
  return {
    shareCredentialsVersion: 2,
    type: 'oauth_client_credentials',
    endpoint,
    tokenEndpoint: `${ctx.origin}${TOKEN_PATH}`,
    clientId: oauth.clientId,
    clientSecret: oauth.clientSecret,
    ...(oauth.scope && { scope: oauth.scope }),
  }
}

// ---------------------------------------------------------------------------------------------
// Dispatch

async function handle(ctx: Context, log: SharingRequest[], req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', ctx.origin)
  const method = req.method ?? 'GET'
  const kind = method === 'OPTIONS' ? 'preflight' : kindOf(url.pathname)
  const entry: SharingRequest = {
    at: Date.now(),
    method,
    kind,
    path: safeDecode(url.pathname),
    query: url.search.slice(1),
    status: 0,
  }
  const header = (name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : undefined)
  const extras = {
    authorization: header('authorization'),
    range: header('range'),
    capabilities: header('delta-sharing-capabilities'),
    origin: header('origin'),
  }
  for (const [key, value] of Object.entries(extras)) if (value !== undefined) Object.assign(entry, { [key]: value })
  log.push(entry)
  const body = method === 'POST' ? await readBody(req) : undefined
  if (body !== undefined && kind === 'api') entry.body = body
  const answer = await respond(ctx, req, url, kind, body)
  entry.status = answer.status
  if (ctx.opts.cors && kind !== 'preflight') Object.assign(answer.headers, corsHeaders(req))
  const bytes = answer.body === undefined ? Buffer.alloc(0) : Buffer.from(answer.body)
  res.writeHead(answer.status, { ...answer.headers, 'Content-Length': String(bytes.length) })
  res.end(method === 'HEAD' ? undefined : bytes)
}

function kindOf(pathname: string): 'api' | 'file' | 'token' {
  if (pathname.startsWith(FILES)) return 'file'
  return pathname === TOKEN_PATH ? 'token' : 'api'
}

async function respond(
  ctx: Context,
  req: IncomingMessage,
  url: URL,
  kind: SharingRequest['kind'],
  body: string | undefined,
): Promise<Answer> {
  if (kind === 'preflight') return preflight(ctx, req)
  const injected = ctx.opts.inject?.({ method: req.method ?? 'GET', path: safeDecode(url.pathname), kind })
  if (injected) return { status: injected.status, headers: { ...injected.headers }, body: injected.body }
  try {
    if (kind === 'file') return await serveFile(ctx, req, url)
    if (kind === 'token') return issueToken(ctx, req, body ?? '')
    return await api(ctx, req, url, body)
  } catch (error) {
    return errorAnswer(error)
  }
}

function errorAnswer(error: unknown): Answer {
  let e: ApiError
  if (error instanceof ApiError) e = error
  else if (error instanceof TableError && error.code === 'version-not-found')
    e = new ApiError(400, E.invalid, error.message)
  else if (error instanceof TableError && error.code === 'not-a-table') e = new ApiError(400, E.missing, error.message)
  // A test server may say what broke; the reference server hides internal messages.
  else e = new ApiError(500, E.internal, error instanceof Error ? error.message : String(error))
  return json(e.status, { errorCode: e.code, message: e.message }, e.headers)
}

function corsHeaders(req: IncomingMessage): Record<string, string> {
  const origin = req.headers.origin
  if (!origin) return {}
  return { 'Access-Control-Allow-Origin': origin, Vary: 'Origin', 'Access-Control-Expose-Headers': EXPOSE_HEADERS }
}

/** Preflights need no token (browsers never send one with them). */
function preflight(ctx: Context, req: IncomingMessage): Answer {
  if (!ctx.opts.cors) return { status: 405, headers: { Allow: 'GET, HEAD, POST' } }
  return {
    status: 204,
    headers: {
      ...corsHeaders(req),
      'Access-Control-Allow-Methods': 'GET, HEAD, POST',
      'Access-Control-Allow-Headers': ALLOW_HEADERS,
      'Access-Control-Max-Age': '600',
    },
  }
}

// ---------------------------------------------------------------------------------------------
// API routes

interface Route {
  method: string
  path: string[]
  run: (call: Call) => Answer | Promise<Answer>
}

const TABLE = 'shares/{share}/schemas/{schema}/tables/{table}'
const ROUTES: Route[] = [
  { method: 'GET', path: 'shares', run: listShares },
  { method: 'GET', path: 'shares/{share}', run: getShare },
  { method: 'GET', path: 'shares/{share}/schemas', run: listSchemas },
  { method: 'GET', path: 'shares/{share}/schemas/{schema}/tables', run: listTables },
  { method: 'GET', path: 'shares/{share}/all-tables', run: listAllTables },
  { method: 'HEAD', path: TABLE, run: tableVersion },
  { method: 'GET', path: `${TABLE}/version`, run: tableVersion },
  { method: 'GET', path: `${TABLE}/metadata`, run: tableMetadata },
  { method: 'POST', path: `${TABLE}/query`, run: queryTable },
  { method: 'GET', path: `${TABLE}/changes`, run: () => unsupported('change data feed queries') },
].map(r => ({ ...r, path: r.path.split('/') }))

async function api(ctx: Context, req: IncomingMessage, url: URL, body: string | undefined): Promise<Answer> {
  if (!url.pathname.startsWith(PREFIX)) throw new ApiError(404, E.missing, `no API at ${url.pathname}`)
  authenticate(ctx, req)
  const parts = url.pathname.slice(PREFIX.length).replace(/\/$/, '').split('/').map(safeDecode)
  let pathMatched = false
  for (const route of ROUTES) {
    const params = match(route.path, parts)
    if (!params) continue
    pathMatched = true
    if (route.method !== req.method) continue
    return route.run({ ctx, req, params, query: url.searchParams, body: body ?? '' })
  }
  if (pathMatched) throw new ApiError(405, E.malformed, `${req.method} is not allowed on ${url.pathname}`)
  throw new ApiError(404, E.missing, `no API at ${url.pathname}`)
}

function match(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined
  const params: Record<string, string> = {}
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i].startsWith('{')) params[pattern[i].slice(1, -1)] = parts[i]
    else if (pattern[i] !== parts[i]) return undefined
  }
  return params
}

function authenticate(ctx: Context, req: IncomingMessage): void {
  const challenge = { 'WWW-Authenticate': 'Bearer realm="delta-sharing"' }
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')
  if (!m) throw new ApiError(401, E.auth, 'missing bearer token (Authorization: Bearer <token>)', challenge)
  if ((ctx.opts.tokens ?? ['test-token']).includes(m[1])) return
  const expires = ctx.issued.get(m[1])
  const invalid = { 'WWW-Authenticate': 'Bearer realm="delta-sharing", error="invalid_token"' }
  if (expires === undefined) throw new ApiError(401, E.auth, 'the bearer token is not valid', invalid)
  if (expires <= Date.now()) throw new ApiError(401, E.auth, 'the bearer token has expired', invalid)
}

async function tableVersion(c: Call): Promise<Answer> {
  const spec = findTable(c.ctx, c.params)
  const starting = c.query.get('startingTimestamp')
  if (starting !== null) checkHistory(spec)
  const log = await openLog(spec.dir)
  const version =
    starting === null ? log.latest : await versionAtOrAfter(log, parseTimestamp(starting, 'startingTimestamp'))
  return { status: 200, headers: { 'Delta-Table-Version': String(version) } }
}

async function tableMetadata(c: Call): Promise<Answer> {
  const spec = findTable(c.ctx, c.params)
  const fileIdHash = checkFileIdHash(c.req)
  const rawVersion = c.query.get('version')
  const timestamp = c.query.get('timestamp') ?? undefined
  if (rawVersion !== null && timestamp !== undefined)
    throw new ApiError(400, E.invalid, 'give at most one of version and timestamp')
  if (rawVersion !== null && !/^\d+$/.test(rawVersion))
    throw new ApiError(400, E.invalid, 'version must be a non-negative integer')
  const version = rawVersion === null ? undefined : Number(rawVersion)
  const snap = await resolveSnapshot(spec, version, timestamp)
  const caps = capabilities(c.req)
  const format = responseFormat(spec, caps, snap.protocol)
  const lines = [protocolLine(format, snap.protocol), metadataLine(format, snap, spec)]
  return ndjson(snap.version, format, lines, fileIdHash, false)
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}
