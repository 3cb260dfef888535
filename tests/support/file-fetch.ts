/**
 * A fake `fetch` serving a local folder as a static HTTP server (tests only, Node): GET and HEAD,
 * single `Range: bytes=…` requests (206), 404 for missing files, and optionally the S3
 * ListObjectsV2 XML listing at the server root (`/?list-type=2&prefix=…`), as the bundled dev/CLI
 * servers offer it. URL paths are %-decoded once per segment to find files, so a file literally
 * named `a%3Ab` is requested as `a%253Ab`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve, sep } from 'node:path'
import type { FetchLike } from '../../src/table/types.ts'

/** Options of the fake server. */
export interface FileFetchOptions {
  /** Serve the S3 ListObjectsV2 listing at the root (default true). */
  listing?: boolean
  /** Origin and path prefix the folder is served at (default 'http://table.test/'). */
  baseUrl?: string
  /** Keys per listing page (default 1000, as S3), to exercise pagination. */
  pageSize?: number
}

/** One request seen by the fake, for asserting request counts and ranges. */
export interface SeenRequest {
  method: string
  url: string
  range?: string
}

/** The fake fetch plus the log of requests it served. */
export type FileFetch = FetchLike & { requests: SeenRequest[] }

/**
 * @param rootDir folder to serve
 * @returns a fetch whose URLs under `baseUrl` map to files under `rootDir`
 */
export function fileFetch(rootDir: string, opts: FileFetchOptions = {}): FileFetch {
  const base = new URL(opts.baseUrl ?? 'http://table.test/')
  const root = resolve(rootDir)
  const requests: SeenRequest[] = []
  const fetch = async (input: string, init?: RequestInit): Promise<Response> => {
    const method = (init?.method ?? 'GET').toUpperCase()
    const headers = new Headers(init?.headers)
    requests.push({ method, url: input, range: headers.get('Range') ?? undefined })
    if (init?.signal?.aborted) throw init.signal.reason ?? new DOMException('aborted', 'AbortError')
    const url = new URL(input)
    if (url.origin !== base.origin) throw new TypeError(`fetch failed: no server at ${url.origin}`)
    if (url.pathname === '/' && url.searchParams.get('list-type') === '2') {
      return opts.listing === false
        ? text(404, 'Not Found')
        : listObjects(root, base, url.searchParams, opts.pageSize ?? 1000)
    }
    const file = fileFor(root, base, url.pathname)
    if (!file) return text(404, 'Not Found')
    return serveFile(file, method, headers.get('Range'))
  }
  return Object.assign(fetch, { requests })
}

function text(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, statusText: body, headers: { 'Content-Type': 'text/plain', ...headers } })
}

/** Map a URL path to a file under root (decoded per segment), or undefined. */
function fileFor(root: string, base: URL, pathname: string): string | undefined {
  if (!pathname.startsWith(base.pathname)) return undefined
  let segments: string[]
  try {
    segments = pathname.slice(base.pathname.length).split('/').map(decodeURIComponent)
  } catch {
    return undefined
  }
  const path = resolve(root, ...segments)
  if (path !== root && !path.startsWith(root + sep)) return undefined // no escaping the folder
  try {
    return statSync(path).isFile() ? path : undefined
  } catch {
    return undefined
  }
}

function serveFile(path: string, method: string, range: string | null): Response {
  const stat = statSync(path)
  const common = { 'Last-Modified': stat.mtime.toUTCString(), 'Accept-Ranges': 'bytes' }
  if (method === 'HEAD') {
    return new Response(null, { status: 200, headers: { ...common, 'Content-Length': String(stat.size) } })
  }
  const bytes = readFileSync(path)
  if (!range) return new Response(bytes, { status: 200, headers: { ...common, 'Content-Length': String(stat.size) } })
  const span = parseRange(range, stat.size)
  if (!span) return text(416, 'Range Not Satisfiable', { 'Content-Range': `bytes */${stat.size}` })
  const [start, end] = span
  return new Response(bytes.subarray(start, end + 1), {
    status: 206,
    statusText: 'Partial Content',
    headers: {
      ...common,
      'Content-Length': String(end - start + 1),
      'Content-Range': `bytes ${start}-${end}/${stat.size}`,
    },
  })
}

/** Inclusive [start, end] of a single `bytes=` range, or undefined when unsatisfiable. */
function parseRange(header: string, size: number): [number, number] | undefined {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (!m || (m[1] === '' && m[2] === '')) return undefined
  if (m[1] === '') return size ? [Math.max(0, size - Number(m[2])), size - 1] : undefined
  const start = Number(m[1])
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1)
  return start <= end && start < size ? [start, end] : undefined
}

/** S3 ListObjectsV2 over the files under root; keys are decoded paths relative to the server root. */
function listObjects(root: string, base: URL, params: URLSearchParams, pageSize: number): Response {
  const prefix = params.get('prefix') ?? ''
  const basePrefix = decodeURIComponent(base.pathname.slice(1))
  const keys = walk(root)
    .map(p => basePrefix + relative(root, p).split(sep).join('/'))
    .filter(k => k.startsWith(prefix))
    .sort()
  const entries = rollUp(keys, prefix, params.get('delimiter'))
  const after = params.get('continuation-token') ?? params.get('start-after') ?? ''
  const rest = entries.filter(k => k > after)
  const page = rest.slice(0, pageSize)
  const truncated = rest.length > page.length
  const contents = page
    .map(key => {
      if (!keys.includes(key)) return `<CommonPrefixes><Prefix>${escapeXml(key)}</Prefix></CommonPrefixes>`
      const stat = statSync(join(root, key.slice(basePrefix.length)))
      return (
        `<Contents><Key>${escapeXml(key)}</Key><LastModified>${stat.mtime.toISOString()}</LastModified>` +
        `<Size>${stat.size}</Size></Contents>`
      )
    })
    .join('')
  const xml =
    '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
    `<Prefix>${escapeXml(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><IsTruncated>${truncated}</IsTruncated>` +
    (truncated ? `<NextContinuationToken>${escapeXml(page[page.length - 1])}</NextContinuationToken>` : '') +
    `${contents}</ListBucketResult>`
  return new Response(xml, { status: 200, headers: { 'Content-Type': 'application/xml' } })
}

/** With a delimiter, keys with it after the prefix collapse into one common prefix each (as S3). */
function rollUp(keys: string[], prefix: string, delimiter: string | null): string[] {
  if (!delimiter) return keys
  const out = new Set<string>()
  for (const key of keys) {
    const at = key.indexOf(delimiter, prefix.length)
    out.add(at < 0 ? key : key.slice(0, at + delimiter.length))
  }
  return [...out].sort()
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? walk(path) : entry.isFile() ? [path] : []
  })
}

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}
