/**
 * Loopback static file server for local Delta tables: the CLI serves a folder over HTTP so the
 * reader always takes the same HTTP path as with a remote table (DESIGN.md, headless contract).
 * GET/HEAD with ETag/Last-Modified, single byte ranges (hyparquet reads footers and column chunks
 * by Range), S3 ListObjectsV2 at `/?list-type=2`, and cross-origin isolation headers so the page
 * may also load from it. Only files inside the root are served.
 */
import { createServer } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createReadStream } from 'node:fs'
import { realpath, stat } from 'node:fs/promises'
import type { Stats } from 'node:fs'
import { extname, isAbsolute, join, sep } from 'node:path'
import { fileEtag, renderListObjectsV2 } from './s3-listing.ts'
import { parseRange } from './range.ts'

/** Options of `serveDirectory`. */
export interface ServeOptions {
  /** Interface to bind; default '127.0.0.1' (loopback only). */
  host?: string
  /** TCP port; default 0 (a free one). */
  port?: number
  /** Send `Access-Control-Allow-Origin: *` and answer preflights; default false. */
  cors?: boolean
}

/** A running server; `url` is its root and ends with '/'. */
export interface ServedDirectory {
  url: string
  close(): Promise<void>
}

const TYPES: Record<string, string> = {
  '.json': 'application/json',
  '.parquet': 'application/vnd.apache.parquet',
  '.crc': 'application/json',
  '.bin': 'application/octet-stream',
  '.xml': 'application/xml',
  '.txt': 'text/plain; charset=utf-8',
}

/** Why a request is refused: the status and a short plain-text body. */
class Refusal extends Error {
  constructor(readonly status: number, message: string) {
    super(message)
  }
}

/** Serves `rootDir` over HTTP until `close()`; resolves once listening. */
export async function serveDirectory(rootDir: string, opts: ServeOptions = {}): Promise<ServedDirectory> {
  const root = await realpath(rootDir)
  const server = createServer((req, res) => {
    handle(root, opts, req, res).catch(e => send(res, e instanceof Refusal ? e.status : 500, (e as Error).message))
  })
  const host = opts.host ?? '127.0.0.1'
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port ?? 0, host, () => resolve())
  })
  const addr = server.address()
  if (!addr || typeof addr === 'string') throw new Error(`server for ${rootDir} did not bind a TCP port`)
  const hostPart = addr.family === 'IPv6' || addr.address.includes(':') ? `[${addr.address}]` : addr.address
  return {
    url: `http://${hostPart}:${addr.port}/`,
    close: () => new Promise<void>(resolve => {
      server.close(() => resolve())
      // Keep-alive sockets would hold close() open until they time out.
      server.closeAllConnections()
    }),
  }
}

async function handle(root: string, opts: ServeOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  setCommonHeaders(res, opts)
  const method = req.method ?? 'GET'
  if (method === 'OPTIONS' && opts.cors) return preflight(res)
  if (method !== 'GET' && method !== 'HEAD') {
    res.setHeader('Allow', opts.cors ? 'GET, HEAD, OPTIONS' : 'GET, HEAD')
    throw new Refusal(405, `method ${method} not allowed`)
  }
  const [rawPath, query = ''] = splitTarget(req.url ?? '/')
  const params = new URLSearchParams(query)
  const file = await resolveInside(root, rawPath)
  const st = await stat(file).catch(() => null)
  // Path-style bucket: '/?list-type=2' lists the root, '/a/b/?list-type=2' lists folder a/b.
  if (params.get('list-type') === '2' && st?.isDirectory()) return listing(file, params, method, res)
  if (!st?.isFile()) throw new Refusal(404, `not found: ${rawPath}`)
  return sendFile(file, st, req, res, method === 'HEAD')
}

function setCommonHeaders(res: ServerResponse, opts: ServeOptions): void {
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin')
  res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp')
  // With CORS on, another origin's isolated page must be allowed to embed our responses.
  res.setHeader('Cross-Origin-Resource-Policy', opts.cors ? 'cross-origin' : 'same-origin')
  res.setHeader('X-Content-Type-Options', 'nosniff')
  if (opts.cors) {
    res.setHeader('Access-Control-Allow-Origin', '*')
    // Without these the page cannot read Content-Range/ETag of cross-origin range responses.
    res.setHeader('Access-Control-Expose-Headers', 'Content-Length, Content-Range, ETag, Last-Modified, Accept-Ranges')
  }
}

