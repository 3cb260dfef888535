/**
 * Loopback static file server for local Delta tables: the CLI serves a folder over HTTP so the
 * reader always takes the same HTTP path as with a remote table (DESIGN.md, headless contract).
 * GET/HEAD with ETag/Last-Modified, single byte ranges (hyparquet reads footers and column chunks
 * by Range), S3 ListObjectsV2 at `/?list-type=2`, and cross-origin isolation headers so the page
 * may also load from it. Only files inside the root are served; with `mount` the root appears as
 * one folder `/<mount>/` and nothing else answers, so a table's sibling folders stay private.
 * CORS is off unless asked for: a list of origins (reflected one at a time), or `true` for any.
 * A request whose Host is not one of the server's own names gets 403 (host-check.ts).
 */
import { createServer } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createReadStream } from 'node:fs'
import { realpath, stat } from 'node:fs/promises'
import type { Stats } from 'node:fs'
import { extname, isAbsolute, join, sep } from 'node:path'
import { fileEtag, renderListObjectsV2, xmlEscape } from './s3-listing.ts'
import { parseRange } from './range.ts'
import { DATA_CSP } from './csp.ts'
import { hostGuard } from './host-check.ts'

/** Options of `serveDirectory`. */
export interface ServeOptions {
  /** Interface to bind; default '127.0.0.1' (loopback only). */
  host?: string
  /** TCP port; default 0 (a free one). */
  port?: number
  /**
   * CORS: `true` sends `Access-Control-Allow-Origin: *`; a list allows those origins only (more
   * can be added with `allowOrigin`); default off. Preflights are answered for allowed origins.
   */
  cors?: boolean | readonly string[]
  /**
   * Serve the root as the single folder `/<mount>/` (a plain name, no '/'); requests outside it
   * get 404, and the root listing shows only keys under `<mount>/`. Default: the root is `/`.
   */
  mount?: string
  /**
   * Host names answered besides loopback with the server's port (any port with these); added to
   * SNAPTRAIN_ALLOWED_HOSTS. `host`, when given, is answered too, with the server's port only.
   */
  allowedHosts?: readonly string[]
}

/** A running server; `url` is its root and ends with '/' (with `mount`, the folder is `url + encodeURIComponent(mount) + '/'`). */
export interface ServedDirectory {
  url: string
  /** Allows one more origin (e.g. the app page's, known only once its server runs); no-op with `cors: true`. */
  allowOrigin(origin: string): void
  close(): Promise<void>
}

/** Per-server settings the handler needs. */
interface Served {
  root: string
  /** '*', or the allowed origins; undefined: no CORS. */
  origins?: '*' | Set<string>
  mount?: string
}

const TYPES: Record<string, string> = {
  '.json': 'application/json',
  '.parquet': 'application/vnd.apache.parquet',
  '.crc': 'application/json',
  '.bin': 'application/octet-stream',
  '.xml': 'application/xml',
  '.txt': 'text/plain; charset=utf-8',
  // The built app's files (the page server sends them with sendFile too).
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.png': 'image/png',
  '.map': 'application/json',
}

/** Why a request is refused: the status and a short plain-text body. */
export class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

