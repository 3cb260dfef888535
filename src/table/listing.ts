/**
 * Finding the files of `_delta_log/`: what a static index said of the log (IndexedLog, handed over
 * by the folder's index.json on a host that cannot list), else an S3 ListObjectsV2 listing where the
 * server offers one (our dev/CLI servers do, at the server root), else probing commit files by name
 * on a plain static server, starting from `_last_checkpoint`.
 */
import { fetchOptional, send, statusError } from './http.ts'
import { TableError, type HttpOptions } from './types.ts'

/** A commit file `<v>.json`. `lastModified` in ms since epoch when known. */
export interface CommitFile {
  version: number
  url: string
  lastModified?: number
}

/** One file of a checkpoint; size in bytes when known (saves a HEAD request). */
export interface CheckpointPart {
  url: string
  size?: number
  lastModified?: number
}

/** A complete checkpoint: classic single file, multi-part (all parts present) or v2 (UUID-named). */
export interface CheckpointFile {
  version: number
  kind: 'classic' | 'multipart' | 'v2'
  parts: CheckpointPart[]
}

/** What is known of the log: commits sorted by version, complete checkpoints sorted by version. */
export interface LogListing {
  source: 'list' | 'probe' | 'index'
  commits: CommitFile[]
  checkpoints: CheckpointFile[]
}

/** `_delta_log/_last_checkpoint` (PROTOCOL.md "Last Checkpoint File Schema"), fields we use. */
export interface LastCheckpoint {
  version: number
  size?: number
  parts?: number
  sizeInBytes?: number
  v2Checkpoint?: { path: string; sizeInBytes?: number; modificationTime?: number }
}

/** A parsed `_delta_log` file name. */
export type LogFileName =
  | { kind: 'commit'; version: number }
  | { kind: 'checkpoint'; version: number; format: 'classic' }
  | { kind: 'checkpoint'; version: number; format: 'multipart'; part: number; parts: number }
  | { kind: 'checkpoint'; version: number; format: 'v2'; uuid: string }

/** Zero-padded 20-digit version, as in log file names. */
export function pad20(version: number): string {
  return String(version).padStart(20, '0')
}

/** URL of the commit file of `version`; `tableUrl` ends in '/'. */
export function commitUrl(tableUrl: string, version: number): string {
  return `${tableUrl}_delta_log/${pad20(version)}.json`
}

/** Parse a file name directly under `_delta_log/`; undefined for anything that is not a commit or checkpoint. */
export function parseLogFileName(name: string): LogFileName | undefined {
  let m = /^(\d{20})\.json$/.exec(name)
  if (m) return { kind: 'commit', version: Number(m[1]) }
  m = /^(\d{20})\.checkpoint\.parquet$/.exec(name)
  if (m) return { kind: 'checkpoint', version: Number(m[1]), format: 'classic' }
  m = /^(\d{20})\.checkpoint\.(\d{10})\.(\d{10})\.parquet$/.exec(name)
  if (m)
    return { kind: 'checkpoint', version: Number(m[1]), format: 'multipart', part: Number(m[2]), parts: Number(m[3]) }
  m = /^(\d{20})\.checkpoint\.([^.]+)\.(json|parquet)$/.exec(name)
  if (m) return { kind: 'checkpoint', version: Number(m[1]), format: 'v2', uuid: m[2] }
  return undefined
}

/** One `<Contents>` entry of a ListObjectsV2 answer. */
export interface ListedObject {
  key: string
  size: number
  lastModified?: number
}

/** Parse a ListObjectsV2 XML body (no DOMParser: not available in Node or workers). */
export function parseListXml(xml: string): { objects: ListedObject[]; truncated: boolean; token?: string } {
  const objects: ListedObject[] = []
  for (const m of xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
    const key = tag(m[1], 'Key')
    if (key === undefined) continue
    const modified = Date.parse(tag(m[1], 'LastModified') ?? '')
    objects.push({
      key,
      size: Number(tag(m[1], 'Size') ?? NaN),
      lastModified: Number.isFinite(modified) ? modified : undefined,
    })
  }
  const truncated = tag(xml, 'IsTruncated') === 'true'
  return { objects, truncated, token: tag(xml, 'NextContinuationToken') }
}

function tag(xml: string, name: string): string | undefined {
  const m = new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(xml)
  return m ? unescapeXml(m[1]) : undefined
}

