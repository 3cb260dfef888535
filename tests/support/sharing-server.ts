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
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { existsSync, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { resolve, sep } from 'node:path'
import { parseRange } from '../../src/serve/range.ts'
import type { AddAction } from '../../src/table/actions.ts'
import { readCheckpoint } from '../../src/table/checkpoint.ts'
import { physicalName } from '../../src/table/column-mapping.ts'
import { CommitReader, commitTimestamp, versionAt } from '../../src/table/commits.ts'
import { deletionVectorUrls } from '../../src/table/deletion-vector.ts'
import { listLog, probeLog, type LogListing } from '../../src/table/listing.ts'
import { buildSegment, versionRange } from '../../src/table/log-segment.ts'
import { applyActions, dvUniqueId, newReplayState } from '../../src/table/replay.ts'
import { columnMappingMode, parseSchema } from '../../src/table/schema.ts'
import {
  TableError,
  type DeletionVectorDescriptor,
  type HttpOptions,
  type Metadata,
  type Protocol,
} from '../../src/table/types.ts'
import { fileFetch } from './file-fetch.ts'

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

const PREFIX = '/delta-sharing/'
const FILES = '/files/'
const TOKEN_PATH = '/oauth/token'
/** Refresh and page tokens live an hour, as the reference server's do by default. */
const TOKEN_TTL_MS = 3_600_000
/** The reference server refuses larger list pages. */
const MAX_RESULTS = 500
const ALLOW_HEADERS = 'Authorization, Content-Type, delta-sharing-capabilities, fileidhash, Range'
const EXPOSE_HEADERS = 'Delta-Table-Version, delta-sharing-capabilities, fileidhash, Content-Range, Content-Length'
const NDJSON = 'application/x-ndjson; charset=utf-8'
const JSON_TYPE = 'application/json; charset=utf-8'
/** Feature names the reference server checks against the client's `readerfeatures`. */
const CHECKED_FEATURES = ['deletionVectors', 'columnMapping']

/** The error codes of the reference server's error bodies. */
const E = {
  auth: 'UNAUTHENTICATED',
  missing: 'RESOURCE_DOES_NOT_EXIST',
  invalid: 'INVALID_PARAMETER_VALUE',
  malformed: 'MALFORMED_REQUEST',
  unsupported: 'UNSUPPORTED_OPERATION',
  internal: 'INTERNAL_ERROR',
} as const

/** An API failure, answered as `{"errorCode", "message"}`. */
class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }
}

interface Answer {
  status: number
  headers: Record<string, string>
  body?: string | Uint8Array
}

interface Context {
  opts: SharingServerOptions
  origin: string
  secret: Buffer
  urlLifetimeMs: number
  pageSize: number
  /** OAuth tokens issued, with their expiry (ms since epoch). */
  issued: Map<string, number>
}

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