/** Serves `rootDir` over HTTP until `close()`; resolves once listening. */
export async function serveDirectory(rootDir: string, opts: ServeOptions = {}): Promise<ServedDirectory> {
  if (
    opts.mount !== undefined &&
    (opts.mount === '' || /[/\\]/.test(opts.mount) || opts.mount === '..' || opts.mount === '.')
  ) {
    throw new RangeError(`serveDirectory: mount must be a plain folder name, got '${opts.mount}'`)
  }
  const served: Served = {
    root: await realpath(rootDir),
    mount: opts.mount,
    origins: opts.cors === true ? '*' : opts.cors ? new Set(opts.cors) : undefined,
  }
  const refused = hostGuard({ bind: opts.host, allowedHosts: opts.allowedHosts })
  const server = createServer((req, res) => {
    if (refused(req, res)) return
    handle(served, req, res).catch(e => send(res, e instanceof Refusal ? e.status : 500, (e as Error).message))
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
    allowOrigin: origin => {
      if (served.origins instanceof Set) served.origins.add(origin)
    },
    close: () =>
      new Promise<void>(resolve => {
        server.close(() => resolve())
        // Keep-alive sockets would hold close() open until they time out.
        server.closeAllConnections()
      }),
  }
}

async function handle(served: Served, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const corsOk = setCommonHeaders(res, served, req.headers.origin)
  const method = req.method ?? 'GET'
  if (method === 'OPTIONS' && corsOk) return preflight(res)
  if (method !== 'GET' && method !== 'HEAD') {
    res.setHeader('Allow', served.origins ? 'GET, HEAD, OPTIONS' : 'GET, HEAD')
    throw new Refusal(405, `method ${method} not allowed`)
  }
  const [target, query = ''] = splitTarget(req.url ?? '/')
  const params = new URLSearchParams(query)
  if (served.mount !== undefined && target === '/' && params.get('list-type') === '2')
    return mountedListing(served, params, method, res)
  const rawPath = served.mount === undefined ? target : unmount(target, served.mount)
  const root = served.root
  const file = await resolveInside(root, rawPath)
  const st = await stat(file).catch(() => null)
  // Path-style bucket: '/?list-type=2' lists the root, '/a/b/?list-type=2' lists folder a/b.
  if (params.get('list-type') === '2' && st?.isDirectory()) return listing(file, params, method, res)
  if (!st?.isFile()) throw new Refusal(404, `not found: ${rawPath}`)
  return sendFile(file, st, req, res, method === 'HEAD')
}

/** Isolation and CORS headers; returns whether the request's origin may read the answer. */
function setCommonHeaders(res: ServerResponse, served: Served, origin: string | undefined): boolean {
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin')
  res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp')
  // Open to any origin: another origin's isolated page must be allowed to embed our responses.
  // For listed origins the CORS answer itself satisfies their COEP; no-cors embedding stays same-origin.
  res.setHeader('Cross-Origin-Resource-Policy', served.origins === '*' ? 'cross-origin' : 'same-origin')
  res.setHeader('X-Content-Type-Options', 'nosniff')
  // Table files are data: opened in a browser tab they must not run as a document.
  res.setHeader('Content-Security-Policy', DATA_CSP)
  const allowed =
    served.origins === '*' ? '*' : origin !== undefined && served.origins?.has(origin) ? origin : undefined
  if (served.origins instanceof Set) res.setHeader('Vary', 'Origin')
  if (allowed === undefined) return false
  res.setHeader('Access-Control-Allow-Origin', allowed)
  // The page's Resource Timing may then show where a range answer's time went (the bench's wire rows).
  res.setHeader('Timing-Allow-Origin', allowed)
  // Without these the page cannot read Content-Range/ETag of cross-origin range responses.
  res.setHeader('Access-Control-Expose-Headers', 'Content-Length, Content-Range, ETag, Last-Modified, Accept-Ranges')
  return true
}

/** '/<mount>/rest' → '/rest' (the mount name compared decoded); anything else is not served. */
function unmount(target: string, mount: string): string {
  const slash = target.indexOf('/', 1)
  const first = slash < 0 ? target.slice(1) : target.slice(1, slash)
  let name: string
  try {
    name = decodeURIComponent(first)
  } catch {
    throw new Refusal(400, `malformed %-encoding in ${target}`)
  }
  if (name !== mount || slash < 0) throw new Refusal(404, `not found: ${target}`)
  return target.slice(slash)
}

/**
 * The bucket-root listing of a mounted folder: only prefixes inside `<mount>/` list anything;
 * keys are listed relative to the folder and shown with `<mount>/` in front.
 */
async function mountedListing(
  served: Served,
  params: URLSearchParams,
  method: string,
  res: ServerResponse,
): Promise<void> {
  const head = `${served.mount!}/`
  const prefix = params.get('prefix') ?? ''
  if (!prefix.startsWith(head)) throw new Refusal(404, `nothing listed under prefix '${prefix}'`)
  const inner = new URLSearchParams(params)
  inner.set('prefix', prefix.slice(head.length))
  const after = params.get('start-after')
  if (after !== null) inner.set('start-after', after.startsWith(head) ? after.slice(head.length) : '')
  const shown = params.get('encoding-type') === 'url' ? encodeURIComponent(served.mount!) + '/' : xmlEscape(head)
  return listing(served.root, inner, method, res, xml => xml.replace(/<(Key|Prefix)>/g, `<$1>${shown}`))
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
  if (
    decoded.includes('\0') ||
    isAbsolute(rel) ||
    segments.some(s => s === '..' || s.includes('\\')) ||
    decodesToTraversal(rel)
  ) {
    throw new Refusal(403, `forbidden path ${rawPath}`)
  }
  const real = await realpath(join(root, ...segments)).catch(() => null)
  if (real === null) throw new Refusal(404, `not found: ${rawPath}`)
  if (real !== root && !real.startsWith(root + sep))
    throw new Refusal(403, `forbidden path ${rawPath} (outside the served folder)`)
  return real
}

/**
 * A path that is a traversal once decoded a second time (`%252e%252e%252f`): no table file needs
 * an encoded dot-dot in its name, and a proxy or client that decodes twice would escape.
 */
function decodesToTraversal(rel: string): boolean {
  let twice: string
  try {
    twice = decodeURIComponent(rel)
  } catch {
    return false
  }
  return twice !== rel && (twice.split(/[/\\]/).some(s => s === '..') || isAbsolute(twice))
}

async function listing(
  root: string,
  params: URLSearchParams,
  method: string,
  res: ServerResponse,
  rewrite: (xml: string) => string = x => x,
): Promise<void> {
  const maxKeys = params.get('max-keys')
  if (maxKeys !== null && !/^\d+$/.test(maxKeys))
    throw new Refusal(400, `max-keys: expected a non-negative integer, got '${maxKeys}'`)
  const xml = await renderListObjectsV2(root, {
    prefix: params.get('prefix') ?? '',
    delimiter: params.get('delimiter') || undefined,
    continuationToken: params.get('continuation-token') ?? undefined,
    startAfter: params.get('start-after') ?? undefined,
    maxKeys: maxKeys === null ? undefined : Number(maxKeys),
    encodingType: params.get('encoding-type') === 'url' ? 'url' : undefined,
  })
  const body = Buffer.from(rewrite(xml), 'utf8')
  res.writeHead(200, { 'Content-Type': 'application/xml', 'Content-Length': body.length, 'Cache-Control': 'no-store' })
  res.end(method === 'HEAD' ? undefined : body)
}

/**
 * Answers GET/HEAD of one file: ETag and Last-Modified (304 on If-None-Match), one byte range
 * (206, or 416 when unsatisfiable; If-Range honoured), Content-Type by extension.
 */
export function sendFile(file: string, st: Stats, req: IncomingMessage, res: ServerResponse, headOnly: boolean): void {
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
  // 1 MiB reads (not 64 KiB): a few large writes per column chunk; a Node client got 2× the rate (bench/README.md, wire rows).
  const stream = createReadStream(file, { start, end, highWaterMark: 1 << 20 })
  stream.on('error', () => res.destroy())
  stream.pipe(res)
}

/** A plain-text answer (the status and a one-line message); a started answer is cut off instead. */
export function send(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) return void res.destroy()
  const body = Buffer.from(message + '\n', 'utf8')
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': body.length })
  res.end(body)
}
