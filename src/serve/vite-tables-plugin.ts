/**
 * Vite plugin: answers S3 ListObjectsV2 requests (`GET /?list-type=2&prefix=…`) at the server
 * root for the files under public/, so the page (and the Delta reader's listing client) can
 * discover the sample tables and their `_delta_log` exactly as they would on a bucket.
 * File bytes themselves are served by vite's static handler (sirv), which honours Range.
 */
import type { Connect, Plugin } from 'vite'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { realpath, stat } from 'node:fs/promises'
import { resolve, sep } from 'node:path'
import { parseRange } from './range.ts'
import { renderListObjectsV2, type ListOptions } from './s3-listing.ts'

/** A ListObjectsV2 request on '/' (other list-type values and paths are left to vite). */
export function listingOptions(url: string): ListOptions | undefined {
  const u = new URL(url, 'http://localhost')
  if (u.pathname !== '/' || u.searchParams.get('list-type') !== '2') return undefined
  const q = u.searchParams
  const maxKeys = q.get('max-keys')
  const enc = q.get('encoding-type')
  return {
    prefix: q.get('prefix') ?? '',
    delimiter: q.get('delimiter') ?? undefined,
    continuationToken: q.get('continuation-token') ?? undefined,
    startAfter: q.get('start-after') ?? undefined,
    maxKeys: maxKeys === null ? undefined : Number(maxKeys),
    encodingType: enc === 'url' ? 'url' : undefined,
  }
}

/** Connect middleware serving listings of `rootDir`; other requests go to `next`. */
export function listingMiddleware(rootDir: string): Connect.NextHandleFunction {
  return (req: IncomingMessage, res: ServerResponse, next: Connect.NextFunction) => {
    const opts = req.method === 'GET' || req.method === 'HEAD' ? listingOptions(req.url ?? '/') : undefined
    if (!opts) return next()
    if (opts.maxKeys !== undefined && !(Number.isInteger(opts.maxKeys) && opts.maxKeys >= 0)) {
      return sendXml(res, 400, errorXml('InvalidArgument', `max-keys must be a non-negative integer`))
    }
    renderListObjectsV2(rootDir, opts).then(
      xml => sendXml(res, 200, req.method === 'HEAD' ? '' : xml),
      (e: unknown) => sendXml(res, 500, errorXml('InternalError', `listing ${rootDir} failed: ${String(e)}`)),
    )
  }
}

/**
 * Checks requests for files under `rootDir/<prefix>` before vite's static handler sees them:
 * - 404 for a missing file. Without it vite's SPA fallback answers any unknown path with
 *   index.html and status 200, and a reader probing `_delta_log/…` or `_last_checkpoint` would
 *   take HTML for table content instead of seeing "no such file".
 * - suffix ranges (`Range: bytes=-N`, the last N bytes, where Parquet keeps its footer) are
 *   rewritten to explicit offsets, because sirv reads them as `bytes=0-N` and serves the head.
 * - 403 for a symlink whose target lies outside `rootDir` (sirv would follow it).
 */
export function tableFilesMiddleware(rootDir: string, prefix = '/tables/'): Connect.NextHandleFunction {
  return (req: IncomingMessage, res: ServerResponse, next: Connect.NextFunction) => {
    const path = decodedPath(req.url ?? '/')
    if (path === undefined || !path.startsWith(prefix)) return next()
    const file = resolve(rootDir, `.${path}`)
    const notFound = () => sendXml(res, 404, errorXml('NoSuchKey', path))
    if (!file.startsWith(resolve(rootDir) + sep)) return notFound()
    Promise.all([stat(file), realpath(file), realpath(rootDir)]).then(([st, real, realRoot]) => {
      if (!st.isFile()) return notFound()
      if (!real.startsWith(realRoot + sep))
        return sendXml(res, 403, errorXml('AccessDenied', `${path}: outside the served folder`))
      const range = req.headers.range
      if (range && /^\s*bytes=-\d+\s*$/.test(range)) {
        const r = parseRange(range, st.size)
        if (r === 'unsatisfiable' || r === null) return sendRangeError(res, st.size)
        req.headers.range = `bytes=${r[0]}-${r[1]}`
      }
      next()
    }, notFound)
  }
}

function sendRangeError(res: ServerResponse, size: number): void {
  res.setHeader('Content-Range', `bytes */${size}`)
  sendXml(res, 416, errorXml('InvalidRange', 'The requested range is not satisfiable'))
}

function decodedPath(url: string): string | undefined {
  try {
    return decodeURIComponent(new URL(url, 'http://localhost').pathname)
  } catch {
    return undefined // malformed %-escape: let vite answer it
  }
}

function sendXml(res: ServerResponse, status: number, body: string): void {
  res.statusCode = status
  res.setHeader('Content-Type', 'application/xml')
  // Listings change as tables are written; a cached one would hide new commits.
  res.setHeader('Cache-Control', 'no-store')
  res.end(body)
}

function errorXml(code: string, message: string): string {
  const esc = (s: string) => s.replace(/[&<>]/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!)
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${esc(message)}</Message></Error>\n`
}

/**
 * The plugin: lists `config.publicDir` on the dev server and the build output on `vite preview`
 * (where public/ has been copied into outDir). Registered before vite's own middlewares, because
 * vite would otherwise answer '/' with index.html.
 */
export function tablesListingPlugin(): Plugin {
  let publicDir = ''
  let outDir = ''
  return {
    name: 'snaptrain-tables-listing',
    configResolved(config) {
      publicDir = config.publicDir
      outDir = resolve(config.root, config.build.outDir)
    },
    configureServer(server) {
      server.middlewares.use(listingMiddleware(publicDir))
      server.middlewares.use(tableFilesMiddleware(publicDir))
    },
    configurePreviewServer(server) {
      server.middlewares.use(listingMiddleware(outDir))
      server.middlewares.use(tableFilesMiddleware(outDir))
    },
  }
}