function unescapeXml(s: string): string {
  return s.replace(/&(lt|gt|quot|apos|amp|#\d+|#x[0-9a-fA-F]+);/g, (_, e: string) => {
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : Number(e.slice(1)))
    return ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' } as Record<string, string>)[e]
  })
}

/** At most this many listing pages (1000 keys each on S3): bounds a runaway pagination loop. */
const MAX_PAGES = 1000

/**
 * List `_delta_log/` with S3 ListObjectsV2 at the server root. Resolves undefined when the server
 * does not answer with a ListBucketResult (a plain static server), so the caller can probe instead.
 *
 * @param tableUrl table root, ending in '/'
 */
export async function listLog(tableUrl: string, opts: HttpOptions): Promise<LogListing | undefined> {
  const root = new URL(tableUrl)
  // S3 keys are the decoded path; the query string carries it re-encoded.
  const prefix = `${decodeURIComponent(root.pathname.slice(1))}_delta_log/`
  const objects: ListedObject[] = []
  let token: string | undefined
  for (let page = 0; page < MAX_PAGES; page++) {
    // delimiter=/ rolls _sidecars/ and _staged_commits/ up into one CommonPrefixes entry each.
    const query =
      `list-type=2&delimiter=%2F&prefix=${encodeURIComponent(prefix)}` +
      (token ? `&continuation-token=${encodeURIComponent(token)}` : '')
    const url = `${root.origin}/?${query}`
    const res = await listPage(url, opts, tableUrl, page === 0)
    if (!res) return undefined
    const body = res.ok ? await res.text() : ''
    // Why sniff the body: static servers answer the root with an HTML index or a 404, not XML.
    if (!body.includes('<ListBucketResult')) return page === 0 ? undefined : listingFrom(objects, root.origin, prefix)
    const parsed = parseListXml(body)
    objects.push(...parsed.objects.filter(o => o.key.startsWith(prefix)))
    if (!parsed.truncated || !parsed.token) return listingFrom(objects, root.origin, prefix)
    token = parsed.token
  }
  throw new TableError(`listing ${tableUrl}_delta_log/ did not finish after ${MAX_PAGES} pages`, 'http', tableUrl)
}

/**
 * GET one listing page. Why the first page may fail softly: a static server may answer anything
 * (404, 405, even 500) to `/?list-type=2`; that only means "no listing here", so we probe instead.
 */
async function listPage(
  url: string,
  opts: HttpOptions,
  tableUrl: string,
  first: boolean,
): Promise<Response | undefined> {
  try {
    const res = await send(url, undefined, opts, tableUrl)
    if (res.ok || first) return res
    throw statusError('GET', url, res)
  } catch (error) {
    if (first) return undefined
    throw error
  }
}

function keyUrl(origin: string, key: string): string {
  return `${origin}/${key.split('/').map(encodeURIComponent).join('/')}`
}

/** Group listed keys directly under `prefix` into commits and complete checkpoints. */
function listingFrom(objects: ListedObject[], origin: string, prefix: string): LogListing {
  const commits: CommitFile[] = []
  const groups = new CheckpointGroups()
  for (const o of objects) {
    const name = o.key.slice(prefix.length)
    if (name.includes('/')) continue // _sidecars/, _staged_commits/, …: not log entries themselves
    const parsed = parseLogFileName(name)
    const url = keyUrl(origin, o.key)
    if (parsed?.kind === 'commit') commits.push({ version: parsed.version, url, lastModified: o.lastModified })
    else if (parsed)
      groups.add(parsed, name, {
        url,
        size: Number.isFinite(o.size) ? o.size : undefined,
        lastModified: o.lastModified,
      })
  }
  commits.sort((a, b) => a.version - b.version)
  return { source: 'list', commits, checkpoints: groups.complete() }
}

/** Collects checkpoint files; a multi-part checkpoint is one group filled part by part. */
class CheckpointGroups {
  private readonly groups = new Map<
    string,
    { version: number; kind: CheckpointFile['kind']; parts: (CheckpointPart | undefined)[] }
  >()

  add(parsed: Extract<LogFileName, { kind: 'checkpoint' }>, name: string, file: CheckpointPart): void {
    if (parsed.format !== 'multipart') {
      this.groups.set(name, { version: parsed.version, kind: parsed.format, parts: [file] })
      return
    }
    const id = `${parsed.version}.multipart.${parsed.parts}`
    const group = this.groups.get(id) ?? {
      version: parsed.version,
      kind: 'multipart',
      parts: new Array(parsed.parts).fill(undefined),
    }
    group.parts[parsed.part - 1] = file
    this.groups.set(id, group)
  }

