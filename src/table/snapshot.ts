/**
 * Opening a Delta table at a version: find the log (listing or probing), pick the log segment,
 * replay checkpoint + commits, check the protocol, and hand back the Snapshot the row reader needs.
 */
import { readCheckpoint } from './checkpoint.ts'
import { checkDistinctColumns } from './column-mapping.ts'
import { mapLimit } from '../util/map-limit.ts'
import {
  COMMIT_CONCURRENCY,
  CommitReader,
  commitTimes,
  commitTimestamp,
  toCommitInfo,
  toMillis,
  versionAt,
  type ReadCommit,
} from './commits.ts'
import { indexedListing, listLog, probeLog, type CheckpointFile, type LogListing } from './listing.ts'
import { buildSegment, versionRange, type LogSegment } from './log-segment.ts'
import { checkReadable } from './protocol.ts'
import { applyActions, liveFiles, newReplayState, type ReplayState } from './replay.ts'
import { columnMappingMode, parseSchema } from './schema.ts'
import { TableError, type CommitInfo, type HttpOptions, type OpenOptions, type Snapshot } from './types.ts'

/**
 * Open the snapshot of a Delta table served over HTTP.
 *
 * @param tableUrl URL of the table root (the folder holding `_delta_log/`); a trailing '/' is added
 * @param opts `version` or `timestamp` (ISO-8601 or ms since epoch) for time travel, plus HTTP options
 * @throws TableError 'not-a-table' | 'version-not-found' | 'unsupported-feature' | 'catalog-managed' |
 *   'malformed-log' | 'http'
 */
export async function openSnapshot(tableUrl: string, opts: OpenOptions = {}): Promise<Snapshot> {
  const root = tableRoot(tableUrl)
  if (opts.resolver?.openSnapshot) return opts.resolver.openSnapshot(root, opts)
  if (opts.version !== undefined && opts.timestamp !== undefined) {
    throw new TableError(`${root}: give a version or a timestamp, not both`, 'version-not-found', root)
  }
  const reader = new CommitReader(root, opts)
  let listing = await discover(root, opts, opts.version)
  let version = opts.version
  if (opts.timestamp !== undefined)
    [listing, version] = await resolveTimestamp(root, opts, listing, reader, opts.timestamp)
  const { segment, state, commits } = await replayVersion(listing, root, version, opts, reader)
  return assemble(root, segment.version, state, await snapshotTime(segment, commits, reader))
}

/** A replayed segment. */
interface Replayed {
  segment: LogSegment
  state: ReplayState
  commits: ReadCommit[]
}

/**
 * Replay the segment of `version`. A checkpoint that is gone or does not parse is passed over for
 * an older one or the commits from version 0, as Delta readers do, and `onWarning` says so; only
 * when no complete path is left does the open fail, naming the checkpoint and what is missing.
 */
async function replayVersion(
  listing: LogListing,
  root: string,
  version: number | undefined,
  opts: OpenOptions,
  reader: CommitReader,
): Promise<Replayed> {
  let segment = await segmentOrExplain(listing, root, version, opts, reader)
  for (;;) {
    const state = newReplayState()
    const checkpoint = segment.checkpoint
    try {
      if (checkpoint) applyActions(state, await readCheckpoint(checkpoint, root, opts))
    } catch (error) {
      if (!checkpoint || !(error instanceof TableError)) throw error
      listing = await withoutCheckpoint(listing, checkpoint, root, opts)
      try {
        segment = buildSegment(listing, root, version)
      } catch (fallback) {
        if (!(fallback instanceof TableError)) throw fallback
        throw new TableError(
          `${error.message}; without that checkpoint version ${version ?? 'latest'} cannot be ` +
            `rebuilt: ${fallback.message}`,
          error.code,
          checkpoint.parts[0].url,
        )
      }
      warn(
        opts,
        `${error.message}; reading ${
          segment.checkpoint ? `the checkpoint of version ${segment.checkpoint.version}` : 'the commits from version 0'
        } instead`,
      )
      continue
    }
    return { segment, state, commits: await applyCommits(state, segment, reader) }
  }
}

/** Reads the segment's commits (8 at a time) and applies them in version order; returns them. */
async function applyCommits(state: ReplayState, segment: LogSegment, reader: CommitReader): Promise<ReadCommit[]> {
  const commits = await mapLimit(segment.commits, COMMIT_CONCURRENCY, c => reader.readRequired(c))
  for (const commit of commits) applyActions(state, commit.actions)
  return commits
}

/** The listing without `bad`; a probed one is probed again from version 0 (the commits the checkpoint replaced). */
async function withoutCheckpoint(
  listing: LogListing,
  bad: CheckpointFile,
  root: string,
  opts: HttpOptions,
): Promise<LogListing> {
  const base = listing.source === 'probe' && listing.commits[0]?.version !== 0 ? await probeLog(root, opts, 0) : listing
  const url = bad.parts[0].url
  return { ...base, checkpoints: base.checkpoints.filter(c => c.parts[0].url !== url) }
}

function warn(opts: OpenOptions, message: string): void {
  if (opts.onWarning) opts.onWarning(message)
  else console.warn(`snaptrain: ${message}`)
}

