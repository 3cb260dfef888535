/**
 * A Delta Sharing server that misbehaves on purpose, one way per start, to test the client's
 * refusals: file URLs that differ only in their query string, a file listed twice, a page token
 * that repeats, pages that repeat their files or items, pages without end, and share names that
 * are not names (`..`, a newline). It shares one local table (the reader's own log replay,
 * sharing-table.ts) at `s.d.t` in the Delta response format and serves its files with Range.
 *
 * Loopback only, bounded and self-stopping: it answers at most `maxRequests` requests (then 503),
 * and closes itself after `lifetimeMs` even if a test forgets to. Every request's raw target (as
 * the client sent it, before any decoding) and Authorization header land in `log`.
 */
import { createHash } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { resolve, sep } from 'node:path'
import { openLog, relativePath, snapshotAt, type TableSnapshot } from './sharing-table.ts'

/** How the server misbehaves. */
export type Misbehaviour =
  /** Every file URL is `/files/get?f=<path>&X-Amz-Signature=…`: one path, the file in the query. */
  | 'query-string-urls'
  /** The query lists its first file twice (same id, same URL). */
  | 'duplicate-file-id'
  /** The query lists its first file twice, the second time under another id. */
  | 'duplicate-file-url'
  /** Every page answers the same `nextPageToken` (with new files or items, so only the token repeats). */
  | 'repeat-token'
  /** Every page has a new token but the same files or items as page 1. */
  | 'repeat-files'
  /** Every page has a new token and a new file or item: the answer never ends. */
  | 'endless'

export interface HostileOptions {
  /** The shared table's folder. */
  dir: string
  misbehave?: Misbehaviour
  /** What the shares list answers (default ['s']). */
  shareNames?: string[]
  /** What every tables list answers (default ['t']); every schemas list answers ['d']. */
  tableNames?: string[]
  /** Requests answered before every further one gets 503 (default 1000). */
  maxRequests?: number
  /** The server closes itself this long after it starts (default 60 s). */
  lifetimeMs?: number
  /** Life of the file URLs of each answer (default an hour); `&exp=` in each URL says until when. */
  urlLifetimeMs?: number
}

/** One request as it arrived. */
export interface HostileRequest {
  method: string
  /** The request target exactly as sent (`/ds/shares/...?...`), not decoded or normalised. */
  target: string
  authorization?: string
}

export interface HostileShare {
  /** `http://127.0.0.1:PORT/ds/` */
  endpoint: string
  log: HostileRequest[]
  /** A version 1 profile (bearer token `hostile-token`). */
  profile: Record<string, unknown>
  close(): Promise<void>
}

export const HOSTILE_TOKEN = 'hostile-token'
const PREFIX = '/ds/'
const PAGE_TOKEN = 'again'

/** Starts the server on 127.0.0.1 (any free port). */
export async function startHostileShare(opts: HostileOptions): Promise<HostileShare> {
  const snap = await snapshotAt(await openLog(opts.dir))
  const log: HostileRequest[] = []
  const maxRequests = opts.maxRequests ?? 1000
  let origin = ''
  const calls = new Map<string, number>()
  const server = createServer((req, res) => {
    log.push({
      method: req.method ?? 'GET',
      target: req.url ?? '',
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    })
    if (log.length > maxRequests) return send(res, 503, { 'Content-Type': 'text/plain' }, 'request budget spent')
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      try {
        answer(opts, snap, origin, calls, req, Buffer.concat(chunks).toString('utf8'), res)
      } catch (error) {
        send(res, 500, { 'Content-Type': 'text/plain' }, String(error))
      }
    })
  })
  await new Promise<void>(done => server.listen(0, '127.0.0.1', done))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const close = () =>
    new Promise<void>(done => {
      clearTimeout(timer)
      server.close(() => done())
      server.closeAllConnections()
    })
  const timer = setTimeout(() => void close(), opts.lifetimeMs ?? 60_000)
  timer.unref()
  const endpoint = `${origin}${PREFIX}`
  return { endpoint, log, profile: { shareCredentialsVersion: 1, endpoint, bearerToken: HOSTILE_TOKEN }, close }
}

