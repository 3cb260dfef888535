/**
 * How the Delta Sharing test server reads its tables: the reader's own log replay (src/table) over
 * the local folder, so the files answered at a version are exactly those a direct read sees; time
 * travel by version or timestamp; and the table-relative paths of data and deletion-vector files.
 */
import { resolve } from 'node:path'
import type { AddAction } from '../../src/table/actions.ts'
import { readCheckpoint } from '../../src/table/checkpoint.ts'
import { CommitReader, commitTimestamp, versionAt } from '../../src/table/commits.ts'
import { deletionVectorUrls } from '../../src/table/deletion-vector.ts'
import { type LogListing, listLog, probeLog } from '../../src/table/listing.ts'
import { buildSegment, versionRange } from '../../src/table/log-segment.ts'
import { applyActions, dvUniqueId, newReplayState } from '../../src/table/replay.ts'
import {
  type DeletionVectorDescriptor,
  type HttpOptions,
  type Metadata,
  type Protocol,
  TableError,
} from '../../src/table/types.ts'
import { fileFetch } from './file-fetch.ts'
import { ApiError, E, isFile, safeDecode, tableKey } from './sharing-common.ts'
import type { SharedTableSpec } from './sharing-server.ts'

/** Where the reader sees a table folder: a fake fetch serves it there, S3 listing included. */
const TABLE_BASE = 'http://table.test/'

/** A table's log, listed once for one request. */
export interface TableLog {
  opts: HttpOptions
  listing: LogListing
  reader: CommitReader
  latest: number
}

/** A table at one version: the raw actions the responses are built from. */
export interface TableSnapshot {
  version: number
  /** Commit time of the version (ms). */
  timestamp: number
  protocol: Protocol
  metadata: Metadata
  /** Live add actions as logged, sorted by path (pages cut this order). */
  adds: AddAction[]
}

/** Lists the log afresh for each request, so a test may commit to a table while the server runs. */
export async function openLog(dir: string): Promise<TableLog> {
  const opts: HttpOptions = { fetch: fileFetch(dir, { baseUrl: TABLE_BASE }), attempts: 1 }
  const listing = (await listLog(TABLE_BASE, opts)) ?? (await probeLog(TABLE_BASE, opts))
  const latest = versionRange(listing, TABLE_BASE).latest
  return { opts, listing, reader: new CommitReader(TABLE_BASE, opts), latest }
}

/** Replays checkpoint + commits up to `version` (default latest), as the reader's openSnapshot does. */
export async function snapshotAt(log: TableLog, version?: number): Promise<TableSnapshot> {
  const segment = buildSegment(log.listing, TABLE_BASE, version)
  const state = newReplayState()
  if (segment.checkpoint) applyActions(state, await readCheckpoint(segment.checkpoint, TABLE_BASE, log.opts))
  for (const commit of segment.commits) applyActions(state, (await log.reader.readRequired(commit)).actions)
  const { protocol, metadata } = state
  if (!protocol || !metadata) {
    throw new TableError(`no protocol or metaData in the log up to version ${segment.version}`, 'malformed-log')
  }
  const commit = await log.reader.readVersion(segment.version)
  const sortKey = (a: AddAction) => `${a.path}\u0000${a.deletionVector ? dvUniqueId(a.deletionVector) : ''}`
  const adds = [...state.files.values()].sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : 1))
  return { version: segment.version, timestamp: commit ? commitTimestamp(commit) : 0, protocol, metadata, adds }
}

/** The latest version committed at or before `ms` (the reader's rule for time travel). */
async function versionAtOrBefore(log: TableLog, ms: number): Promise<number> {
  const version = await versionAt(log.listing.commits, ms, log.reader)
  if (version !== undefined) return version
  throw new ApiError(400, E.invalid, `timestamp ${new Date(ms).toISOString()} is before the earliest version`)
}

/** The earliest version committed at or after `ms` (the version API's startingTimestamp); 0 before the first. */
export async function versionAtOrAfter(log: TableLog, ms: number): Promise<number> {
  const before = await versionAt(log.listing.commits, ms - 1, log.reader)
  const version = before === undefined ? (log.listing.commits[0]?.version ?? 0) : before + 1
  if (version > log.latest) throw new ApiError(400, E.invalid, 'startingTimestamp is after the latest version')
  return version
}

/** The spec's timestamp format: ISO-8601 with a zone, such as 2022-01-01T00:00:00Z. */
export function parseTimestamp(text: string, name: string): number {
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(text)
  const ms = iso ? Date.parse(text) : Number.NaN
  if (Number.isFinite(ms)) return ms
  throw new ApiError(400, E.invalid, `Invalid ${name}: '${text}' is not an ISO-8601 time such as 2022-01-01T00:00:00Z`)
}

/** The `version` and `timestamp` of a request: checked against the table's history sharing, then resolved. */
export async function resolveSnapshot(
  spec: SharedTableSpec,
  version?: number,
  timestamp?: string,
): Promise<TableSnapshot> {
  if (version !== undefined || timestamp !== undefined) checkHistory(spec)
  const log = await openLog(spec.dir)
  const at = timestamp === undefined ? version : await versionAtOrBefore(log, parseTimestamp(timestamp, 'timestamp'))
  return snapshotAt(log, at)
}

/** Refuses version and timestamp queries on a table shared without history. */
export function checkHistory(spec: SharedTableSpec): void {
  if (spec.historyShared !== false) return
  throw new ApiError(
    400,
    E.invalid,
    `version and timestamp queries need history sharing, which table ${tableKey(spec)} does not have`,
  )
}

/** Table-relative path of a log path (decoded: the file's name on disk). */
export function relativePath(path: string): string {
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(path)) {
    throw new ApiError(500, E.internal, `the log names an absolute path, which this server cannot sign: ${path}`)
  }
  return path.split('/').map(safeDecode).join('/')
}

/** Table-relative path of a DV file: the first of the reader's candidate names that exists on disk. */
export function dvPath(dir: string, dv: DeletionVectorDescriptor): string {
  const candidates = deletionVectorUrls(dv, TABLE_BASE)
    .filter(u => u.startsWith(TABLE_BASE))
    .map(u => relativePath(u.slice(TABLE_BASE.length)))
  if (!candidates.length) throw new ApiError(500, E.internal, `deletion vector ${dvUniqueId(dv)} is outside the table`)
  return candidates.find(rel => isFile(resolve(dir, ...rel.split('/')))) ?? candidates[0]
}
