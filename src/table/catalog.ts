/**
 * Table discovery: the tables under a folder URL are the folders an S3 ListObjectsV2 request
 * with delimiter '/' rolls up into CommonPrefixes. Works against S3-compatible stores and the
 * bundled servers (vite plugin, CLI loopback server), which answer the same request at '/'.
 */
import { retryingFetch } from './http.ts'
import { TableError, type HttpOptions } from './types.ts'

/** A table found under a folder URL. */
export interface TableEntry {
  /** Folder name, e.g. 'clicks'. */
  name: string
  /** Table root URL, ending in '/'. */
  url: string
}

/** Most pages followed (1000 entries each) before giving up on a runaway listing. */
const MAX_PAGES = 100

/**
 * Lists the sub-folders of `baseUrl` (absolute, ending in '/'), sorted by name, hidden ones
 * ('.x', '_x') left out. Every other folder is reported; whether it holds a Delta table is for openSnapshot to say (listing every _delta_log
 * here would cost one request per folder). Throws TableError('http') naming the listing URL
 * when the server does not answer ListObjectsV2 (e.g. a plain static server).
 */
export async function listTables(baseUrl: string, opts: HttpOptions = {}): Promise<TableEntry[]> {
  const base = new URL(baseUrl)
  if (!base.pathname.endsWith('/')) base.pathname += '/'
  const prefix = decodeURIComponent(base.pathname.slice(1))
  const fetch = retryingFetch(opts, base.href)
  const names: string[] = []
  let token: string | undefined
  for (let page = 0; page < MAX_PAGES; page++) {
    const url = listingUrl(base, prefix, token)
    const xml = await (await fetch(url)).text()
    const parsed = parseListing(xml, url)
    names.push(...parsed.prefixes.map(p => p.slice(prefix.length, -1)).filter(isVisible))
    token = parsed.nextToken
    if (!token) return names.sort().map(name => ({ name, url: new URL(`${encodeURIComponent(name)}/`, base).href }))
  }
  throw new TableError(`listing ${base.href}: more than ${MAX_PAGES} pages`, 'http', base.href)
}

/**
 * Hadoop's hidden-path rule (Spark and Delta skip names starting with '.' or '_'): it hides
 * writers' staging folders such as `.clicks.tmp-1234` while a table is being generated.
 */
function isVisible(name: string): boolean {
  return name !== '' && !name.startsWith('.') && !name.startsWith('_')
}

/** The ListObjectsV2 request for the folders directly under `prefix`, at the origin's root. */
export function listingUrl(base: URL, prefix: string, token?: string): string {
  const q = new URLSearchParams({ 'list-type': '2', prefix, delimiter: '/' })
  if (token) q.set('continuation-token', token)
  return `${base.origin}/?${q}`
}

/** CommonPrefixes and NextContinuationToken of a ListObjectsV2 response body. */
export function parseListing(xml: string, url: string): { prefixes: string[]; nextToken?: string } {
  if (!/<ListBucketResult[\s>]/.test(xml)) {
    throw new TableError(
      `${url}: not an S3 ListObjectsV2 response (server cannot list tables): ` + `${JSON.stringify(xml.slice(0, 80))}`,
      'http',
      url,
    )
  }
  const prefixes = [...xml.matchAll(/<CommonPrefixes>\s*<Prefix>([^<]*)<\/Prefix>/g)].map(m => xmlUnescape(m[1]!))
  const truncated = /<IsTruncated>true<\/IsTruncated>/.test(xml)
  const token = /<NextContinuationToken>([^<]*)<\/NextContinuationToken>/.exec(xml)?.[1]
  return { prefixes, nextToken: truncated && token ? xmlUnescape(token) : undefined }
}

function xmlUnescape(s: string): string {
  return s.replace(/&(lt|gt|amp|quot|apos|#\d+|#x[0-9a-f]+);/gi, (_, e: string) => {
    const named: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }
    if (e[0] !== '#') return named[e.toLowerCase()]!
    return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10))
  })
}
