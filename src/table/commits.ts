/**
 * Reading commit files, their timestamps, and finding the version in force at a time
 * (PROTOCOL.md "In-Commit Timestamps": `inCommitTimestamp` when present, else the commit's
 * `commitInfo.timestamp`, else the file's modification time).
 */
import { parseCommit, type Action, type CommitInfoAction } from './actions.ts'
import { fetchOptional, lastModified, statusError } from './http.ts'
import { commitUrl, type CommitFile } from './listing.ts'
import { TableError, type CommitInfo, type HttpOptions } from './types.ts'

/** A fetched, parsed commit. `lastModified` in ms since epoch when known. */
export interface ReadCommit { version: number; actions: Action[]; lastModified?: number }

/** Fetches each commit once per snapshot open (time travel and replay share the reads). */
export class CommitReader {
  private readonly cache = new Map<number, Promise<ReadCommit | undefined>>()

  /** @param tableUrl table root ending in '/' */
  constructor(private readonly tableUrl: string, private readonly opts: HttpOptions) {}

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
      throw new TableError(`GET ${commit.url}: 404 Not Found (commit ${commit.version} vanished while reading)`, 'http', commit.url)
    }
    return read
  }

  private async fetch(commit: CommitFile): Promise<ReadCommit | undefined> {
    const res = await fetchOptional(commit.url, this.opts, 'GET', this.tableUrl)
    if (!res) return undefined
    if (!res.ok) throw statusError('GET', commit.url, res)
    const actions = parseCommit(await res.text(), commit.url)
    return { version: commit.version, actions, lastModified: commit.lastModified ?? lastModified(res) }
  }
}

/** The commitInfo action of a commit, if any. */
export function commitInfoOf(read: ReadCommit): CommitInfoAction | undefined {
  for (const a of read.actions) if (a.kind === 'commitInfo') return a.commitInfo
  return undefined
}

/** Commit time in ms since epoch: inCommitTimestamp, else commitInfo.timestamp, else file time, else 0. */
export function commitTimestamp(read: ReadCommit): number {
  const info = commitInfoOf(read)
  return info?.inCommitTimestamp ?? info?.timestamp ?? read.lastModified ?? 0
}

/** History entry of a commit. */
export function toCommitInfo(read: ReadCommit): CommitInfo {
  const info = commitInfoOf(read)
  const out: CommitInfo = { version: read.version, timestamp: commitTimestamp(read) }
  if (typeof info?.operation === 'string') out.operation = info.operation
  if (info?.operationMetrics) out.operationMetrics = info.operationMetrics
  return out
}

/** Parse an OpenOptions.timestamp (ISO-8601 string or ms since epoch) to ms. */
export function toMillis(timestamp: string | number): number {
  const ms = typeof timestamp === 'number' ? timestamp : Date.parse(timestamp)
  if (!Number.isFinite(ms)) {
    throw new TableError(`timestamp ${JSON.stringify(timestamp)} is not an ISO-8601 time or ms since epoch`, 'version-not-found')
  }
  return ms
}

/**
 * Latest commit with timestamp ≤ `ms`, by binary search over the listed commits (commit times
 * increase with the version; that is guaranteed with in-commit timestamps). Reads O(log n) commits.
 *
 * @returns the version, or undefined when `ms` is before the first listed commit
 */
export async function versionAt(commits: CommitFile[], ms: number, reader: CommitReader): Promise<number | undefined> {
  const time = async (i: number) => commitTimestamp(await reader.readRequired(commits[i]))
  if (!commits.length || (await time(0)) > ms) return undefined
  let lo = 0 // time(lo) <= ms
  let hi = commits.length // time(hi) > ms, or past the end
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1
    if ((await time(mid)) <= ms) lo = mid
    else hi = mid
  }
  return commits[lo].version
}