function json(status: number, value: unknown, headers: Record<string, string> = {}): Answer {
  return { status, headers: { 'Content-Type': JSON_TYPE, ...headers }, body: JSON.stringify(value) }
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

interface Call {
  ctx: Context
  req: IncomingMessage
  params: Record<string, string>
  query: URLSearchParams
  body: string
}

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

function unsupported(what: string): never {
  throw new ApiError(400, E.unsupported, `${what} are not supported by this server`)
}

// Shares, schemas and tables come from the table list, in the order first named there.

function shareNames(ctx: Context): string[] {
  return unique(ctx.opts.tables.map(t => t.share))
}

function findShare(ctx: Context, name: string): string {
  const share = shareNames(ctx).find(s => sameName(s, name))
  if (!share) throw new ApiError(404, E.missing, `share '${name}' does not exist`)
  return share
}

function findSchema(ctx: Context, share: string, name: string): string {
  const schema = unique(ctx.opts.tables.filter(t => t.share === share).map(t => t.schema)).find(s => sameName(s, name))
  if (!schema) throw new ApiError(404, E.missing, `schema '${name}' does not exist`)
  return schema
}

function findTable(ctx: Context, p: Record<string, string>): SharedTableSpec {
  const spec = ctx.opts.tables.find(
    t => sameName(t.share, p.share) && sameName(t.schema, p.schema) && sameName(t.table, p.table),
  )
  if (spec) return spec
  throw new ApiError(404, E.missing, `table '${p.share}.${p.schema}.${p.table}' does not exist`)
}

function tableItem(t: SharedTableSpec): Record<string, string> {
  return {
    name: t.table,
    schema: t.schema,
    share: t.share,
    shareId: uuidOf(`share:${t.share}`),
    id: uuidOf(tableKey(t)),
  }
}

function listShares(c: Call): Answer {
  return json(
    200,
    page(
      c,
      shareNames(c.ctx).map(name => ({ name, id: uuidOf(`share:${name}`) })),
      'shares',
    ),
  )
}

function getShare(c: Call): Answer {
  const name = findShare(c.ctx, c.params.share)
  return json(200, { share: { name, id: uuidOf(`share:${name}`) } })
}

function listSchemas(c: Call): Answer {
  const share = findShare(c.ctx, c.params.share)
  const names = unique(c.ctx.opts.tables.filter(t => t.share === share).map(t => t.schema))
  return json(
    200,
    page(
      c,
      names.map(name => ({ name, share })),
      `schemas:${share}`,
    ),
  )
}

function listTables(c: Call): Answer {
  const share = findShare(c.ctx, c.params.share)
  const schema = findSchema(c.ctx, share, c.params.schema)
  const tables = c.ctx.opts.tables.filter(t => t.share === share && t.schema === schema)
  return json(200, page(c, tables.map(tableItem), `tables:${share}.${schema}`))
}

function listAllTables(c: Call): Answer {
  const share = findShare(c.ctx, c.params.share)
  return json(200, page(c, c.ctx.opts.tables.filter(t => t.share === share).map(tableItem), `all-tables:${share}`))
}

/** One page of a list: `maxResults` items from the offset in `pageToken`; the token is bound to the list. */
function page<T>(c: Call, items: T[], scope: string): { items: T[]; nextPageToken?: string } {
  const raw = c.query.get('maxResults')
  if (raw !== null && (!/^\d+$/.test(raw) || Number(raw) > MAX_RESULTS)) {
    throw new ApiError(
      400,
      E.invalid,
      `maxResults must be an integer from 0 to ${MAX_RESULTS} (default ${c.ctx.pageSize})`,
    )
  }
  const max = raw === null ? c.ctx.pageSize : Number(raw)
  const tokenText = c.query.get('pageToken')
  let start = 0
  if (tokenText) {
    const token = openToken<{ k: string; o: number }>(c.ctx, tokenText)
    if (!token || token.k !== scope || token.o > items.length)
      throw new ApiError(400, E.invalid, 'pageToken is not one of this list')
    start = token.o
  }
  const end = start + max
  const out: { items: T[]; nextPageToken?: string } = { items: items.slice(start, end) }
  if (end < items.length) out.nextPageToken = sealToken(c.ctx, { k: scope, o: end })
  return out
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

/** The `version` and `timestamp` of a request: checked against the table's history sharing, then resolved. */
async function resolveSnapshot(spec: SharedTableSpec, version?: number, timestamp?: string): Promise<TableSnapshot> {
  if (version !== undefined || timestamp !== undefined) checkHistory(spec)
  const log = await openLog(spec.dir)
  const at = timestamp === undefined ? version : await versionAtOrBefore(log, parseTimestamp(timestamp, 'timestamp'))
  return snapshotAt(log, at)
}

function checkHistory(spec: SharedTableSpec): void {
  if (spec.historyShared !== false) return
  throw new ApiError(
    400,
    E.invalid,
    `version and timestamp queries need history sharing, which table ${tableKey(spec)} does not have`,
  )
}

// ---------------------------------------------------------------------------------------------
// Query

/** The request body of a query, type-checked. */
interface QueryRequest {
  predicateHints?: string[]
  jsonPredicateHints?: string
  limitHint?: number
  version?: number
  timestamp?: string
  startingVersion?: number
  maxFiles?: number
  pageToken?: string
  includeRefreshToken?: boolean
  refreshToken?: string
}

interface PageToken {
  k: 'page'
  t: string
  v: number
  o: number
  h: string
  r: boolean
  e: number
}

interface RefreshToken {
  k: 'refresh'
  t: string
  v: number
  e: number
}

async function queryTable(c: Call): Promise<Answer> {
  const spec = findTable(c.ctx, c.params)
  const q = parseQueryBody(c.body)
  const fileIdHash = checkFileIdHash(c.req)
  const key = tableKey(spec)
  const checksum = sha256(JSON.stringify([q.predicateHints, q.jsonPredicateHints, q.limitHint, q.version, q.timestamp]))
  const pageToken = q.pageToken ? openPageToken(c.ctx, q.pageToken, key, checksum) : undefined
  const refresh = q.refreshToken ? openRefreshToken(c.ctx, q.refreshToken, key) : undefined
  // A later page or a refresh reads the version of the first answer, whatever is newer now.
  const tokenVersion = pageToken?.v ?? refresh?.v
  const snap =
    tokenVersion === undefined
      ? await resolveSnapshot(spec, q.version, q.timestamp)
      : await snapshotAt(await openLog(spec.dir), tokenVersion)
  const caps = capabilities(c.req)
  const format = responseFormat(spec, caps, snap.protocol)
  const files = limitFiles(filterFiles(snap, q.jsonPredicateHints), q)
  const start = pageToken?.o ?? 0
  const size = q.maxFiles ?? c.ctx.pageSize
  const pageFiles = files.slice(start, start + size)
  const expires = Date.now() + Math.round(c.ctx.urlLifetimeMs)
  const travel = q.version !== undefined || q.timestamp !== undefined
  const lines: unknown[] = [protocolLine(format, snap.protocol), metadataLine(format, snap, spec)]
  for (const add of pageFiles) lines.push(fileLine(c.ctx, spec, format, add, expires, travel ? snap : undefined))
  const wantsRefresh = q.includeRefreshToken === true || pageToken?.r === true
  const end: Record<string, unknown> = {}
  if (start + size < files.length) {
    const next: PageToken = {
      k: 'page',
      t: key,
      v: snap.version,
      o: start + size,
      h: checksum,
      r: wantsRefresh,
      e: Date.now() + TOKEN_TTL_MS,
    }
    end.nextPageToken = sealToken(c.ctx, next)
  }
  if (wantsRefresh)
    end.refreshToken = sealToken(c.ctx, { k: 'refresh', t: key, v: snap.version, e: Date.now() + TOKEN_TTL_MS })
  if (pageFiles.length) end.minUrlExpirationTimestamp = expires
  const askedEnd = caps.get('includeendstreamaction')?.[0] === 'true'
  const paged = q.maxFiles !== undefined || pageToken !== undefined || end.nextPageToken !== undefined
  if (askedEnd || paged || wantsRefresh) lines.push({ endStreamAction: end })
  return ndjson(snap.version, format, lines, fileIdHash, askedEnd)
}

/** Parse and check the body, refusing what the reference server refuses. */
function parseQueryBody(body: string): QueryRequest {
  let raw: unknown
  try {
    raw = body.trim() ? JSON.parse(body) : {}
  } catch (error) {
    throw new ApiError(400, E.malformed, `the request body is not JSON: ${(error as Error).message}`)
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    throw new ApiError(400, E.malformed, 'the request body is not a JSON object')
  const b = raw as Record<string, unknown>
  const q: QueryRequest = {
    predicateHints: field(
      b,
      'predicateHints',
      v => Array.isArray(v) && v.every(s => typeof s === 'string'),
    ) as string[],
    jsonPredicateHints: field(b, 'jsonPredicateHints', v => typeof v === 'string') as string,
    limitHint: integer(b, 'limitHint'),
    version: integer(b, 'version'),
    timestamp: field(b, 'timestamp', v => typeof v === 'string') as string,
    startingVersion: integer(b, 'startingVersion'),
    maxFiles: integer(b, 'maxFiles'),
    pageToken: field(b, 'pageToken', v => typeof v === 'string') as string,
    includeRefreshToken: field(b, 'includeRefreshToken', v => typeof v === 'boolean') as boolean,
    refreshToken: field(b, 'refreshToken', v => typeof v === 'string') as string,
  }
  const versioned = [q.version, q.timestamp, q.startingVersion].filter(v => v !== undefined).length
  const fail = (message: string) => new ApiError(400, E.invalid, message)
  if (versioned > 1) throw fail('give at most one of version, timestamp and startingVersion')
  if (q.version !== undefined && q.version < 0) throw fail('version must be a non-negative integer')
  if (q.startingVersion !== undefined) unsupported('startingVersion (streaming) queries')
  if (q.maxFiles !== undefined && q.maxFiles <= 0) throw fail('maxFiles must be a positive integer')
  if (versioned && q.includeRefreshToken) throw fail('includeRefreshToken is only for queries of the latest version')
  if (q.pageToken && q.includeRefreshToken)
    throw fail('includeRefreshToken goes with a first page only, not with pageToken')
  if (versioned && q.refreshToken) throw fail('refreshToken is only for queries of the latest version')
  if (q.pageToken && q.refreshToken) throw fail('refreshToken goes with a first page only, not with pageToken')
  return q
}

function field(b: Record<string, unknown>, name: string, ok: (v: unknown) => boolean): unknown {
  const v = b[name]
  if (v == null) return undefined
  if (!ok(v)) throw new ApiError(400, E.malformed, `${name} has the wrong type: ${JSON.stringify(v)}`)
  return v
}

/** Int fields arrive as JSON numbers or, from protobuf-JSON clients, as digit strings. */
function integer(b: Record<string, unknown>, name: string): number | undefined {
  const v = field(
    b,
    name,
    x => (typeof x === 'number' && Number.isInteger(x)) || (typeof x === 'string' && /^-?\d+$/.test(x)),
  )
  return v === undefined ? undefined : Number(v)
}

function openPageToken(ctx: Context, text: string, key: string, checksum: string): PageToken {
  const token = openToken<PageToken>(ctx, text)
  const fail = (message: string) => new ApiError(400, E.invalid, message)
  if (token?.k !== 'page') throw fail(`pageToken is not one this server issued: ${text}`)
  if (token.e < Date.now()) throw fail('pageToken has expired: start the query again')
  if (token.t !== key) throw fail('pageToken was issued for another table')
  if (token.h !== checksum) {
    throw fail('the query parameters differ from those of the first page: they must stay the same on every page')
  }
  return token
}

function openRefreshToken(ctx: Context, text: string, key: string): RefreshToken {
  const token = openToken<RefreshToken>(ctx, text)
  const fail = (message: string) => new ApiError(400, E.invalid, message)
  if (token?.k !== 'refresh') throw fail(`refreshToken is not one this server issued: ${text}`)
  if (token.e < Date.now()) throw fail('refreshToken has expired: start the query again')
  if (token.t !== key) throw fail('refreshToken was issued for another table')
  return token
}

// ---------------------------------------------------------------------------------------------
// Response format and lines

type Format = 'parquet' | 'delta'

/** The `delta-sharing-capabilities` header as key → values, lower case (the spec makes both case-insensitive). */
function capabilities(req: IncomingMessage): Map<string, string[]> {
  const out = new Map<string, string[]>()
  const header = String(req.headers['delta-sharing-capabilities'] ?? '').toLowerCase()
  for (const part of header.split(';')) {
    const [key, value, extra] = part.split('=')
    if (value === undefined || extra !== undefined) continue
    const values = value.split(',').map(s => s.trim())
    out.set(key.trim(), values.filter(Boolean))
  }
  return out
}

/**
 * The format to answer in, by the spec's rules: one format asked is answered as asked; of a list,
 * parquet only for a table without reader features. Parquet cannot carry deletion vectors or
 * column mapping, so a table needing reader features is refused in it; in delta format the client
 * must list the features the reference server checks (deletionVectors, columnMapping).
 */
function responseFormat(spec: SharedTableSpec, caps: Map<string, string[]>, protocol: Protocol): Format {
  if (spec.parquetOnly) return 'parquet'
  const asked = caps.get('responseformat') ?? ['parquet']
  const unknown = asked.filter(f => f !== 'parquet' && f !== 'delta')
  if (unknown.length || !asked.length) {
    throw new ApiError(
      400,
      E.invalid,
      `unknown responseformat '${unknown.join(',')}': this server answers parquet or delta`,
    )
  }
  const format: Format =
    asked.length === 1
      ? (asked[0] as Format)
      : protocol.minReaderVersion === 1 && asked.includes('parquet')
        ? 'parquet'
        : 'delta'
  const needs = readerFeatures(protocol)
  if (format === 'parquet' && protocol.minReaderVersion > 1) {
    throw new ApiError(
      400,
      E.unsupported,
      `table ${tableKey(spec)} needs reader features [${needs.join(', ')}] (minReaderVersion ` +
        `${protocol.minReaderVersion}), which responseformat=parquet cannot carry: ask for responseformat=delta`,
    )
  }
  if (format === 'delta') {
    const listed = new Set(caps.get('readerfeatures') ?? [])
    const missing = needs.filter(f => CHECKED_FEATURES.includes(f) && !listed.has(f.toLowerCase()))
    if (missing.length) {
      throw new ApiError(
        400,
        E.unsupported,
        `table ${tableKey(spec)} uses reader features [${missing.join(', ')}] that the request's ` +
          'delta-sharing-capabilities readerfeatures do not list',
      )
    }
  }
  return format
}

/** Reader features of a protocol; reader version 2 is column mapping. */
function readerFeatures(p: Protocol): string[] {
  if (p.minReaderVersion >= 3) return p.readerFeatures ?? []
  return p.minReaderVersion === 2 ? ['columnMapping'] : []
}

function checkFileIdHash(req: IncomingMessage): string | undefined {
  const raw = req.headers.fileidhash
  if (typeof raw !== 'string') return undefined
  const value = raw.trim().toLowerCase()
  if (value === 'parquet' || value === 'delta') return value
  throw new ApiError(400, E.invalid, `fileidhash '${raw}' is neither parquet nor delta`)
}

function ndjson(
  version: number,
  format: Format,
  lines: unknown[],
  fileIdHash: string | undefined,
  endStream: boolean,
): Answer {
  const headers: Record<string, string> = {
    'Content-Type': NDJSON,
    'Delta-Table-Version': String(version),
    'delta-sharing-capabilities': `responseformat=${format}${endStream ? ';includeendstreamaction=true' : ''}`,
  }
  if (fileIdHash) headers.fileidhash = fileIdHash
  return { status: 200, headers, body: lines.map(line => `${JSON.stringify(line)}\n`).join('') }
}

function protocolLine(format: Format, p: Protocol): unknown {
  return format === 'parquet' ? { protocol: { minReaderVersion: 1 } } : { protocol: { deltaProtocol: { ...p } } }
}

/** The metaData line; the raw table configuration rides along in both formats, so a client can see DVs are on. */
function metadataLine(format: Format, snap: TableSnapshot, spec: SharedTableSpec): unknown {
  const m = snap.metadata
  const extra = {
    version: snap.version,
    location: `s3://sharing-test/${tableKey(spec)}`,
    size: snap.adds.reduce((sum, a) => sum + a.size, 0),
    numFiles: snap.adds.length,
  }
  if (format === 'delta') return { metaData: { deltaMetadata: m, ...extra } }
  const { id, name, description, schemaString, partitionColumns, configuration } = m
  const meta = {
    id,
    name,
    description,
    format: { provider: m.format.provider },
    schemaString,
    partitionColumns,
    configuration,
  }
  return { metaData: { ...meta, ...extra } }
}

/**
 * One file line. `travel` (a version or timestamp query) adds the version and its commit time, as
 * the reference server does. In delta format the add is the log's, its path and its deletion
 * vector's file replaced by pre-signed URLs; inline DVs stay inline.
 */
function fileLine(
  ctx: Context,
  spec: SharedTableSpec,
  format: Format,
  add: AddAction,
  expires: number,
  travel?: TableSnapshot,
): unknown {
  const key = tableKey(spec)
  const url = presign(ctx, key, relativePath(add.path), expires)
  const id = sha1(add.path)
  const at = travel ? { version: travel.version, timestamp: travel.timestamp } : {}
  const stats = add.stats ?? (add.statsParsed ? JSON.stringify(add.statsParsed) : undefined)
  if (format === 'parquet') {
    const file = {
      url,
      id,
      partitionValues: add.partitionValues,
      size: add.size,
      stats,
      ...at,
      expirationTimestamp: expires,
    }
    return { file }
  }
  const raw: Record<string, unknown> = {
    path: url,
    partitionValues: add.partitionValues,
    size: add.size,
    modificationTime: add.modificationTime,
    dataChange: add.dataChange ?? true,
    stats,
    tags: add.tags,
    baseRowId: add.baseRowId,
    defaultRowCommitVersion: add.defaultRowCommitVersion,
  }
  const file: Record<string, unknown> = { id }
  const dv = add.deletionVector
  if (dv && dv.storageType !== 'i') {
    raw.deletionVector = { ...dv, storageType: 'p', pathOrInlineDv: presign(ctx, key, dvPath(spec.dir, dv), expires) }
    file.deletionVectorFileId = sha1(dvUniqueId(dv))
  } else if (dv) raw.deletionVector = dv
  return { file: { ...file, ...at, expirationTimestamp: expires, deltaSingleAction: { add: raw } } }
}

/** Table-relative path of a log path (decoded: the file's name on disk). */
function relativePath(path: string): string {
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(path)) {
    throw new ApiError(500, E.internal, `the log names an absolute path, which this server cannot sign: ${path}`)
  }
  return path.split('/').map(safeDecode).join('/')
}

/** Table-relative path of a DV file: the first of the reader's candidate names that exists on disk. */
function dvPath(dir: string, dv: DeletionVectorDescriptor): string {
  const candidates = deletionVectorUrls(dv, TABLE_BASE)
    .filter(u => u.startsWith(TABLE_BASE))
    .map(u => relativePath(u.slice(TABLE_BASE.length)))
  if (!candidates.length) throw new ApiError(500, E.internal, `deletion vector ${dvUniqueId(dv)} is outside the table`)
  return candidates.find(rel => isFile(resolve(dir, ...rel.split('/')))) ?? candidates[0]
}

// ---------------------------------------------------------------------------------------------
// File selection: partition predicates and the limit hint, both best effort

interface Predicate {
  op?: string
  children?: Predicate[]
  name?: string
  value?: string
  valueType?: string
}

/** A predicate's value on one file: null when unknown (a null operand), as SQL's three-valued logic. */
type Truth = boolean | null

/**
 * Files whose partition values satisfy `jsonPredicateHints` (unknown, from a null, matches no row,
 * as in SQL); a predicate that cannot be applied keeps them all.
 */
function filterFiles(snap: TableSnapshot, hints: string | undefined): AddAction[] {
  if (!hints) return snap.adds
  try {
    const tree = JSON.parse(hints) as Predicate
    const value = partitionLookup(snap.metadata)
    return snap.adds.filter(add => evaluate(tree, column => value(add, column)) === true)
  } catch {
    return snap.adds
  }
}

/** Partition value of a logical column (the log keys them by physical name under column mapping). */
function partitionLookup(m: Metadata): (add: AddAction, column: string) => string | null {
  const schema = parseSchema(m.schemaString)
  const mode = columnMappingMode(m)
  const keys = new Map<string, string>()
  for (const column of m.partitionColumns) {
    const field = schema.fields.find(f => f.name === column)
    keys.set(column.toLowerCase(), field ? physicalName(field, mode) : column)
  }
  return (add, column) => {
    const key = keys.get(column.toLowerCase())
    if (key === undefined) throw new Error(`${column} is not a partition column`)
    const value = add.partitionValues[key]
    return value == null || value === '' ? null : value
  }
}

function evaluate(p: Predicate, column: (name: string) => string | null): Truth {
  const kids = p.children ?? []
  if (p.op === 'and' || p.op === 'or') {
    if (!kids.length) throw new Error(`${p.op} without children`)
    const values = kids.map(k => evaluate(k, column))
    const decisive = p.op === 'or'
    if (values.includes(decisive)) return decisive
    return values.includes(null) ? null : !decisive
  }
  if (p.op === 'not' || p.op === 'isNull') {
    if (kids.length !== 1) throw new Error(`${p.op} needs one child`)
    if (p.op === 'isNull') return operand(kids[0], column).value === null
    const v = evaluate(kids[0], column)
    return v === null ? null : !v
  }
  if (kids.length !== 2) throw new Error(`${p.op} needs two children`)
  const [a, b] = kids.map(k => operand(k, column))
  if (a.value === null || b.value === null) return null
  const c = compare(a.value, b.value, a.type ?? b.type)
  switch (p.op) {
    case 'equal':
      return c === 0
    case 'lessThan':
      return c < 0
    case 'lessThanOrEqual':
      return c <= 0
    case 'greaterThan':
      return c > 0
    case 'greaterThanOrEqual':
      return c >= 0
    default:
      throw new Error(`unknown op ${p.op}`)
  }
}

function operand(p: Predicate, column: (name: string) => string | null): { value: string | null; type?: string } {
  if (p.op === 'column' && typeof p.name === 'string') return { value: column(p.name), type: p.valueType }
  if (p.op === 'literal' && typeof p.value === 'string') return { value: p.value, type: p.valueType }
  throw new Error(`not a leaf: ${JSON.stringify(p)}`)
}

function boolOf(text: string): number {
  const i = ['false', 'true'].indexOf(text.toLowerCase())
  if (i < 0) throw new Error(`not a bool: ${text}`)
  return i
}

/** Order of two values of a valueType; throws on a value that does not parse as the type. */
function compare(a: string, b: string, type: string | undefined): number {
  const order = (x: number | bigint | string, y: number | bigint | string) => (x < y ? -1 : x > y ? 1 : 0)
  const finite = (x: number) => {
    if (Number.isNaN(x)) throw new Error('not a number')
    return x
  }
  switch (type) {
    case 'int':
    case 'long':
      return order(BigInt(a), BigInt(b))
    case 'float':
    case 'double':
      return order(finite(Number(a)), finite(Number(b)))
    case 'bool':
      return order(boolOf(a), boolOf(b))
    case 'string':
    case 'date':
      return order(a, b)
    case 'timestamp':
      return order(finite(timeOf(a)), finite(timeOf(b)))
    default:
      throw new Error(`unknown valueType ${type}`)
  }
}

/** Partition timestamps are written 'YYYY-MM-DD HH:MM:SS[.ffffff]', taken as UTC. */
function timeOf(text: string): number {
  const iso = text.includes('T') ? text : text.replace(' ', 'T')
  return Date.parse(/(Z|[+-]\d{2}:?\d{2})$/i.test(iso) ? iso : `${iso}Z`)
}

/**
 * The first files holding `limitHint` rows by their stats (less DV-deleted rows). As the reference
 * server, only without predicates; a file without a row count ends the attempt (all files).
 */
function limitFiles(files: AddAction[], q: QueryRequest): AddAction[] {
  if (q.limitHint === undefined || q.predicateHints?.length || q.jsonPredicateHints) return files
  let rows = 0
  for (let i = 0; i < files.length; i++) {
    if (rows >= q.limitHint) return files.slice(0, i)
    const n = numRecords(files[i])
    if (n === undefined) return files
    rows += n - (files[i].deletionVector?.cardinality ?? 0)
  }
  return files
}

function numRecords(add: AddAction): number | undefined {
  try {
    const stats = (add.stats ? JSON.parse(add.stats) : add.statsParsed) as { numRecords?: unknown } | undefined
    return typeof stats?.numRecords === 'number' ? stats.numRecords : undefined
  } catch {
    return undefined
  }
}

// ---------------------------------------------------------------------------------------------
// Pre-signed file URLs and opaque tokens

/** `<origin>/files/<share>.<schema>.<table>/<path, each segment %-encoded>?X-Sharing-Expires=<ms>&X-Sharing-Signature=<hex>`. */
function presign(ctx: Context, key: string, rel: string, expires: number): string {
  const path = [key, ...rel.split('/')].map(encodeURIComponent).join('/')
  return `${ctx.origin}${FILES}${path}?X-Sharing-Expires=${expires}&X-Sharing-Signature=${signature(ctx, key, rel, String(expires))}`
}

/** Signs the decoded path, so a client that re-encodes a URL differently still matches. */
function signature(ctx: Context, key: string, rel: string, expires: string): string {
  return hmac(ctx.secret, `${key}/${rel}\n${expires}`)
}

/** base64url(JSON) + '.' + HMAC: opaque to clients, and a tampered or foreign token does not open. */
function sealToken(ctx: Context, payload: object): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url')
  return `${body}.${hmac(ctx.secret, body)}`
}

function openToken<T>(ctx: Context, text: string): T | undefined {
  const [body, sig, extra] = text.split('.')
  if (!body || !sig || extra !== undefined || !sameText(hmac(ctx.secret, body), sig)) return undefined
  try {
    return JSON.parse(Buffer.from(body, 'base64url').toString()) as T
  } catch {
    return undefined
  }
}

/**
 * GET of a pre-signed URL, answered as S3 answers one: no Authorization needed (and refused beside
 * the signature), single Range, XML errors. HEAD fails as on S3, where the signature covers the
 * method and a URL signed for GET does not sign HEAD.
 */
async function serveFile(ctx: Context, req: IncomingMessage, url: URL): Promise<Answer> {
  const mismatch = 'The request signature we calculated does not match the signature you provided.'
  if (req.method === 'HEAD') return { status: 403, headers: {} }
  if (req.method !== 'GET') return s3Error(403, 'SignatureDoesNotMatch', mismatch)
  if (req.headers.authorization) {
    const message =
      'Only one auth mechanism allowed; only the X-Sharing-Signature query parameter or the Authorization ' +
      'header should be specified'
    return s3Error(400, 'InvalidArgument', message)
  }
  const [key, ...segments] = url.pathname.slice(FILES.length).split('/').map(safeDecode)
  const rel = segments.join('/')
  const expires = url.searchParams.get('X-Sharing-Expires')
  const given = url.searchParams.get('X-Sharing-Signature')
  if (!expires || !given) {
    const message = 'Query-string authentication requires the X-Sharing-Signature and X-Sharing-Expires parameters'
    return s3Error(403, 'AccessDenied', message)
  }
  if (!sameText(signature(ctx, key, rel, expires), given)) return s3Error(403, 'SignatureDoesNotMatch', mismatch)
  const now = Date.now()
  if (Number(expires) < now) {
    const times = { Expires: new Date(Number(expires)).toISOString(), ServerTime: new Date(now).toISOString() }
    return s3Error(403, 'AccessDenied', 'Request has expired', times)
  }
  const spec = ctx.opts.tables.find(t => tableKey(t) === key)
  const root = spec ? resolve(spec.dir) : ''
  const file = resolve(root, ...segments)
  if (!spec || !file.startsWith(root + sep) || !isFile(file))
    return s3Error(404, 'NoSuchKey', 'The specified key does not exist.')
  const bytes = await readFile(file)
  const headers: Record<string, string> = {
    'Content-Type': 'application/octet-stream',
    'Accept-Ranges': 'bytes',
    'Last-Modified': statSync(file).mtime.toUTCString(),
    ETag: `"${createHash('md5').update(bytes).digest('hex')}"`,
  }
  const span = parseRange(req.headers.range, bytes.length)
  if (span === 'unsatisfiable') {
    const answer = s3Error(416, 'InvalidRange', 'The requested range is not satisfiable')
    return { ...answer, headers: { ...answer.headers, 'Content-Range': `bytes */${bytes.length}` } }
  }
  if (!span) return { status: 200, headers, body: bytes }
  const [start, end] = span
  headers['Content-Range'] = `bytes ${start}-${end}/${bytes.length}`
  return { status: 206, headers, body: bytes.subarray(start, end + 1) }
}

function s3Error(status: number, code: string, message: string, extra: Record<string, string> = {}): Answer {
  const fields = Object.entries(extra)
    .map(([k, v]) => `<${k}>${escapeXml(v)}</${k}>`)
    .join('')
  const body =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${code}</Code><Message>${escapeXml(message)}</Message>${fields}` +
    `<RequestId>${randomBytes(8).toString('hex').toUpperCase()}</RequestId></Error>`
  return { status, headers: { 'Content-Type': 'application/xml' }, body }
}

// ---------------------------------------------------------------------------------------------
// OAuth token endpoint (RFC 6749 §4.4, client credentials)

function issueToken(ctx: Context, req: IncomingMessage, body: string): Answer {
  const oauth = ctx.opts.oauth
  const noStore = { 'Cache-Control': 'no-store' }
  if (!oauth)
    return json(404, { error: 'not_found', error_description: 'no token endpoint: the server has no oauth option' })
  if (req.method !== 'POST')
    return json(405, { error: 'invalid_request', error_description: 'use POST' }, { Allow: 'POST' })
  const form = new URLSearchParams(body)
  const basic = basicCredentials(req.headers.authorization)
  const clientId = basic ? basic[0] : form.get('client_id')
  const clientSecret = basic ? basic[1] : form.get('client_secret')
  if (form.get('grant_type') !== 'client_credentials') return json(400, { error: 'unsupported_grant_type' }, noStore)
  if (clientId !== oauth.clientId || clientSecret !== oauth.clientSecret) {
    // RFC 6749 §5.2: a client that authenticated with Basic gets the challenge back.
    return json(
      401,
      { error: 'invalid_client' },
      { ...noStore, ...(basic && { 'WWW-Authenticate': 'Basic realm="oauth"' }) },
    )
  }
  const scope = form.get('scope')
  if (scope && oauth.scope && scope !== oauth.scope) return json(400, { error: 'invalid_scope' }, noStore)
  const lifetime = oauth.tokenLifetimeS ?? 3600
  const token = randomBytes(24).toString('base64url')
  ctx.issued.set(token, Date.now() + lifetime * 1000)
  const answer = {
    access_token: token,
    token_type: 'bearer',
    expires_in: lifetime,
    ...(oauth.scope && { scope: oauth.scope }),
  }
  return json(200, answer, noStore)
}

function basicCredentials(header: string | undefined): [string, string] | undefined {
  const m = /^Basic\s+(\S+)\s*$/i.exec(header ?? '')
  if (!m) return undefined
  const text = Buffer.from(m[1], 'base64').toString()
  const colon = text.indexOf(':')
  if (colon < 0) return undefined
  // RFC 6749 §2.3.1 form-encodes id and secret before joining them (most clients have nothing to encode).
  return [safeDecode(text.slice(0, colon)), safeDecode(text.slice(colon + 1))]
}

// ---------------------------------------------------------------------------------------------
// Reading the shared tables with the reader's log replay

/** Where the reader sees a table folder: a fake fetch serves it there, S3 listing included. */
const TABLE_BASE = 'http://table.test/'

interface TableLog {
  opts: HttpOptions
  listing: LogListing
  reader: CommitReader
  latest: number
}

/** A table at one version: the raw actions the responses are built from. */
interface TableSnapshot {
  version: number
  /** Commit time of the version (ms). */
  timestamp: number
  protocol: Protocol
  metadata: Metadata
  /** Live add actions as logged, sorted by path (pages cut this order). */
  adds: AddAction[]
}

/** Lists the log afresh for each request, so a test may commit to a table while the server runs. */
async function openLog(dir: string): Promise<TableLog> {
  const opts: HttpOptions = { fetch: fileFetch(dir, { baseUrl: TABLE_BASE }), attempts: 1 }
  const listing = (await listLog(TABLE_BASE, opts)) ?? (await probeLog(TABLE_BASE, opts))
  const latest = versionRange(listing, TABLE_BASE).latest
  return { opts, listing, reader: new CommitReader(TABLE_BASE, opts), latest }
}

/** Replays checkpoint + commits up to `version` (default latest), as the reader's openSnapshot does. */
async function snapshotAt(log: TableLog, version?: number): Promise<TableSnapshot> {
  const segment = buildSegment(log.listing, TABLE_BASE, version)
  const state = newReplayState()
  if (segment.checkpoint) applyActions(state, await readCheckpoint(segment.checkpoint, TABLE_BASE, log.opts))
  for (const commit of segment.commits) applyActions(state, (await log.reader.readRequired(commit)).actions)
  const { protocol, metadata } = state
  if (!protocol || !metadata) {
    throw new TableError(`no protocol or metaData in the log up to version ${segment.version}`, 'malformed-log')
  }
  const commit = await log.reader.readVersion(segment.version)
  const sortKey = (a: AddAction) => `${a.path}\u0000${a.deletionVector ? dvUniqueId(a.deletionVector) : ''}`
  const adds = [...state.files.values()].sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : 1))
  return { version: segment.version, timestamp: commit ? commitTimestamp(commit) : 0, protocol, metadata, adds }
}

/** The latest version committed at or before `ms` (the reader's rule for time travel). */
async function versionAtOrBefore(log: TableLog, ms: number): Promise<number> {
  const version = await versionAt(log.listing.commits, ms, log.reader)
  if (version !== undefined) return version
  throw new ApiError(400, E.invalid, `timestamp ${new Date(ms).toISOString()} is before the earliest version`)
}

/** The earliest version committed at or after `ms` (the version API's startingTimestamp); 0 before the first. */
async function versionAtOrAfter(log: TableLog, ms: number): Promise<number> {
  const before = await versionAt(log.listing.commits, ms - 1, log.reader)
  const version = before === undefined ? (log.listing.commits[0]?.version ?? 0) : before + 1
  if (version > log.latest) throw new ApiError(400, E.invalid, 'startingTimestamp is after the latest version')
  return version
}

/** The spec's timestamp format: ISO-8601 with a zone, such as 2022-01-01T00:00:00Z. */
function parseTimestamp(text: string, name: string): number {
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(text)
  const ms = iso ? Date.parse(text) : Number.NaN
  if (Number.isFinite(ms)) return ms
  throw new ApiError(400, E.invalid, `Invalid ${name}: '${text}' is not an ISO-8601 time such as 2022-01-01T00:00:00Z`)
}

// ---------------------------------------------------------------------------------------------
// Helpers

function tableKey(t: SharedTableSpec): string {
  return `${t.share}.${t.schema}.${t.table}`
}

/** Share, schema and table names are case-insensitive. */
function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase()
}

/** Distinct names, case-insensitively, in first-seen order and spelling. */
function unique(names: string[]): string[] {
  const out: string[] = []
  for (const name of names) if (!out.some(n => sameName(n, name))) out.push(name)
  return out
}

/** A stable UUID-shaped id of a name. */
function uuidOf(text: string): string {
  const h = sha1(text)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`
}

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex')
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

function hmac(secret: Buffer, text: string): string {
  return createHmac('sha256', secret).update(text).digest('hex')
}

/** Constant-time equality (the secrets here are test secrets, but the habit costs nothing). */
function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}