/** Range is not a CORS-safelisted header for most values, so range reads need a preflight. */
function preflight(res: ServerResponse): void {
  res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS')
  res.setHeader('Access-Control-Allow-Headers', 'Range, If-None-Match, If-Range, Authorization')
  res.setHeader('Access-Control-Max-Age', '600')
  res.writeHead(204).end()
}

/** Splits a request target into its raw (still %-encoded) path and query. */
function splitTarget(target: string): [string, string] {
  if (!target.startsWith('/')) throw new Refusal(400, 'request target must be an absolute path')
  const q = target.indexOf('?')
  return q < 0 ? [target, ''] : [target.slice(0, q), target.slice(q + 1)]
}

/**
 * Maps a raw request path to a real file path inside `root`, or refuses with 403. The path is
 * %-decoded exactly once (a file named `a%2Fb` is requested as `a%252Fb`), and checked both
 * lexically ('..', NUL, absolute) and after realpath, so neither encoded dots nor symlinks escape.
 */
export async function resolveInside(root: string, rawPath: string): Promise<string> {
  let decoded: string
  try {
    decoded = decodeURIComponent(rawPath)
  } catch {
    throw new Refusal(400, `malformed %-encoding in ${rawPath}`)
  }
  const rel = decoded.slice(1)
  const segments = rel.split('/')
  if (decoded.includes('\0') || isAbsolute(rel) || segments.some(s => s === '..' || s.includes('\\'))) {
    throw new Refusal(403, `forbidden path ${rawPath}`)
  }
  const real = await realpath(join(root, ...segments)).catch(() => null)
  if (real === null) throw new Refusal(404, `not found: ${rawPath}`)
  if (real !== root && !real.startsWith(root + sep)) throw new Refusal(403, `forbidden path ${rawPath} (outside the served folder)`)
  return real
}

async function listing(root: string, params: URLSearchParams, method: string, res: ServerResponse): Promise<void> {
  const maxKeys = params.get('max-keys')
  if (maxKeys !== null && !/^\d+$/.test(maxKeys)) throw new Refusal(400, `max-keys: expected a non-negative integer, got '${maxKeys}'`)
  const xml = await renderListObjectsV2(root, {
    prefix: params.get('prefix') ?? '',
    delimiter: params.get('delimiter') || undefined,
    continuationToken: params.get('continuation-token') ?? undefined,
    startAfter: params.get('start-after') ?? undefined,
    maxKeys: maxKeys === null ? undefined : Number(maxKeys),
    encodingType: params.get('encoding-type') === 'url' ? 'url' : undefined,
  })
  const body = Buffer.from(xml, 'utf8')
  res.writeHead(200, { 'Content-Type': 'application/xml', 'Content-Length': body.length, 'Cache-Control': 'no-store' })
  res.end(method === 'HEAD' ? undefined : body)
}

function sendFile(file: string, st: Stats, req: IncomingMessage, res: ServerResponse, headOnly: boolean): void {
  const etag = fileEtag(st)
  res.setHeader('ETag', etag)
  res.setHeader('Last-Modified', new Date(st.mtimeMs).toUTCString())
  res.setHeader('Accept-Ranges', 'bytes')
  res.setHeader('Content-Type', TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream')
  if (req.headers['if-none-match'] === etag) return void res.writeHead(304).end()
  const ifRange = req.headers['if-range']
  const range = ifRange === undefined || ifRange === etag ? parseRange(req.headers.range, st.size) : null
  if (range === 'unsatisfiable') {
    res.writeHead(416, { 'Content-Range': `bytes */${st.size}`, 'Content-Length': 0 })
    return void res.end()
  }
  const [start, end] = range ?? [0, st.size - 1]
  const length = end - start + 1
  const headers: Record<string, string | number> = { 'Content-Length': length }
  if (range) headers['Content-Range'] = `bytes ${start}-${end}/${st.size}`
  res.writeHead(range ? 206 : 200, headers)
  if (headOnly || length === 0) return void res.end()
  const stream = createReadStream(file, { start, end })
  stream.on('error', () => res.destroy())
  stream.pipe(res)
}

function send(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) return void res.destroy()
  const body = Buffer.from(message + '\n', 'utf8')
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': body.length })
  res.end(body)
}
