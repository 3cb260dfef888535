/**
 * Table discovery on snaptrain's page servers: answers S3 ListObjectsV2 requests
 * (`GET /?list-type=2&prefix=…`) at the server root for local folders shown under key prefixes,
 * so the page (and the Delta reader's listing client) can discover tables and their
 * `_delta_log` exactly as they would on a bucket. One middleware for vite's dev server (public/ at
 * the root) and the built app's page server (page-server.ts: the sample tables, or the folder of
 * `snaptrain serve --table`). On the dev server, file bytes are served by vite's static handler
 * (sirv), which honours Range; tableFilesMiddleware fixes what sirv gets wrong for tables.
 */
import type { Plugin } from 'vite'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { realpath, stat } from 'node:fs/promises'
import { resolve, sep } from 'node:path'
import { parseRange } from './range.ts'
import { listingXml, renderListObjectsV2, xmlEscape, type ListOptions } from './s3-listing.ts'
import type { Middleware } from './host-check.ts'

/**
 * A local folder in the server root's listing: its keys appear under `key` ('' for the root
 * itself, else a prefix ending in '/', e.g. 'tables/' or 'tables/clicks/').
 */
export interface ListedFolder {
  key: string
  dir: string
}

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

/**
 * Middleware answering listings of `folders`; other requests go to `next`. A prefix inside a
 * folder's key lists that folder (the longest key wins), its keys shown under the folder's key; a
 * prefix above a folder's key (the page asking for the folders under 'tables/') is answered with
 * the folders' keys rolled up at the delimiter, as a bucket holding only those folders would.
 */
export function listingMiddleware(folders: readonly ListedFolder[]): Middleware {
  return (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => {
    const opts = req.method === 'GET' || req.method === 'HEAD' ? listingOptions(req.url ?? '/') : undefined
    if (!opts) return next()
    if (opts.maxKeys !== undefined && !(Number.isInteger(opts.maxKeys) && opts.maxKeys >= 0)) {
      return sendXml(res, 400, errorXml('InvalidArgument', `max-keys must be a non-negative integer`))
    }
    renderListing(folders, opts).then(
      xml => sendXml(res, 200, req.method === 'HEAD' ? '' : xml),
      (e: unknown) => sendXml(res, 500, errorXml('InternalError', `listing failed: ${String(e)}`)),
    )
  }
}

/** The listing XML of `folders` for one request. */
async function renderListing(folders: readonly ListedFolder[], opts: ListOptions): Promise<string> {
  const prefix = opts.prefix ?? ''
  const inside = folders.filter(f => prefix.startsWith(f.key)).sort((a, b) => b.key.length - a.key.length)[0]
  if (inside) {
    const strip = (k: string | undefined) =>
      k === undefined ? undefined : k.startsWith(inside.key) ? k.slice(inside.key.length) : ''
    const xml = await renderListObjectsV2(inside.dir, {
      ...opts,
      prefix: prefix.slice(inside.key.length),
      startAfter: strip(opts.startAfter),
    })
    if (inside.key === '') return xml
    const shown = xmlEscape(
      opts.encodingType === 'url' ? inside.key.split('/').map(encodeURIComponent).join('/') : inside.key,
    )
    return xml.replace(/<(Key|Prefix)>/g, `<$1>${shown}`)
  }
  // Above every folder: only a delimited listing rolls their keys up (no delimiter: nothing here).
  const rolled = opts.delimiter
    ? folders
        .filter(f => f.key.startsWith(prefix))
        .map(f => f.key.slice(0, f.key.indexOf(opts.delimiter!, prefix.length) + opts.delimiter!.length))
        .filter((k, i, all) => k.length > prefix.length && all.indexOf(k) === i && (opts.startAfter ?? '') < k)
        .sort()
    : []
  return listingXml({ contents: [], commonPrefixes: rolled }, opts)
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
export function tableFilesMiddleware(rootDir: string, prefix = '/tables/'): Middleware {
  return (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => {
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
 * The plugin: lists `config.publicDir` on the dev server (the built app has no tables in it: the
 * page server lists them). Registered before vite's own middlewares, because vite would otherwise
 * answer '/' with index.html.
 */
export function tablesListingPlugin(): Plugin {
  let publicDir = ''
  return {
    name: 'snaptrain-tables-listing',
    configResolved(config) {
      publicDir = config.publicDir
    },
    configureServer(server) {
      server.middlewares.use(listingMiddleware([{ key: '', dir: publicDir }]))
      server.middlewares.use(tableFilesMiddleware(publicDir))
    },
  }
}
