/**
 * The log segment of a version: the newest usable checkpoint at or before it, plus the commits
 * after that checkpoint up to the version (PROTOCOL.md "Checkpoints": for time travel the
 * checkpoint must not be newer than the version).
 */
import { versionGap, type CheckpointFile, type CommitFile, type LogListing } from './listing.ts'
import { TableError } from './types.ts'

/** Files to replay for `version`, oldest first. */
export interface LogSegment {
  version: number
  checkpoint?: CheckpointFile
  commits: CommitFile[]
}

/** Versions that can be reconstructed from the listing (inclusive). */
export interface VersionRange {
  earliest: number
  latest: number
}

/**
 * Newest and oldest versions the listing can reconstruct.
 *
 * @throws TableError 'not-a-table' when the listing holds no commit and no checkpoint
 */
export function versionRange(listing: LogListing, tableUrl: string): VersionRange {
  const versions = [...listing.commits.map(c => c.version), ...listing.checkpoints.map(c => c.version)]
  if (!versions.length) {
    throw new TableError(
      `${tableUrl} is not a Delta table: no commits found in ${tableUrl}_delta_log/`,
      'not-a-table',
      tableUrl,
    )
  }
  const latest = versions.reduce((a, b) => Math.max(a, b)) // no spread: logs can hold 100k+ files
  // A checkpoint alone reconstructs its version; commit 0 alone reconstructs version 0.
  const starts = listing.checkpoints.map(c => c.version)
  if (listing.commits[0]?.version === 0) starts.push(0)
  return { earliest: starts.length ? starts.reduce((a, b) => Math.min(a, b)) : latest + 1, latest }
}

/**
 * Pick the checkpoint and commits for `version` (default: the latest).
 *
 * @throws TableError 'version-not-found' naming the version and the available range
 */
export function buildSegment(listing: LogListing, tableUrl: string, version?: number): LogSegment {
  const range = versionRange(listing, tableUrl)
  const target = version ?? range.latest
  if (!Number.isInteger(target) || target < 0 || target > range.latest) throw notFound(tableUrl, target, range)
  const byVersion = new Map(listing.commits.map(c => [c.version, c]))
  const candidates = listing.checkpoints.filter(c => c.version <= target).reverse()
  for (const checkpoint of [...candidates, undefined]) {
    const start = checkpoint ? checkpoint.version + 1 : 0
    const commits = collect(byVersion, start, target)
    if (commits) return { version: target, checkpoint, commits }
  }
  throw (
    gapIn(listing, byVersion, candidates[0] ? candidates[0].version + 1 : 0, target, tableUrl) ??
    notFound(tableUrl, target, range)
  )
}

/**
 * The error for a commit missing between two that exist in start..end (commits older than every
 * listed one were cleaned up, which is no gap), or undefined.
 */
function gapIn(
  listing: LogListing,
  byVersion: Map<number, CommitFile>,
  start: number,
  end: number,
  tableUrl: string,
): TableError | undefined {
  const first = listing.commits[0]?.version
  if (first === undefined) return undefined
  for (let v = Math.max(start, first + 1); v <= end; v++) {
    if (!byVersion.has(v)) return versionGap(tableUrl, v)
  }
  return undefined
}

/** Commits start..end, or undefined when one is missing. */
function collect(byVersion: Map<number, CommitFile>, start: number, end: number): CommitFile[] | undefined {
  const out: CommitFile[] = []
  for (let v = start; v <= end; v++) {
    const commit = byVersion.get(v)
    if (!commit) return undefined
    out.push(commit)
  }
  return out
}

function notFound(tableUrl: string, version: number, range: VersionRange): TableError {
  const available =
    range.earliest > range.latest
      ? `no version can be reconstructed (latest commit ${range.latest})`
      : `available versions are ${range.earliest} to ${range.latest}`
  return new TableError(`version ${version} not found in ${tableUrl}: ${available}`, 'version-not-found', tableUrl)
}
