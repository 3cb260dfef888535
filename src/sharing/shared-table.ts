/**
 * A shared table as a Snapshot: the query's answer fed into the same replay and assembly as a
 * Delta log (the Delta format's actions as they are; the parquet format's files as add actions),
 * with every pre-signed URL replaced by a stable URL under the share's table address. The
 * session maps those back to the current pre-signed URL and renews them before they
 * expire and on an "expired" refusal, so the rows a run reads do not depend on URL lifetimes.
 */
import { newReplayState, applyActions } from '../table/replay.ts'
import { mapAnswer, partKey, type IdentifiedUrl, type SignedUrl } from './answer.ts'
import { assemble } from '../table/snapshot.ts'
import { parseSchema } from '../table/schema.ts'
import { parseFilter } from '../data/filter-parse.ts'
import { jsonPredicateHints } from './hints.ts'
import { toMillis } from '../table/commits.ts'
import {
  TableError,
  type CommitInfo,
  type OpenOptions,
  type Snapshot,
  type UrlResolver,
  type ResolvedRequest,
} from '../table/types.ts'
import {
  sharingError,
  tablePath,
  type QueryAnswer,
  type QueryRequest,
  type ShareCoordinates,
  type SharingClient,
} from './rest.ts'

/** Renew URLs this long before their expiry (or at half their life when that is sooner). */
const RENEW_AHEAD_MS = 60_000

/** The stable address of a shared table: its REST resource under the endpoint, ending in '/'. */
export function shareTableUrl(endpoint: string, t: ShareCoordinates): string {
  return `${endpoint}${tablePath(t)}/`
}

/** What opening a share adds to the usual options: best-effort hints for the server. */
export interface ShareOpenOptions extends OpenOptions {
  jsonPredicateHints?: string
  maxFiles?: number
}

/**
 * Opens a shared table's snapshot at the version (or timestamp) asked, else the latest: one query,
 * pinned by the version the server reports. Refuses a parquet-format answer for a table that needs
 * Delta reader features (deletion vectors, column mapping): its files alone would misread it.
 */
async function querySnapshot(
  client: SharingClient,
  t: ShareCoordinates,
  root: string,
  opts: ShareOpenOptions,
): Promise<{ snapshot: Snapshot; urls: Map<string, IdentifiedUrl>; renewBy: RenewBy }> {
  const name = client.describe(t)
  if (opts.version !== undefined && opts.timestamp !== undefined) {
    throw new TableError(`${name}: give a version or a timestamp, not both`, 'version-not-found')
  }
  // Refresh tokens belong to latest-snapshot queries (the reference server refuses them with a
  // version or timestamp); a time-travel query's URLs are renewed by the same pinned query.
  const request: QueryRequest =
    opts.version === undefined && opts.timestamp === undefined ? { includeRefreshToken: true } : {}
  const hints = opts.jsonPredicateHints ?? (opts.filterHint ? await filterHints(client, t, opts.filterHint) : undefined)
  if (hints) request.jsonPredicateHints = hints
  if (opts.version !== undefined) request.version = opts.version
  if (opts.timestamp !== undefined) request.timestamp = new Date(toMillis(opts.timestamp)).toISOString()
  if (opts.limitHint !== undefined) request.limitHint = opts.limitHint
  if (opts.maxFiles !== undefined) request.maxFiles = opts.maxFiles
  const answer = opts.version !== undefined ? await pinnedQuery(client, t, request) : await client.query(t, request)
  if (opts.version !== undefined && answer.version !== opts.version) {
    throw new TableError(
      `${name}: asked for version ${opts.version}, the server answered version ${answer.version}`,
      'version-not-found',
    )
  }
  const mapped = mapAnswer(answer, root, name)
  const state = newReplayState()
  applyActions(state, mapped.actions)
  // The last guard of file identity: rows of a file that replay merged into another would be lost.
  if (state.files.size !== answer.files.length) {
    throw sharingError(
      `${name}: the share listed ${answer.files.length} files, which are ${state.files.size} distinct files; ` +
        'the table is refused, not read',
    )
  }
  const snapshot = assemble(root, answer.version, state, mapped.timestamp)
  const p = client.profile
  const endpoint = p.shareCredentialsVersion === 0 && p.upstream ? p.upstream : client.endpoint
  snapshot.share = { endpoint, ...t, format: answer.format, fileIds: mapped.fileIds }
  // Hints narrow the files; a renewal must answer at least these, so it is a plain pinned query.
  const hinted = request.jsonPredicateHints !== undefined || request.limitHint !== undefined
  return {
    snapshot,
    urls: mapped.urls,
    renewBy: {
      version: answer.version,
      ...(answer.refreshToken && !hinted ? { refreshToken: answer.refreshToken } : {}),
    },
  }
}