async function replay(
  segment: LogSegment,
  root: string,
  opts: HttpOptions,
  reader: CommitReader,
): Promise<ReplayState> {
  const state = newReplayState()
  if (segment.checkpoint) applyActions(state, await readCheckpoint(segment.checkpoint, root, opts))
  await applyCommits(state, segment, reader)
  return state
}

/**
 * The segment for `version`. Why the detour on a miss: on a catalog-managed table the newer
 * versions exist only in the catalog, so "version not found" would hide the real reason; the
 * latest protocol is checked first so the refusal names it.
 */
async function segmentOrExplain(
  listing: LogListing,
  root: string,
  version: number | undefined,
  opts: HttpOptions,
  reader: CommitReader,
): Promise<LogSegment> {
  try {
    return buildSegment(listing, root, version)
  } catch (error) {
    if (!(error instanceof TableError) || error.code !== 'version-not-found') throw error
    const latest = await replay(buildSegment(listing, root), root, opts, reader)
    if (latest.protocol) checkReadable(latest.protocol, root)
    throw error
  }
}

/**
 * The table's history: one entry per commit file still in the log, oldest first.
 *
 * @param tableUrl table root URL
 */
export async function listCommits(tableUrl: string, opts: HttpOptions = {}): Promise<CommitInfo[]> {
  const root = tableRoot(tableUrl)
  if (opts.resolver?.listCommits) return opts.resolver.listCommits(root)
  let listing = await discover(root, opts, 0)
  if (!listing.commits.length) listing = await discover(root, opts)
  versionRange(listing, root) // throws not-a-table for an empty log
  const reader = new CommitReader(root, opts)
  const reads = (await mapLimit(listing.commits, COMMIT_CONCURRENCY, c => reader.read(c))).filter(
    (r): r is ReadCommit => r !== undefined,
  )
  const times = commitTimes(reads)
  return reads.map((read, i) => toCommitInfo(read, times[i]))
}

/** Normalise the table URL: absolute, with a trailing '/'. */
export function tableRoot(tableUrl: string): string {
  let url: URL
  try {
    url = new URL(tableUrl)
  } catch {
    throw new TableError(`${tableUrl} is not an absolute URL`, 'not-a-table', tableUrl)
  }
  url.search = ''
  url.hash = ''
  return url.href.endsWith('/') ? url.href : `${url.href}/`
}

/** What a static index said of the log; else S3-style listing when the server has one and it shows a log; else probe by names. */
async function discover(root: string, opts: HttpOptions, target?: number): Promise<LogListing> {
  const indexed = indexedListing(root, opts)
  if (indexed) return indexed
  const listed = await listLog(root, opts)
  if (listed && (listed.commits.length || listed.checkpoints.length)) return listed
  return probeLog(root, opts, target)
}

async function resolveTimestamp(
  root: string,
  opts: HttpOptions,
  listing: LogListing,
  reader: CommitReader,
  timestamp: string | number,
): Promise<[LogListing, number]> {
  const ms = toMillis(timestamp)
  // Probing starts at the last checkpoint, but commit times are adjusted from the oldest commit on
  // (and an older time needs those commits anyway): take the log from version 0 where it exists.
  if (listing.source === 'probe' && listing.commits[0]?.version !== 0) listing = await probeLog(root, opts, 0)
  const version = await versionAt(listing.commits, ms, reader)
  if (version === undefined) {
    const first = listing.commits[0]
    const firstTime = first ? new Date(commitTimestamp(await reader.readRequired(first))).toISOString() : 'none'
    throw new TableError(
      `no version of ${root} committed at or before ${new Date(ms).toISOString()}: ` +
        `earliest commit ${first?.version ?? '-'} at ${firstTime}`,
      'version-not-found',
      root,
    )
  }
  return [listing, version]
}

/** Commit time of the segment's version: from its commit, else the checkpoint file's time. */
async function snapshotTime(segment: LogSegment, commits: ReadCommit[], reader: CommitReader): Promise<number> {
  const last = commits[commits.length - 1]
  if (last?.version === segment.version) return commitTimestamp(last)
  const read = await reader.readVersion(segment.version)
  if (read) return commitTimestamp(read)
  return segment.checkpoint?.parts[0]?.lastModified ?? 0
}

/**
 * The Snapshot of a replayed state at `version`: the protocol check, a complete metaData, the
 * schema and column mapping, the live files. A share's answer (src/sharing) is assembled here too.
 */
export function assemble(root: string, version: number, state: ReplayState, timestamp: number): Snapshot {
  const { protocol, metadata } = state
  if (!protocol || !metadata) {
    const missing = !protocol ? 'protocol' : 'metaData'
    throw new TableError(`${root}: no ${missing} action in the log up to version ${version}`, 'malformed-log', root)
  }
  checkReadable(protocol, root)
  if (state.metadataIncomplete) {
    throw new TableError(
      `${state.metadataIncomplete} (the metaData in force at version ${version})`,
      'malformed-log',
      root,
    )
  }
  const schema = parseSchema(metadata.schemaString, `${root} metaData.schemaString`)
  const columnMapping = columnMappingMode(metadata)
  checkDistinctColumns(schema, columnMapping, root)
  return {
    tableUrl: root,
    version,
    timestamp,
    protocol,
    metadata,
    schema,
    partitionColumns: metadata.partitionColumns,
    columnMapping,
    files: liveFiles(state, root, schema, columnMapping, metadata.partitionColumns),
  }
}