  /** Complete checkpoints by version, preferred kind last within a version. */
  complete(): CheckpointFile[] {
    // Readers must ignore multi-part checkpoints with missing parts (PROTOCOL.md "Checkpoints").
    return [...this.groups.values()]
      .filter(g => g.parts.every(p => p !== undefined))
      .map(g => ({ version: g.version, kind: g.kind, parts: g.parts as CheckpointPart[] }))
      .sort((a, b) => a.version - b.version || kindRank(a.kind) - kindRank(b.kind))
  }
}

/** Preference among checkpoints of one version (later sorts win): multi-part < classic < v2. */
function kindRank(kind: CheckpointFile['kind']): number {
  return kind === 'multipart' ? 0 : kind === 'classic' ? 1 : 2
}

/** Read `_last_checkpoint`; undefined when absent or unusable (it is only a hint). */
export async function readLastCheckpoint(tableUrl: string, opts: HttpOptions): Promise<LastCheckpoint | undefined> {
  const url = `${tableUrl}_delta_log/_last_checkpoint`
  const res = await fetchOptional(url, opts, 'GET', tableUrl)
  if (!res) return undefined
  try {
    const json = JSON.parse(await res.text()) as LastCheckpoint
    return Number.isInteger(json.version) && json.version >= 0 ? json : undefined
  } catch {
    return undefined // a torn or garbled hint: fall back to probing from version 0
  }
}

/** The checkpoint a `_last_checkpoint` hint points at. */
export function checkpointFromHint(tableUrl: string, hint: LastCheckpoint): CheckpointFile {
  const log = `${tableUrl}_delta_log/`
  const v = pad20(hint.version)
  if (hint.v2Checkpoint?.path) {
    return {
      version: hint.version,
      kind: 'v2',
      parts: [{ url: log + hint.v2Checkpoint.path, size: hint.v2Checkpoint.sizeInBytes }],
    }
  }
  if (hint.parts && hint.parts > 1) {
    const parts = Array.from({ length: hint.parts }, (_, i) => ({
      url: `${log}${v}.checkpoint.${String(i + 1).padStart(10, '0')}.${String(hint.parts).padStart(10, '0')}.parquet`,
    }))
    return { version: hint.version, kind: 'multipart', parts }
  }
  return {
    version: hint.version,
    kind: 'classic',
    parts: [{ url: `${log}${v}.checkpoint.parquet`, size: hint.sizeInBytes }],
  }
}

/**
 * Discover the log on a plain static server (no listing) by probing commit names, starting from
 * the `_last_checkpoint` hint. Commits exist as one contiguous run (cleanup deletes the oldest
 * first), so the newest one is found by exponential then binary search: O(log n) HEAD requests.
 *
 * @param tableUrl table root, ending in '/'
 * @param target wanted version (time travel); when older than the hinted checkpoint, the commits
 *   are taken from version 0, which must then still exist
 */
export async function probeLog(tableUrl: string, opts: HttpOptions, target?: number): Promise<LogListing> {
  const hint = await readLastCheckpoint(tableUrl, opts)
  const exists = (v: number) => commitExists(tableUrl, v, opts)
  const checkpoints = hint ? [checkpointFromHint(tableUrl, hint)] : []
  let fromZero = !hint || (target !== undefined && target < hint.version)
  if (fromZero && !(await exists(0))) {
    // Commit 0 was cleaned up: only the hinted checkpoint and what follows can be read.
    if (!hint) return { source: 'probe', commits: [], checkpoints }
    fromZero = false
  }
  const latest = await lastExisting(hint?.version ?? 0, exists)
  // The search assumes no gap; a gap inside the range found fails when its commit is read. One more
  // HEAD catches a one-commit gap that ended the search early and would silently serve an old version.
  if (await exists(latest + 2)) throw versionGap(tableUrl, latest + 1)
  const first = fromZero ? 0 : hint!.version + 1
  const commits: CommitFile[] = []
  for (let v = first; v <= latest; v++) commits.push({ version: v, url: commitUrl(tableUrl, v) })
  return { source: 'probe', commits, checkpoints }
}

