/**
 * A share's query answer as Delta log actions: the Delta format's actions as they are, the parquet
 * format's files as add actions, and every pre-signed URL (data files and deletion vectors)
 * replaced by a stable URL under the table's address, with the map back to the signed URLs.
 *
 * A file is identified by the share's file `id`, never by its URL: two files whose URLs differ only
 * in the query string are two files (a server may serve `…/get?file=a` and `…/get?file=b`), so
 * where their stable paths would coincide each gets a folder of its id. An answer that lists an id
 * twice, or one URL under two ids, or whose files still collapse to fewer paths than it listed, is
 * refused.
 */
import { toAction, type Action } from '../table/actions.ts'
import { resolveFileUrl } from '../table/replay.ts'
import { TableError } from '../table/types.ts'
import { quotedName } from './names.ts'
import { sharingError, type QueryAnswer } from './rest.ts'

/** A pre-signed URL and when it stops working (ms since epoch; Infinity when the server did not say). */
export interface SignedUrl {
  url: string
  expiresAt: number
}

/** A signed URL with what it is: the data file or the deletion vector of the file with share id `id`. */
export interface IdentifiedUrl extends SignedUrl {
  id: string
  part: 'data' | 'dv'
}

/** The answer as log actions with stable URLs, plus the URL map and the server's file ids. */
export interface MappedAnswer {
  actions: Action[]
  urls: Map<string, IdentifiedUrl>
  fileIds: Record<string, string>
  timestamp: number
}

/** Converts a query answer (either format) into actions over stable URLs under `root`. */
export function mapAnswer(answer: QueryAnswer, root: string, name: string): MappedAnswer {
  const fail = (msg: string) => sharingError(`${name}: query answer: ${msg}`)
  const delta = answer.format === 'delta'
  const protocol = delta ? answer.protocol.deltaProtocol : { minReaderVersion: 1, minWriterVersion: 1 }
  const metaData = delta ? answer.metaData.deltaMetadata : answer.metaData
  if (!delta) refuseParquetFormatFor(answer.metaData, name)
  const location = typeof answer.metaData.location === 'string' ? answer.metaData.location : undefined
  const actions: Action[] = [toAction('protocol', protocol, fail), toAction('metaData', metaData, fail)]
  const signed = answer.files.map(file => signedFile(file, delta, fail))
  const seen = new Set<string>()
  const byUrl = new Map<string, string>()
  for (const f of signed) {
    if (seen.has(f.id)) throw fail(`file id '${quotedName(f.id)}' is listed twice; its rows would be read twice`)
    seen.add(f.id)
    // The same URL under two ids is one object listed twice (its signature is not named: it is a credential).
    const other = byUrl.get(f.url)
    if (other !== undefined) {
      throw fail(
        `files '${quotedName(other)}' and '${quotedName(f.id)}' have the same URL; its rows would be read twice`,
      )
    }
    byUrl.set(f.url, f.id)
  }
  const parts: IdentifiedUrl[] = signed.flatMap(f => [
    { url: f.url, expiresAt: f.expiresAt, id: f.id, part: 'data' as const },
    ...(f.dvUrl ? [{ url: f.dvUrl, expiresAt: f.expiresAt, id: f.id, part: 'dv' as const }] : []),
  ])
  const paths = stablePaths(parts, location)
  const urls = new Map<string, IdentifiedUrl>()
  const fileIds: Record<string, string> = {}
  // The files' version time where the server gives one (version and timestamp queries); else unknown.
  let timestamp = Number.NaN
  for (const f of signed) {
    const path = paths.get(partKey(f.id, 'data'))!
    const stable = resolveFileUrl(root, path)
    const other = urls.get(stable)
    if (other) {
      throw fail(
        `files '${quotedName(other.id)}' and '${quotedName(f.id)}' resolve to the same path ${path}; ` +
          'the table would read fewer files than the share listed',
      )
    }
    urls.set(stable, { url: f.url, expiresAt: f.expiresAt, id: f.id, part: 'data' })
    fileIds[path] = f.id
    const add: Record<string, unknown> = { ...f.add, path }
    if (f.dvUrl) {
      const dvUrl = resolveFileUrl(root, paths.get(partKey(f.id, 'dv'))!)
      urls.set(dvUrl, { url: f.dvUrl, expiresAt: f.expiresAt, id: f.id, part: 'dv' })
      add.deletionVector = { ...(f.add.deletionVector as object), storageType: 'p', pathOrInlineDv: dvUrl }
    }
    actions.push(toAction('add', add, fail))
    if (f.timestamp > 0) timestamp = Number.isNaN(timestamp) ? f.timestamp : Math.max(timestamp, f.timestamp)
  }
  return { actions, urls, fileIds, timestamp }
}

/** One file of the answer: its add action (path still the signed URL), id, URLs and expiry. */
interface SignedFile {
  add: Record<string, unknown>
  id: string
  url: string
  dvUrl?: string
  expiresAt: number
  timestamp: number
}

