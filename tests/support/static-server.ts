/**
 * A plain static file server, as the simplest static hosts behave: GET and HEAD of files under one
 * folder, `index.html` for a folder that has one, the query string ignored, no directory listing,
 * 404 for anything else, no COOP/COEP/CSP headers. A single byte range (`Range: bytes=a-b`, `a-`,
 * `-n`) answers 206 as most hosts do; `range: false` answers every request with the whole file
 * (200), as Python's http.server does. `headersFile: true` applies the folder's `_headers` file
 * (Netlify / Cloudflare Pages format, `/*` rules only) like a host that honours it. Every request
 * is recorded (method, path with query, status) for the tests to inspect. `mount` puts the folder
 * under one path, as a project site's host does.
 */
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, resolve, sep } from 'node:path'

/** Options of startStaticServer. */
export interface StaticServerOptions {
  /** Honour `Range` with 206 (default true); false: always the whole file with 200. */
  range?: boolean
  /** Send the `/*` headers of the folder's `_headers` file (default false: no extra headers). */
  headersFile?: boolean
  /** Serve the folder at `/<mount>/` only (a project site on GitHub Pages, say); default `/`. */
  mount?: string
}

/** One answered request. */
export interface StaticRequest {
  method: string
  /** Path and query as requested. */
  url: string
  status: number
  range?: string
}

/** A running static server. */
export interface StaticServer {
  /** Origin URL ending in '/'. */
  url: string
  requests: StaticRequest[]
  close(): Promise<void>
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
}

/** The `/*` rule of a `_headers` file as header pairs. */
export function parseHeadersFile(text: string): Record<string, string> {
  const out: Record<string, string> = {}
  let inAll = false
  for (const line of text.split('\n')) {
    if (!line.trim() || line.trimStart().startsWith('#')) continue
    if (!/^\s/.test(line)) {
      inAll = line.trim() === '/*'
      continue
    }
    const colon = line.indexOf(':')
    if (inAll && colon > 0) out[line.slice(0, colon).trim()] = line.slice(colon + 1).trim()
  }
  return out
}

/** Serves `root` on 127.0.0.1 at a free port. */
export async function startStaticServer(root: string, opts: StaticServerOptions = {}): Promise<StaticServer> {
  const base = resolve(root)
  const requests: StaticRequest[] = []
  const extra =
    opts.headersFile && existsSync(join(base, '_headers'))
      ? parseHeadersFile(readFileSync(join(base, '_headers'), 'utf8'))
      : {}
  const server = createServer((req, res) => {
    const status = answer(base, req, res, opts.range ?? true, extra, opts.mount)
    requests.push({ method: req.method ?? '', url: req.url ?? '', status, range: req.headers.range })
  })
  await new Promise<void>(ok => server.listen(0, '127.0.0.1', ok))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/${opts.mount ? `${opts.mount}/` : ''}`,
    requests,
    close: () =>
      new Promise<void>(ok => {
        server.closeAllConnections()
        server.close(() => ok())
      }),
  }
}

function answer(
  base: string,
  req: IncomingMessage,
  res: ServerResponse,
  ranges: boolean,
  extra: Record<string, string>,
  mount: string | undefined,
): number {
  const end = (status: number, body = '') => {
    res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body) })
    res.end(req.method === 'HEAD' ? undefined : body)
    return status
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') return end(405, 'method not allowed\n')
  let path: string
  try {
    path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)
  } catch {
    return end(400, 'bad path\n')
  }
  if (mount) {
    if (!path.startsWith(`/${mount}/`)) return end(404, 'not found\n')
    path = path.slice(mount.length + 1)
  }
  let file = resolve(base, `.${path}`)
  if (file !== base && !file.startsWith(base + sep)) return end(404, 'not found\n')
  let stat = statSync(file, { throwIfNoEntry: false })
  if (stat?.isDirectory()) {
    file = join(file, 'index.html')
    stat = statSync(file, { throwIfNoEntry: false })
  }
  if (!stat?.isFile()) return end(404, 'not found\n')
  const headers: Record<string, string | number> = {
    ...extra,
    'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
    'Last-Modified': stat.mtime.toUTCString(),
  }
  if (ranges) headers['Accept-Ranges'] = 'bytes'
  const range = ranges ? parseRange(req.headers.range, stat.size) : undefined
  if (range === 'unsatisfiable') {
    res.writeHead(416, { 'Content-Range': `bytes */${stat.size}` })
    res.end()
    return 416
  }
  const [start, last] = range ?? [0, stat.size - 1]
  const status = range ? 206 : 200
  if (range) headers['Content-Range'] = `bytes ${start}-${last}/${stat.size}`
  headers['Content-Length'] = Math.max(0, last - start + 1)
  res.writeHead(status, headers)
  if (req.method === 'HEAD' || last < start) res.end()
  else createReadStream(file, { start, end: last }).pipe(res)
  return status
}

/** A single `bytes=` range as [first, last] (inclusive); undefined for none or several ranges. */
function parseRange(header: string | undefined, size: number): [number, number] | 'unsatisfiable' | undefined {
  const m = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null
  if (!m || (m[1] === '' && m[2] === '')) return undefined
  if (m[1] === '') {
    const n = Number(m[2])
    return n === 0 || size === 0 ? 'unsatisfiable' : [Math.max(0, size - n), size - 1]
  }
  const first = Number(m[1])
  if (first >= size) return 'unsatisfiable'
  return [first, m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1)]
}