/**
 * A query for `request.version`. A provider that does not share a table's history refuses version
 * queries (400); a run pinned to the version that is still the latest is then served by a latest
 * query, whose answer must be of that version (else the refusal stands, naming both versions).
 */
async function pinnedQuery(client: SharingClient, t: ShareCoordinates, request: QueryRequest): Promise<QueryAnswer> {
  try {
    return await client.query(t, request)
  } catch (error) {
    if (!(error instanceof TableError) || error.code !== 'sharing') throw error
    const { version, ...latest } = request
    const answer = await client.query(t, { ...latest, includeRefreshToken: true }).catch(() => undefined)
    if (answer && answer.version === version) return answer
    const now = answer ? `; its latest version is ${answer.version}` : ''
    throw new TableError(`${error.message}${now}`, error.code, error.url)
  }
}

/**
 * The filter as partition hints, read against the table's current schema (one metadata call). A
 * filter that does not parse sends no hint: the run's own parse reports it, naming the column.
 */
async function filterHints(client: SharingClient, t: ShareCoordinates, filter: string): Promise<string | undefined> {
  const meta = await client.metadata(t)
  const metaData = (meta.format === 'delta' ? meta.metaData.deltaMetadata : meta.metaData) as Record<string, unknown>
  try {
    const schema = parseSchema(String(metaData.schemaString), 'metaData.schemaString')
    const partitionColumns = Array.isArray(metaData.partitionColumns) ? (metaData.partitionColumns as string[]) : []
    return jsonPredicateHints(parseFilter(filter, schema), schema, partitionColumns)
  } catch {
    return undefined
  }
}

/** How the resolver renews URLs: the refresh token if the server gave one, else a query pinned to the version. */
interface RenewBy {
  version: number
  refreshToken?: string
}

/**
 * A shared table, as the reader reaches it: opens its snapshots (one query each) and resolves the
 * snapshots' stable URLs to the current pre-signed URLs. Renews a version's URLs all at once (one
 * query in flight however many readers ask) ahead of expiry, and when a file URL is refused as
 * expired. A URL it did not hand out is refused before anything is sent; the profile's token never
 * goes to a file URL (it is not in these requests at all).
 */
export class SharedTableSession implements UrlResolver {
  /** The table's stable address (shareTableUrl). */
  readonly root: string
  private urls = new Map<string, IdentifiedUrl & { version: number }>()
  private renewBy = new Map<number, RenewBy>()
  private renewing = new Map<number, Promise<void>>()
  private issuedAt = new Map<number, number>()
  /** Renewals done, for reports and tests. */
  renewals = 0

  constructor(
    readonly client: SharingClient,
    readonly table: ShareCoordinates,
  ) {
    this.root = shareTableUrl(client.endpoint, table)
  }

  /** The snapshot at `opts.version` / `opts.timestamp`, else the latest; its URLs join this session. */
  async openSnapshot(tableUrl: string, opts: ShareOpenOptions = {}): Promise<Snapshot> {
    if (tableUrl !== this.root) {
      throw new TableError(
        `${tableUrl}: this session reads ${this.client.describe(this.table)} (${this.root})`,
        'sharing',
        tableUrl,
      )
    }
    const issued = Date.now()
    const { snapshot, urls, renewBy } = await querySnapshot(this.client, this.table, this.root, opts)
    this.issuedAt.set(renewBy.version, issued)
    this.renewBy.set(renewBy.version, renewBy)
    this.take(urls, renewBy.version)
    return snapshot
  }

