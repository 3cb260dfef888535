/**
 * An S3-compatible loopback server for tests: one local folder is one bucket, served at the
 * server's root as a virtual-hosted-style bucket would be (`http://127.0.0.1:PORT/<key>`), and
 * every request must carry a valid SigV4 signature (header or presigned) from a key the server
 * issued. Answers GetObject/HeadObject with single ranges, ListObjectsV2, and S3's XML errors.
 *
 * Statuses follow S3: 400 for ExpiredToken, InvalidToken and AuthorizationHeaderMalformed, 403 for
 * SignatureDoesNotMatch, InvalidAccessKeyId, RequestTimeTooSkewed and AccessDenied (unsigned
 * requests, an expired presigned URL, a key outside the credentials' prefix), 404 NoSuchKey,
 * 416 InvalidRange. HEAD errors carry the status only, as S3's do.
 */
import { createServer } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { randomBytes } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { realpath, stat } from 'node:fs/promises'
import { join, sep } from 'node:path'
import { fileEtag, renderListObjectsV2, xmlEscape } from '../../src/serve/s3-listing.ts'
import { parseRange } from '../../src/serve/range.ts'
import { s3PathSegments, type SigV4Secret, verifySigV4 } from './sigv4-verify.ts'

/** An access key the server accepts (the shape the product's credential providers hand out). */
export interface S3Credentials {
  accessKeyId: string
  secretAccessKey: string
  /** Present on temporary credentials; sent as X-Amz-Security-Token. */
  sessionToken?: string
  /** Expiry of temporary credentials, ISO 8601. */
  expiration?: string
}

/** Options of `startS3Server`. */
export interface S3ServerOptions {
  /** Local folder whose files are the bucket's objects (key = path relative to it, '/'-separated). */
  root: string
  /** Bucket name in listings and s3:// locations; default 'snaptrain-test'. */
  bucket?: string
  /** Region the signatures' credential scope must name; default 'us-east-1'. */
  region?: string
  /** Answer CORS preflights and add CORS headers, as a bucket with a CORS rule does; default false. */
  cors?: boolean
  /** Clock of credential expiry and signature time, ms since the epoch (default Date.now): a test moves it. */
  now?: () => number
}

/** One request the server answered. */
export interface S3LogEntry {
  /** ms since epoch. */
  at: number
  method: string
  /** URL path, %-decoded ('/tables/clicks/_delta_log/00000000000000000000.json'). */
  path: string
  /** Raw query string without '?' ('' when none). */
  query: string
  /** The signing key, when the signature could be read. */
  accessKeyId?: string
  range?: string
  status: number
  /** S3 error code of a failed request. */
  code?: string
}

/** A running S3 server. */
export interface S3Server {
  /** 'http://127.0.0.1:PORT/': the bucket root; an object's URL is endpoint + key. */
  endpoint: string
  bucket: string
  region: string
  log: S3LogEntry[]
  /**
   * New temporary credentials (AKID 'ASIA…', secret, session token) valid for `lifetimeS` seconds
   * (fractional allowed). `scope.prefix` limits them to keys and listing prefixes under it, as a
   * catalog's down-scoped credentials are ('tables/clicks/').
   */
  issueCredentials(lifetimeS: number, scope?: { prefix: string }): S3Credentials
  /** A long-lived key without session token, valid for the whole bucket. */
  permanentCredentials: S3Credentials
  /** Forgets a key: its requests then fail with InvalidAccessKeyId. */
  revoke(accessKeyId: string): void
  close(): Promise<void>
}

interface Key extends SigV4Secret {
  prefix?: string
}

interface State {
  root: string
  bucket: string
  region: string
  cors: boolean
  keys: Map<string, Key>
  log: S3LogEntry[]
  now: () => number
}

/** An S3 error answer: status, code and message of the XML body. */
interface S3Error {
  status: number
  code: string
  message: string
}

/** S3's status per verification failure (ExpiredToken is 400 on S3, not 403). */
const AUTH_STATUS: Record<string, number> = {
  ExpiredToken: 400,
  InvalidToken: 400,
  AuthorizationHeaderMalformed: 400,
}

/** Headers a browser may send on a signed S3 request (what a CORS rule with these AllowedHeaders permits). */
const CORS_ALLOWED =
  /^(authorization|range|content-type|if-match|if-none-match|if-range|x-amz-[a-z0-9-]+|amz-sdk-[a-z-]+)$/
const CORS_EXPOSED = 'ETag, Content-Range, Content-Length, Last-Modified, Accept-Ranges'