function signedFile(file: Record<string, unknown>, delta: boolean, fail: (m: string) => TableError): SignedFile {
  const id = typeof file.id === 'string' ? file.id : ''
  if (!id) throw fail('a file has no id')
  const expiresAt = typeof file.expirationTimestamp === 'number' ? file.expirationTimestamp : Infinity
  const timestamp = typeof file.timestamp === 'number' ? file.timestamp : 0
  if (!delta) {
    const url = httpUrl(file.url, `file ${id} url`, fail)
    const add = {
      path: url,
      partitionValues: file.partitionValues ?? {},
      size: file.size,
      modificationTime: timestamp,
      dataChange: false,
      ...(typeof file.stats === 'string' ? { stats: file.stats } : {}),
    }
    return { add, id, url, expiresAt, timestamp }
  }
  const single = file.deltaSingleAction as Record<string, unknown> | undefined
  const add = single?.add as Record<string, unknown> | undefined
  if (!add) throw fail(`file ${id} is not an add action (a snapshot query answers adds only)`)
  const url = httpUrl(add.path, `file ${id} path`, fail)
  const dv = add.deletionVector as Record<string, unknown> | undefined
  let dvUrl: string | undefined
  if (dv && dv.storageType === 'p') dvUrl = httpUrl(dv.pathOrInlineDv, `file ${id} deletion vector`, fail)
  else if (dv && dv.storageType !== 'i') {
    throw fail(
      `file ${id} has a deletion vector of storage type '${String(dv.storageType)}'; a share must send 'p' (a URL) or 'i'`,
    )
  }
  return { add, id, url, ...(dvUrl ? { dvUrl } : {}), expiresAt, timestamp }
}

function httpUrl(value: unknown, what: string, fail: (m: string) => TableError): string {
  if (typeof value !== 'string' || !/^https?:\/\//i.test(value)) throw fail(`${what} is not an http(s) URL`)
  return value
}

/**
 * The parquet format carries neither deletion vectors nor column mapping: a table that uses them
 * (its configuration says so) read from that answer would count deleted rows or miss columns.
 */
function refuseParquetFormatFor(metaData: Record<string, unknown>, name: string): void {
  const config = (metaData.configuration ?? {}) as Record<string, string>
  const needs: string[] = []
  if (config['delta.enableDeletionVectors'] === 'true') needs.push('deletionVectors')
  const mode = config['delta.columnMapping.mode']
  if (mode && mode !== 'none') needs.push('columnMapping')
  if (needs.length) {
    throw new TableError(
      `${name}: the server answered only the parquet response format, but the table uses ${needs.join(' and ')}, ` +
        'which that format cannot carry (rows would be misread); the provider must serve responseformat=delta',
      'unsupported-feature',
    )
  }
}

/** The key of a file's data or deletion-vector URL in stablePaths' answer. */
export function partKey(id: string, part: 'data' | 'dv'): string {
  return `${part}\u0000${id}`
}

/**
 * Stable table-relative paths for the answer's URLs (by partKey). With the table's `location`
 * (e.g. `s3://bucket/prefix/table`), a URL whose path continues it (virtual-hosted
 * `/prefix/table/…` or path-style `/bucket/prefix/table/…`) keeps the rest: the table's own
 * relative paths, so files sort as they do read directly. Otherwise the rest after the URLs'
 * common folder. Where two files' URLs give one path (they differ in the query string alone, or a
 * deletion vector is shared), each takes a folder of its id: `…/id-<id>/name`.
 */
function stablePaths(parts: IdentifiedUrl[], location: string | undefined): Map<string, string> {
  const pathnames = parts.map(p => new URL(p.url).pathname)
  const prefixes = locationPrefixes(location)
  const common = commonFolder(pathnames)
  const derived = parts.map((_, i) => {
    const segments = pathnames[i].split('/')
    // Anywhere in the path, not only at its start: a local proxy serves the same path under its own folder.
    const at = prefixes.map(p => [indexOfRun(segments, p), p.length]).find(([k]) => k >= 0)
    return deltaPath(at ? segments.slice(at[0] + at[1]).join('/') : pathnames[i].slice(common.length))
  })
  const uses = new Map<string, number>()
  for (const path of derived) uses.set(path, (uses.get(path) ?? 0) + 1)
  const out = new Map<string, string>()
  parts.forEach((p, i) => {
    const path = derived[i]
    const slash = path.lastIndexOf('/') + 1
    // Why the `id-` prefix: an id of `..` encodes to itself and would be resolved away.
    const own = `${path.slice(0, slash)}id-${encodeURIComponent(p.id)}/${path.slice(slash)}`
    out.set(partKey(p.id, p.part), uses.get(path)! > 1 ? own : path)
  })
  return out
}

/**
 * The location's folders as decoded path segments, with and without the bucket (its host).
 * Why decoded: the location and a signed URL escape names differently (`+`, `=`, spaces), and a
 * prefix that does not match would drop the folders all the answer's files share.
 */
function locationPrefixes(location: string | undefined): string[][] {
  if (!location || !URL.canParse(location)) return []
  const loc = new URL(location)
  const path = loc.pathname
    .split('/')
    .filter(s => s !== '')
    .map(decodeSegment)
  return [[decodeSegment(loc.host), ...path], path].filter(p => p.length > 0 && p[0] !== '')
}

/** First index where the decoded `run` starts in `segments`, leaving at least a file name after it; else -1. */
function indexOfRun(segments: string[], run: string[]): number {
  for (let i = 0; i + run.length < segments.length; i++) {
    if (run.every((s, k) => decodeSegment(segments[i + k]) === s)) return i
  }
  return -1
}

function commonFolder(pathnames: string[]): string {
  if (!pathnames.length) return '/'
  let common = pathnames[0].slice(0, pathnames[0].lastIndexOf('/') + 1)
  for (const p of pathnames) {
    while (!p.startsWith(common)) common = common.slice(0, common.slice(0, -1).lastIndexOf('/') + 1)
  }
  return common
}

/** A URL path's segments decoded once, then escaped as a Delta relative path (only what a URL cannot hold). */
function deltaPath(rel: string): string {
  return rel
    .split('/')
    .map(s =>
      decodeSegment(s).replace(/[%#? ]/g, c => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`),
    )
    .join('/')
}

/** `decodeURIComponent`, or the segment as it is when it is not valid %-encoding. */
function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}
