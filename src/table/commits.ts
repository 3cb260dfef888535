/**
 * Reading commit files, their timestamps, and finding the version in force at a time.
 * PROTOCOL.md "In-Commit Timestamps" and "Commit Provenance": a commit's time is its
 * `inCommitTimestamp` when the table writes them, else its log file's modification time (over HTTP
 * the `Last-Modified` of the commit file, or `LastModified` in an S3 listing) — never
 * `commitInfo.timestamp`, which writers fill in as they like. File times are made strictly
 * increasing before they are compared (a commit not later than its predecessor counts as the
 * predecessor's time + 1 ms), as Delta readers do when clocks go backwards.
 */
import { mapLimit } from '../util/map-limit.ts'
import { parseCommit, type Action, type CommitInfoAction } from './actions.ts'
import { fetchOptional, lastModified, statusError } from './http.ts'
import { commitUrl, type CommitFile } from './listing.ts'
import { TableError, type CommitInfo, type HttpOptions } from './types.ts'

/** Commit files fetched at once: enough to hide latency, few enough to be polite to one server. */
export const COMMIT_CONCURRENCY = 8

/** A fetched, parsed commit. `lastModified` in ms since epoch when known. */
export interface ReadCommit {
  version: number
  actions: Action[]
  lastModified?: number
}

/** Fetches each commit once per snapshot open (time travel and replay share the reads). */
export class CommitReader {
  private readonly cache = new Map<number, Promise<ReadCommit | undefined>>()

  /** @param tableUrl table root ending in '/' */
  constructor(
    private readonly tableUrl: string,
    private readonly opts: HttpOptions,
  ) {}

  /** The commit, or undefined when its file is gone (404). */
  read(commit: CommitFile): Promise<ReadCommit | undefined> {
    let pending = this.cache.get(commit.version)
    if (!pending) {
      pending = this.fetch(commit)
      this.cache.set(commit.version, pending)
    }
    return pending
  }

  /** The commit at `version` by its conventional name (used when no listing names it). */
  readVersion(version: number): Promise<ReadCommit | undefined> {
    return this.read({ version, url: commitUrl(this.tableUrl, version) })
  }

  /** Like read, but a missing file is an error naming it. */
  async readRequired(commit: CommitFile): Promise<ReadCommit> {
    const read = await this.read(commit)
    if (!read) {
      // Probing assumes commits without gaps; a listing saw the file. Either way it is missing now.
      throw new TableError(
        `GET ${commit.url}: 404 Not Found: commit ${commit.version} is missing (a version gap in ` +
          'the log, or the file was removed while reading)',
        'malformed-log',
        commit.url,
      )
    }
    return read
  }

  private async fetch(commit: CommitFile): Promise<ReadCommit | undefined> {
    const res = await fetchOptional(commit.url, this.opts, 'GET', this.tableUrl)
    if (!res) return undefined
    if (!res.ok) throw statusError('GET', commit.url, res)
    const actions = parseCommit(new Uint8Array(await res.arrayBuffer()), commit.url)
    return { version: commit.version, actions, lastModified: commit.lastModified ?? lastModified(res) }
  }
}

/** The commitInfo action of a commit, if any. */
export function commitInfoOf(read: ReadCommit): CommitInfoAction | undefined {
  for (const a of read.actions) if (a.kind === 'commitInfo') return a.commitInfo
  return undefined
}

/** The commit's in-commit timestamp (ms), when it has one. */
export function inCommitTime(read: ReadCommit): number | undefined {
  return commitInfoOf(read)?.inCommitTimestamp
}

/**
 * The commit file's own time (ms): its modification time; `commitInfo.timestamp` only where the
 * server told no time at all (no Last-Modified), else 0.
 */
export function fileTime(read: ReadCommit): number {
  return read.lastModified ?? commitInfoOf(read)?.timestamp ?? 0
}

/** Commit time of one commit, unadjusted: in-commit timestamp, else the file's time. */
export function commitTimestamp(read: ReadCommit): number {
  return inCommitTime(read) ?? fileTime(read)
}

/** Times made strictly increasing: each one at least its predecessor + 1 ms (Delta's adjustment). */
export function monotonize(times: readonly number[]): number[] {
  const out: number[] = []
  for (const t of times) out.push(out.length && t <= out[out.length - 1] ? out[out.length - 1] + 1 : t)
  return out
}

/** Times of consecutive commits, oldest first, as time travel compares them. */
export function commitTimes(reads: readonly ReadCommit[]): number[] {
  return monotonize(reads.map(commitTimestamp))
}

/** History entry of a commit at the (adjusted) commit time `timestamp`. */
export function toCommitInfo(read: ReadCommit, timestamp = commitTimestamp(read)): CommitInfo {
  const info = commitInfoOf(read)
  const out: CommitInfo = { version: read.version, timestamp }
  if (typeof info?.operation === 'string') out.operation = info.operation
  if (info?.operationMetrics) out.operationMetrics = info.operationMetrics
  return out
}

/** Parse an OpenOptions.timestamp (ISO-8601 string or ms since epoch) to ms. */
export function toMillis(timestamp: string | number): number {
  const ms = typeof timestamp === 'number' ? timestamp : Date.parse(timestamp)
  if (!Number.isFinite(ms)) {
    throw new TableError(
      `timestamp ${JSON.stringify(timestamp)} is not an ISO-8601 time or ms since epoch`,
      'version-not-found',
    )
  }
  return ms
}

/**
 * Latest commit whose time is ≤ `ms` ("the latest commit at or before the timestamp").
 * In-commit timestamps, when the newest commit has one, cover a suffix of the log from the version
 * that enabled them and increase by construction: that suffix is binary-searched, O(log n) reads.
 * Commits before it are compared by their file times after the monotonic adjustment, which needs
 * every one of them: free from a listing (it carries the times), one GET each when probing.
 *
 * @returns the version, or undefined when `ms` is before the first listed commit
 */
export async function versionAt(commits: CommitFile[], ms: number, reader: CommitReader): Promise<number | undefined> {
  if (!commits.length) return undefined
  const ict = async (i: number) => inCommitTime(await reader.readRequired(commits[i]))
  let start = commits.length // first commit of the in-commit-timestamp suffix
  if ((await ict(commits.length - 1)) !== undefined) {
    start = await firstIndex(0, commits.length - 1, async i => (await ict(i)) !== undefined)
    if ((await ict(start))! <= ms) {
      const last = await firstIndex(start, commits.length, async i => i === commits.length || (await ict(i))! > ms)
      return commits[last - 1].version
    }
  }
  const times = monotonize(
    await mapLimit(
      commits.slice(0, start),
      COMMIT_CONCURRENCY,
      async c => c.lastModified ?? fileTime(await reader.readRequired(c)),
    ),
  )
  let found: number | undefined
  for (let i = 0; i < times.length && times[i] <= ms; i++) found = commits[i].version
  return found
}

/** Smallest i in [lo, hi] with `pred(i)` true, for a predicate false then true (pred(hi) is taken as true). */
async function firstIndex(lo: number, hi: number, pred: (i: number) => Promise<boolean>): Promise<number> {
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (await pred(mid)) hi = mid
    else lo = mid + 1
  }
  return lo
}