/** Serves `opts.root` as one bucket at `http://127.0.0.1:PORT/` until `close()`. */
export async function startS3Server(opts: S3ServerOptions): Promise<S3Server> {
  const state: State = {
    root: await realpath(opts.root),
    bucket: opts.bucket ?? 'snaptrain-test',
    region: opts.region ?? 'us-east-1',
    cors: opts.cors ?? false,
    keys: new Map(),
    log: [],
    now: opts.now ?? (() => Date.now()),
  }
  const sockets = new Set<Socket>()
  const server = createServer((req, res) => {
    handle(state, req, res).catch(e => {
      if (!res.headersSent) res.writeHead(500).end(String(e))
      else res.destroy()
    })
  })
  server.on('connection', s => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const addr = server.address()
  if (!addr || typeof addr === 'string') throw new Error('S3 server did not bind a TCP port')
  const permanentCredentials = { accessKeyId: newId('AKIA'), secretAccessKey: newSecret() }
  state.keys.set(permanentCredentials.accessKeyId, { secretAccessKey: permanentCredentials.secretAccessKey })
  return {
    endpoint: `http://127.0.0.1:${addr.port}/`,
    bucket: state.bucket,
    region: state.region,
    log: state.log,
    permanentCredentials,
    issueCredentials(lifetimeS, scope) {
      const expiresAt = state.now() + lifetimeS * 1000
      const creds = {
        accessKeyId: newId('ASIA'),
        secretAccessKey: newSecret(),
        sessionToken: randomBytes(96).toString('base64'),
        expiration: new Date(expiresAt).toISOString(),
      }
      state.keys.set(creds.accessKeyId, { ...creds, expiresAt, prefix: scope?.prefix })
      return creds
    },
    revoke: id => void state.keys.delete(id),
    close: () =>
      new Promise<void>(resolve => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}

/** 20 characters like AWS access key ids: a 4-letter kind prefix and 16 of [A-Z2-7]. */
function newId(kind: 'AKIA' | 'ASIA'): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
  return kind + [...randomBytes(16)].map(b => alphabet[b & 31]).join('')
}

function newSecret(): string {
  return randomBytes(30).toString('base64')
}

async function handle(state: State, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const method = req.method ?? 'GET'
  const target = req.url ?? '/'
  const q = target.indexOf('?')
  const rawPath = q < 0 ? target : target.slice(0, q)
  const entry: S3LogEntry = {
    at: Date.now(),
    method,
    path: s3PathSegments(rawPath).join('/'),
    query: q < 0 ? '' : target.slice(q + 1),
    range: req.headers.range,
    status: 0,
  }
  state.log.push(entry)
  res.on('finish', () => (entry.status ||= res.statusCode))
  if (state.cors && req.headers.origin !== undefined) corsHeaders(res)
  if (method === 'OPTIONS') return preflight(state, req, res, entry)
  const body = await readBody(req)
  const headers: Array<[string, string]> = []
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.push([req.rawHeaders[i], req.rawHeaders[i + 1]])
  const verdict = verifySigV4(
    { method, target, headers, body },
    { lookup: id => state.keys.get(id), region: state.region, service: 's3', now: state.now() },
  )
  entry.accessKeyId = verdict.accessKeyId
  if (!verdict.ok) {
    return sendError(req, res, entry, { status: AUTH_STATUS[verdict.code] ?? 403, ...verdict })
  }
  if (method !== 'GET' && method !== 'HEAD') {
    return sendError(req, res, entry, {
      status: 405,
      code: 'MethodNotAllowed',
      message: 'The specified method is not allowed against this resource.',
    })
  }
  const key = entry.path.slice(1)
  const scope = state.keys.get(verdict.accessKeyId)?.prefix
  const url = new URL(target, 'http://x')
  if (key === '') return bucketRequest(state, url.searchParams, req, res, entry, scope)
  if (scope !== undefined && !key.startsWith(scope)) return sendError(req, res, entry, accessDenied())
  return objectRequest(state, key, req, res, entry)
}

/** GET / with list-type=2 is ListObjectsV2; HEAD / is HeadBucket. */
async function bucketRequest(
  state: State,
  q: URLSearchParams,
  req: IncomingMessage,
  res: ServerResponse,
  entry: S3LogEntry,
  scope: string | undefined,
): Promise<void> {
  if (req.method === 'HEAD') return void head(res, entry, 200, { 'Content-Length': 0 }).end()
  if (q.get('list-type') !== '2') {
    return sendError(req, res, entry, {
      status: 501,
      code: 'NotImplemented',
      message: 'Only ListObjectsV2 (list-type=2) is implemented on this bucket.',
    })
  }
  const prefix = q.get('prefix') ?? ''
  if (scope !== undefined && !prefix.startsWith(scope)) return sendError(req, res, entry, accessDenied())
  const maxKeys = q.get('max-keys')
  if (maxKeys !== null && !/^\d+$/.test(maxKeys)) {
    return sendError(req, res, entry, {
      status: 400,
      code: 'InvalidArgument',
      message: 'Provided max-keys not an integer or within integer range',
    })
  }
  const xml = await renderListObjectsV2(state.root, {
    prefix,
    delimiter: q.get('delimiter') || undefined,
    continuationToken: q.get('continuation-token') ?? undefined,
    startAfter: q.get('start-after') ?? undefined,
    maxKeys: maxKeys === null ? undefined : Number(maxKeys),
    encodingType: q.get('encoding-type') === 'url' ? 'url' : undefined,
    bucket: state.bucket,
  })
  const body = Buffer.from(xml, 'utf8')
  head(res, entry, 200, { 'Content-Type': 'application/xml', 'Content-Length': body.length }).end(body)
}

/** GetObject / HeadObject with a single Range; ETag and Last-Modified from the file's size and mtime. */
async function objectRequest(
  state: State,
  key: string,
  req: IncomingMessage,
  res: ServerResponse,
  entry: S3LogEntry,
): Promise<void> {
  const path = await objectPath(state.root, key)
  const st = path ? await stat(path).catch(() => null) : null
  if (!path || !st?.isFile()) {
    return sendError(req, res, entry, { status: 404, code: 'NoSuchKey', message: 'The specified key does not exist.' })
  }
  res.setHeader('ETag', fileEtag(st))
  res.setHeader('Last-Modified', st.mtime.toUTCString())
  res.setHeader('Accept-Ranges', 'bytes')
  res.setHeader('Content-Type', 'application/octet-stream')
  const range = parseRange(req.headers.range, st.size)
  if (range === 'unsatisfiable') {
    res.setHeader('Content-Range', `bytes */${st.size}`)
    return sendError(req, res, entry, {
      status: 416,
      code: 'InvalidRange',
      message: 'The requested range is not satisfiable',
    })
  }
  const [start, end] = range ?? [0, st.size - 1]
  const length = end - start + 1
  const headers: Record<string, string | number> = { 'Content-Length': length }
  if (range) headers['Content-Range'] = `bytes ${start}-${end}/${st.size}`
  head(res, entry, range ? 206 : 200, headers)
  if (req.method === 'HEAD' || length === 0) return void res.end()
  await new Promise<void>((resolve, reject) => {
    createReadStream(path, { start, end }).on('error', reject).on('end', resolve).pipe(res)
  })
}

/** The file of a key, or undefined when the key names nothing inside the root ('..', empty segments, links out). */
async function objectPath(root: string, key: string): Promise<string | undefined> {
  const segments = key.split('/')
  if (segments.some(s => s === '' || s === '.' || s === '..')) return undefined
  const path = await realpath(join(root, ...segments)).catch(() => undefined)
  return path?.startsWith(root + sep) ? path : undefined
}

/** A preflight needs no signature (browsers send none); without a CORS rule S3 refuses it. */
function preflight(state: State, req: IncomingMessage, res: ServerResponse, entry: S3LogEntry): void {
  const method = req.headers['access-control-request-method']
  const asked = (req.headers['access-control-request-headers'] ?? '')
    .split(',')
    .map(h => h.trim().toLowerCase())
    .filter(Boolean)
  const allowed = method === 'GET' || method === 'HEAD'
  if (!state.cors || !allowed || !asked.every(h => CORS_ALLOWED.test(h))) {
    const message = state.cors
      ? 'CORSResponse: This CORS request is not allowed.'
      : 'CORSResponse: CORS is not enabled for this bucket.'
    return sendError(req, res, entry, { status: 403, code: 'AccessForbidden', message })
  }
  res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD')
  if (asked.length) res.setHeader('Access-Control-Allow-Headers', asked.join(', '))
  res.setHeader('Access-Control-Max-Age', '600')
  head(res, entry, 200, { 'Content-Length': 0 }).end()
}

/** writeHead that logs the status at once: a test may read the log as soon as its response arrives. */
function head(res: ServerResponse, entry: S3LogEntry, status: number, headers?: Record<string, string | number>) {
  entry.status = status
  return res.writeHead(status, headers)
}

function corsHeaders(res: ServerResponse): void {
  res.setHeader('Access-Control-Allow-Origin', '*')
  res.setHeader('Access-Control-Expose-Headers', CORS_EXPOSED)
  res.setHeader('Vary', 'Origin')
}

function accessDenied(): S3Error {
  return { status: 403, code: 'AccessDenied', message: 'Access Denied' }
}

function sendError(req: IncomingMessage, res: ServerResponse, entry: S3LogEntry, err: S3Error): void {
  entry.code = err.code
  if (req.method === 'HEAD') return void head(res, entry, err.status, { 'Content-Length': 0 }).end()
  const xml =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${err.code}</Code><Message>${xmlEscape(err.message)}</Message>` +
    `<Resource>${xmlEscape(entry.path)}</Resource></Error>\n`
  const body = Buffer.from(xml, 'utf8')
  head(res, entry, err.status, { 'Content-Type': 'application/xml', 'Content-Length': body.length }).end(body)
}

/** The request body (empty for GET/HEAD); the signature may cover its hash. */
async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}