/** Largest version ≥ `known` whose commit exists, given that commits after `known` are contiguous. */
export async function lastExisting(known: number, exists: (v: number) => Promise<boolean>): Promise<number> {
  let lo = known
  let step = 1
  while (await exists(lo + step)) {
    lo += step
    step *= 2
  }
  let hi = lo + step // known missing
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2)
    if (await exists(mid)) lo = mid
    else hi = mid
  }
  return lo
}

async function commitExists(tableUrl: string, version: number, opts: HttpOptions): Promise<boolean> {
  return (await fetchOptional(commitUrl(tableUrl, version), opts, 'HEAD', tableUrl)) !== undefined
}

/** The error for a log with commit `version` missing while later ones exist. */
export function versionGap(tableUrl: string, version: number): TableError {
  return new TableError(
    `${commitUrl(tableUrl, version)} is missing: the log has a ` +
      `version gap at commit ${version} (later commits exist), so versions from ${version} on cannot be read`,
    'malformed-log',
    tableUrl,
  )
}

/**
 * What a static index (src/sources/folder/catalog.ts TABLE_INDEX, written by the demo's build) says
 * of one table's log: what probing would otherwise ask the host, so a reader on a host without
 * listing asks nothing that 404s. Commits `earliest`..`latest` exist; `lastCheckpoint` is the body
 * of `_delta_log/_last_checkpoint`, absent when the table has none.
 */
export interface IndexedLog {
  earliest: number
  latest: number
  lastCheckpoint?: LastCheckpoint
}

/** Logs named by static indexes read in this realm, by table root URL (ending in '/'). */
const indexedLogs = new Map<string, IndexedLog>()

/**
 * Remembers what a static index said of `tableUrl`'s log: discovering that log (snapshot.ts) then
 * asks the host nothing. Why per realm and by URL: the index is read where the tables are listed, and
 * a static host's index and log change together only on a new deploy (a reload).
 */
export function rememberIndexedLog(tableUrl: string, log: IndexedLog): void {
  indexedLogs.set(tableUrl, log)
}

/**
 * The logs remembered for `tableUrls` (undefined ones skipped), for HttpOptions.indexedLogs of a
 * worker's config; undefined when no index named any of them.
 */
export function indexedLogsFor(tableUrls: (string | undefined)[]): Record<string, IndexedLog> | undefined {
  const known = tableUrls.flatMap(url => {
    const log = url === undefined ? undefined : indexedLogs.get(url)
    return log ? [[url, log] as const] : []
  })
  return known.length ? Object.fromEntries(known) : undefined
}

/** The listing an IndexedLog stands for, or undefined when no index named `tableUrl`. */
export function indexedListing(tableUrl: string, opts: HttpOptions): LogListing | undefined {
  const log = opts.indexedLogs?.[tableUrl] ?? indexedLogs.get(tableUrl)
  if (!log) return undefined
  const commits: CommitFile[] = []
  for (let v = log.earliest; v <= log.latest; v++) commits.push({ version: v, url: commitUrl(tableUrl, v) })
  const checkpoints = log.lastCheckpoint ? [checkpointFromHint(tableUrl, log.lastCheckpoint)] : []
  return { source: 'index', commits, checkpoints }
}

/**
 * An index entry's `log`, checked; `url` (the index) and `entry` name it in errors. A log that
 * cannot be what a table holds is refused here, not read as a wrong table later.
 */
export function parseIndexedLog(value: unknown, url: string, entry: string): IndexedLog {
  const fail = (what: string) => new TableError(`${url}: ${entry}: ${what}`, 'http', url)
  const log = value as Partial<IndexedLog> | null
  const isVersion = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0
  if (typeof log !== 'object' || log === null || !isVersion(log.earliest) || !isVersion(log.latest))
    throw fail(`expected {"earliest": n, "latest": n} (commit versions), got ${JSON.stringify(value)}`)
  const { earliest, latest, lastCheckpoint } = log
  if (earliest > latest) throw fail(`earliest ${earliest} is after latest ${latest}`)
  if (lastCheckpoint === undefined) return { earliest, latest }
  if (typeof lastCheckpoint !== 'object' || lastCheckpoint === null || !isVersion(lastCheckpoint.version))
    throw fail(`lastCheckpoint must be a _last_checkpoint body with a version, got ${JSON.stringify(lastCheckpoint)}`)
  if (lastCheckpoint.version > latest)
    throw fail(`lastCheckpoint.version ${lastCheckpoint.version} is after latest ${latest}`)
  return { earliest, latest, lastCheckpoint }
}