  /**
   * A share lists no commits: the history is the current version (the protocol has no call for
   * older ones; `--version` still reaches them where the provider shares history).
   */
  async listCommits(tableUrl: string): Promise<CommitInfo[]> {
    const snapshot = await this.openSnapshot(tableUrl)
    return [{ version: snapshot.version, timestamp: snapshot.timestamp }]
  }

  private take(urls: Map<string, IdentifiedUrl>, version: number): void {
    for (const [stable, signed] of urls) this.urls.set(stable, { ...signed, version })
  }

  async resolve(url: string, _method: string, _headers: Record<string, string>): Promise<ResolvedRequest> {
    let signed = this.known(url)
    if (signed.expiresAt - Date.now() < this.margin(signed)) {
      await this.renew(signed.version)
      signed = this.known(url)
    }
    return { url: signed.url }
  }

  async rejected(url: string, status: number, body: string): Promise<boolean> {
    if (status !== 403 && status !== 401) return false
    const signed = this.urls.get(url)
    if (!signed) return false
    if (!/expired/i.test(body) && signed.expiresAt > Date.now()) return false
    await this.renew(signed.version)
    return true
  }

  private known(url: string): SignedUrl & { version: number } {
    const signed = this.urls.get(url)
    if (!signed) {
      throw new TableError(
        `${url}: not a file of ${this.client.describe(this.table)}; a shared table reads only the URLs its server handed out`,
        'sharing',
        url,
      )
    }
    return signed
  }

  private margin(signed: SignedUrl & { version: number }): number {
    if (!Number.isFinite(signed.expiresAt)) return -Infinity
    const issued = this.issuedAt.get(signed.version) ?? Date.now()
    return Math.min(RENEW_AHEAD_MS, (signed.expiresAt - issued) / 2)
  }

  /** One renewal per version for everyone waiting; its failure is every waiter's error. */
  private renew(version: number): Promise<void> {
    let pending = this.renewing.get(version)
    if (!pending) {
      pending = this.renewOnce(version).finally(() => this.renewing.delete(version))
      this.renewing.set(version, pending)
    }
    return pending
  }

  private async renewOnce(version: number): Promise<void> {
    const name = this.client.describe(this.table)
    const by = this.renewBy.get(version) ?? { version }
    const pinned: QueryRequest = { version }
    let answer: QueryAnswer
    // Why the issue time is recorded only with the new URLs: readers that ask while this query is
    // in flight must still measure the old URLs by their own life, see them due and wait for it.
    const issued = Date.now()
    try {
      answer = by.refreshToken
        ? // A refresh token has its own lifetime: past it, a query pinned to the version does the same.
          await this.client
            .query(this.table, { refreshToken: by.refreshToken, includeRefreshToken: true })
            .catch(() => pinnedQuery(this.client, this.table, pinned))
        : await pinnedQuery(this.client, this.table, pinned)
    } catch (error) {
      throw new TableError(
        `${name}: renewing the file URLs of version ${version} failed: ${(error as Error).message}`,
        'sharing',
      )
    }
    if (answer.version !== version) {
      throw sharingError(`${name}: renewing the file URLs answered version ${answer.version}, the run reads ${version}`)
    }
    // Matched by file id, not by stable URL: a renewal may list more files (no hints), which can
    // change the paths that collide and so the stable paths of the files that did.
    const renewed = new Map<string, IdentifiedUrl>()
    for (const signed of mapAnswer(answer, this.root, name).urls.values())
      renewed.set(partKey(signed.id, signed.part), signed)
    const mine = [...this.urls].filter(([, v]) => v.version === version)
    const missing = mine.filter(([, v]) => !renewed.has(partKey(v.id, v.part)))
    if (missing.length) {
      throw sharingError(
        `${name}: renewing the file URLs left out ${missing.length} file(s) of version ${version}, e.g. ${missing[0][0]}`,
      )
    }
    this.take(new Map(mine.map(([stable, v]) => [stable, renewed.get(partKey(v.id, v.part))!])), version)
    this.issuedAt.set(version, issued)
    if (answer.refreshToken) this.renewBy.set(version, { version, refreshToken: answer.refreshToken })
    this.renewals++
  }
}