function answer(
  opts: HostileOptions,
  snap: TableSnapshot,
  origin: string,
  calls: Map<string, number>,
  req: IncomingMessage,
  body: string,
  res: ServerResponse,
): void {
  const url = new URL(req.url ?? '/', origin)
  if (url.pathname.startsWith('/files/')) return serveFile(opts.dir, req, url, res)
  if (req.headers.authorization !== `Bearer ${HOSTILE_TOKEN}`) {
    return send(res, 401, JSON_TYPE, JSON.stringify({ errorCode: 'UNAUTHENTICATED', message: 'no token' }))
  }
  const path = url.pathname.slice(PREFIX.length)
  // Page n (1-based) of a paged answer: its token is `p<n>`, or `again`, when the calls to the path count it.
  const token = url.searchParams.get('pageToken') ?? (body ? JSON.parse(body).pageToken : undefined)
  calls.set(path, (calls.get(path) ?? 0) + 1)
  const page = token === undefined ? 1 : token === PAGE_TOKEN ? calls.get(path)! : Number(token.slice(1))
  const next = nextToken(opts.misbehave, page)
  if (req.method === 'GET' && /^shares(\/[^/]+\/schemas(\/[^/]+\/tables)?)?$/.test(path)) {
    const names =
      path === 'shares' ? (opts.shareNames ?? ['s']) : path.endsWith('tables') ? (opts.tableNames ?? ['t']) : ['d']
    const items = paged(opts.misbehave, page, names, n => `${names[0]}${n}`).map(name => ({ name }))
    return send(res, 200, JSON_TYPE, JSON.stringify({ items, ...(next ? { nextPageToken: next } : {}) }))
  }
  if (req.method === 'POST' && /^shares\/[^/]+\/schemas\/[^/]+\/tables\/[^/]+\/query$/.test(path)) {
    const files = snap.adds.map((add, i) => fileLine(opts, origin, add.path, i, snap))
    if (opts.misbehave === 'duplicate-file-id') files.push(files[0]!)
    if (opts.misbehave === 'duplicate-file-url') files.push(renamed(files[0]!, 'second-id'))
    const pageFiles = paged(opts.misbehave, page, files, n => renamed(files[n % files.length]!, `f${n}`))
    const lines = [
      { protocol: { deltaProtocol: snap.protocol } },
      { metaData: { deltaMetadata: snap.metadata, version: snap.version } },
      ...pageFiles,
      { endStreamAction: next ? { nextPageToken: next } : {} },
    ]
    const headers = {
      'Content-Type': 'application/x-ndjson',
      'Delta-Table-Version': String(snap.version),
      'delta-sharing-capabilities': 'responseformat=delta',
    }
    return send(res, 200, headers, lines.map(l => `${JSON.stringify(l)}\n`).join(''))
  }
  send(res, 404, JSON_TYPE, JSON.stringify({ errorCode: 'RESOURCE_DOES_NOT_EXIST', message: path }))
}

const JSON_TYPE = { 'Content-Type': 'application/json' }

function nextToken(misbehave: Misbehaviour | undefined, page: number): string | undefined {
  if (misbehave === 'repeat-token') return PAGE_TOKEN
  if (misbehave === 'repeat-files' || misbehave === 'endless') return `p${page + 1}`
  return undefined
}

/** Page `page`'s items: all on page 1; later pages repeat them (repeat-files) or bring a new one. */
function paged<T>(misbehave: Misbehaviour | undefined, page: number, all: T[], fresh: (n: number) => T): T[] {
  if (misbehave === 'repeat-token' || misbehave === 'endless') return page === 1 ? all : [fresh(page)]
  return all
}

function fileLine(opts: HostileOptions, origin: string, path: string, i: number, snap: TableSnapshot): unknown {
  const rel = relativePath(path)
  const sig = createHash('sha256').update(`${rel}:${i}`).digest('hex')
  const expires = Date.now() + (opts.urlLifetimeMs ?? 3_600_000)
  const query = `X-Amz-Signature=${sig}&exp=${expires}`
  const url =
    opts.misbehave === 'query-string-urls'
      ? `${origin}/files/get?f=${encodeURIComponent(rel)}&${query}`
      : `${origin}/files/${rel.split('/').map(encodeURIComponent).join('/')}?${query}`
  const add = snap.adds[i]!
  const raw = { ...add, path: url, deletionVector: undefined, stats: add.stats }
  const id = createHash('sha1').update(path).digest('hex')
  return { file: { id, expirationTimestamp: expires, deltaSingleAction: { add: raw } } }
}

function renamed(line: unknown, id: string): unknown {
  const file = (line as { file: Record<string, unknown> }).file
  return { file: { ...file, id } }
}

/** The table's file named by the path after /files/ or by `?f=`, with a single Range. */
function serveFile(dir: string, req: IncomingMessage, url: URL, res: ServerResponse): void {
  const rel =
    url.pathname === '/files/get'
      ? (url.searchParams.get('f') ?? '')
      : url.pathname.slice(7).split('/').map(decodeURIComponent).join('/')
  if (Number(url.searchParams.get('exp')) < Date.now()) {
    return send(
      res,
      403,
      { 'Content-Type': 'application/xml' },
      '<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>',
    )
  }
  const root = resolve(dir)
  const file = resolve(root, ...rel.split('/'))
  if (!file.startsWith(root + sep) || !statSync(file, { throwIfNoEntry: false })?.isFile()) {
    return send(res, 404, { 'Content-Type': 'text/plain' }, 'NoSuchKey')
  }
  const bytes = readFileSync(file)
  const m = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '')
  if (!m) return send(res, 200, { 'Accept-Ranges': 'bytes' }, bytes)
  const start = m[1] ? Number(m[1]) : Math.max(0, bytes.length - Number(m[2]))
  const end = m[1] && m[2] ? Math.min(Number(m[2]), bytes.length - 1) : bytes.length - 1
  const headers = { 'Content-Range': `bytes ${start}-${end}/${bytes.length}` }
  send(res, 206, headers, bytes.subarray(start, end + 1))
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: string | Buffer): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body
  res.writeHead(status, { ...headers, 'Content-Length': String(bytes.length) })
  res.end(bytes)
}
