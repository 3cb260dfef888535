/**
 * Table discovery: the tables under a folder URL are the folders an S3 ListObjectsV2 request
 * with delimiter '/' rolls up into CommonPrefixes. Works against S3-compatible stores and the
 * bundled servers (vite plugin, CLI loopback server), which answer the same request at '/'.
 * A plain static host cannot list (it answers the listing request with its index page or a
 * 404): there the folder's `index.json` names the tables (TABLE_INDEX, written by the static
 * demo's build), and may say what each table's log holds, so that opening the table probes
 * nothing (src/table/listing.ts IndexedLog). A page that knows its host cannot list names the
 * index itself (the demo's `<st-app tables-url="tables/index.json">`): then not even the listing
 * request is sent.
 */
import { retryingFetch, send } from '../../table/http.ts'
import { parseIndexedLog, rememberIndexedLog, type IndexedLog } from '../../table/listing.ts'
import { TableError, type HttpOptions } from '../../table/types.ts'

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
 * The static index of a folder of tables, for hosts that cannot list: `<folder>/index.json`,
 * `{"tables": [{"name": "clicks", "log": {"earliest": 0, "latest": 2}}, …]}` (each name a folder
 * directly under the folder; `log`, optional, what its `_delta_log/` holds: IndexedLog).
 */
export const TABLE_INDEX = 'index.json'

/** The body of TABLE_INDEX. */
export interface TableIndex {
  tables: { name: string; log?: IndexedLog }[]
}

/**
 * Lists the sub-folders of `baseUrl` (absolute, ending in '/'), sorted by name, hidden ones
 * ('.x', '_x') left out. Every other folder is reported; whether it holds a Delta table is for openSnapshot to say (listing every _delta_log
 * here would cost one request per folder). When the server does not answer ListObjectsV2 (a
 * plain static host), the names come from the folder's TABLE_INDEX; without one either, throws
 * TableError('http') naming both URLs.
 */
export async function listTables(baseUrl: string, opts: HttpOptions = {}): Promise<TableEntry[]> {
  const base = new URL(baseUrl)
  const entries = (names: string[]) =>
    names.sort().map(name => ({ name, url: new URL(`${encodeURIComponent(name)}/`, base).href }))
  if (base.pathname.endsWith(`/${TABLE_INDEX}`)) {
    // The page names the index: the host cannot list, so no listing request is sent.
    const folder = new URL('.', base)
    return entries(await readTableIndex(folder, opts))
  }
  if (!base.pathname.endsWith('/')) base.pathname += '/'
  const prefix = decodeURIComponent(base.pathname.slice(1))
  const fetch = retryingFetch(opts, base.href)
  const names: string[] = []
  let token: string | undefined
  for (let page = 0; page < MAX_PAGES; page++) {
    const url = listingUrl(base, prefix, token)
    let xml: string
    if (page === 0) {
      // Why the first answer may be anything: a static host answers `/?list-type=2…` with its
      // index page (query strings ignored), a 404 or a 405; that only means "no listing here".
      const first = await firstPage(url, opts, base.href)
      if ('why' in first) return entries(await readTableIndex(base, opts, { url, why: first.why }))
      xml = first.xml
    } else xml = await (await fetch(url)).text()
    const parsed = parseListing(xml, url)
    names.push(...parsed.prefixes.map(p => p.slice(prefix.length, -1)).filter(isVisible))
    token = parsed.nextToken
    if (!token) return entries(names)
  }
  throw new TableError(`listing ${base.href}: more than ${MAX_PAGES} pages`, 'http', base.href)
}

/** The first listing page's body, or why it is not a ListObjectsV2 result. */
async function firstPage(url: string, opts: HttpOptions, tableUrl: string): Promise<{ xml: string } | { why: string }> {
  let res: Response
  try {
    res = await send(url, undefined, opts, tableUrl)
  } catch (error) {
    return { why: (error as Error).message } // after the retries; the index may still answer
  }
  if (!res.ok) return { why: `${res.status} ${res.statusText}`.trim() }
  const body = await res.text()
  if (/<ListBucketResult[\s>]/.test(body)) return { xml: body }
  return { why: `not an S3 ListObjectsV2 response (server cannot list tables): ${JSON.stringify(body.slice(0, 80))}` }
}

/**
 * The table names of `base`'s TABLE_INDEX, checked; the logs it describes are remembered for the
 * reader. Missing or unreadable, the error names the listing URL tried first (and why it did not
 * list) and the index.
 */
async function readTableIndex(base: URL, opts: HttpOptions, listing?: { url: string; why: string }): Promise<string[]> {
  const url = new URL(TABLE_INDEX, base).href
  const fail = (answer: string) =>
    new TableError(
      listing ? `${listing.url}: ${listing.why}; and the static index ${answer}` : `the static index ${answer}`,
      'http',
      url,
    )
  let res: Response
  try {
    res = await send(url, undefined, opts, base.href)
  } catch (error) {
    throw fail((error as Error).message)
  }
  if (!res.ok) throw fail(`${url}: ${res.status} ${res.statusText}`.trim())
  try {
    const tables = parseTableIndex(await res.text(), url)
    for (const t of tables) if (t.log) rememberIndexedLog(new URL(`${encodeURIComponent(t.name)}/`, base).href, t.log)
    return tables.map(t => t.name)
  } catch (error) {
    throw fail((error as Error).message) // e.g. a host answering every path with its index.html
  }
}

/** The entries of a TABLE_INDEX body, each log checked; errors name `url` and the bad entry. */
export function parseTableIndex(text: string, url: string): TableIndex['tables'] {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new TableError(`${url}: not valid JSON (${(error as Error).message})`, 'http', url)
  }
  const tables = (json as Partial<TableIndex> | null)?.tables
  if (!Array.isArray(tables)) throw new TableError(`${url}: expected {"tables": [{"name": …}, …]}`, 'http', url)
  return tables.map((t: unknown, i) => {
    const name = (t as { name?: unknown } | null)?.name
    if (typeof name !== 'string' || !isVisible(name) || name.includes('/')) {
      throw new TableError(
        `${url}: tables[${i}].name must be a folder name (not hidden, no '/'), got ${JSON.stringify(name)}`,
        'http',
        url,
      )
    }
    const log = (t as { log?: unknown }).log
    return log === undefined ? { name } : { name, log: parseIndexedLog(log, url, `tables[${i}].log`) }
  })
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
