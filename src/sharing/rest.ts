/**
 * The Delta Sharing REST calls (PROTOCOL.md "REST APIs"): list shares, schemas and tables (every
 * page), a table's version, its metadata, and the query that answers a snapshot's files as
 * pre-signed URLs, in either response format. Requests go through the reader's `send` (timeouts,
 * retries of 5xx and network errors, 429 honouring Retry-After); the Authorization header goes to
 * the sharing endpoint only.
 */
import { explainedStatusError, send } from '../table/http.ts'
import { TableError, type HttpOptions, type ShareAnswerLimits } from '../table/types.ts'
import { SharingAuth } from './auth.ts'
import { Pager, shareLimits } from './limits.ts'
import { pathSegment, quotedName } from './names.ts'
import type { SharingProfile } from './profile.ts'

/** A table's coordinates on its server. */
export interface ShareCoordinates {
  share: string
  schema: string
  table: string
}

/** A table as a list call names it. */
export interface SharedTableEntry extends ShareCoordinates {
  id?: string
}

/** What a query asks for (PROTOCOL.md "Request Body"); hints are best effort, the reader re-filters. */
export interface QueryRequest {
  version?: number
  /** The spec's timestamp format (ISO-8601, UTC). */
  timestamp?: string
  jsonPredicateHints?: string
  limitHint?: number
  /** Files per page; the server may ignore it and answer all at once. */
  maxFiles?: number
  includeRefreshToken?: boolean
  refreshToken?: string
}

/** A query's answer: every page's lines, parsed, plus what the last end-of-stream line said. */
export interface QueryAnswer {
  /** `Delta-Table-Version` of the answer: the version the files are of. */
  version: number
  format: 'delta' | 'parquet'
  protocol: Record<string, unknown>
  metaData: Record<string, unknown>
  /** The `file` wrapper objects. */
  files: Record<string, unknown>[]
  refreshToken?: string
  minUrlExpirationTimestamp?: number
}

/** The capabilities this reader asks for: Delta actions, with the reader features it implements. */
const CAPABILITIES = 'responseformat=delta;readerfeatures=deletionvectors,columnmapping'

/** One sharing server, as one profile reaches it. */
export class SharingClient {
  readonly endpoint: string
  private readonly auth: SharingAuth
  private readonly limits: Required<ShareAnswerLimits>

  /**
   * @param profile parsed profile (profile.ts)
   * @param source the profile's name in errors (a path, "the chosen profile")
   * @param http timeouts, attempts, the injected fetch and the bounds of one answer (`shareLimits`)
   */
  constructor(
    readonly profile: SharingProfile,
    readonly source: string,
    private readonly http: HttpOptions = {},
  ) {
    this.endpoint = profile.endpoint
    this.auth = new SharingAuth(profile, source, http)
    this.limits = shareLimits(http.shareLimits)
  }

  /** Every share the profile may read. */
  async listShares(): Promise<Array<{ name: string; id?: string }>> {
    return (await this.list('shares', 'shares', 'share')).map(item => ({ name: text(item.name), ...optionalId(item) }))
  }

  /** The schemas of a share. */
  async listSchemas(share: string): Promise<Array<{ name: string; share: string }>> {
    const items = await this.list(`shares/${pathSegment(share, 'share')}/schemas`, 'schemas', 'schema')
    return items.map(item => ({ name: text(item.name), share }))
  }

  /** The tables of one schema of a share. */
  async listTables(share: string, schema: string): Promise<SharedTableEntry[]> {
    const path = `shares/${pathSegment(share, 'share')}/schemas/${pathSegment(schema, 'schema')}/tables`
    const items = await this.list(path, 'tables', 'table')
    return items.map(item => ({ share, schema, table: text(item.name), ...optionalId(item) }))
  }

  /** The current version of a table, or the earliest at or after `startingTimestamp`. */
  async tableVersion(t: ShareCoordinates, startingTimestamp?: string): Promise<number> {
    const q = startingTimestamp ? `?${new URLSearchParams({ startingTimestamp })}` : ''
    const res = await this.request('GET', `${tablePath(t)}/version${q}`, undefined, t)
    return versionHeader(res, this.describe(t))
  }

  /** The table's protocol and metaData lines at its current version (either format). */
  async metadata(t: ShareCoordinates): Promise<QueryAnswer> {
    const res = await this.request('GET', `${tablePath(t)}/metadata`, undefined, t)
    return parseAnswer(await res.text(), res, this.describe(t)).answer
  }

  /**
   * A snapshot's files (every page; `maxFiles` per page when given). Asks for the Delta format
   * and accepts the parquet format from a server that has only that (PROTOCOL.md "responseFormat").
   */
  async query(t: ShareCoordinates, req: QueryRequest): Promise<QueryAnswer> {
    const name = this.describe(t)
    const path = `${tablePath(t)}/query`
    const pager = new Pager(`${name}: query`, `${this.endpoint}${path}`, this.limits, {
      plural: 'files',
      key: 'file id',
    })
    let answer: QueryAnswer | undefined
    let pageToken: string | undefined
    for (let page = 0; ; page++) {
      pager.next()
      // Later pages carry the page token instead of the refresh fields (as the Spark client sends them).
      const { includeRefreshToken: _i, refreshToken: _r, ...rest } = req
      const body = pageToken ? { ...rest, pageToken } : req
      const res = await this.request('POST', path, body, t)
      const part = parseAnswer(await pager.read(res), res, name)
      // A file's identity is its id (PROTOCOL.md): listed twice, its rows would be read twice.
      pager.take(part.answer.files.map(f => (typeof f.id === 'string' ? f.id : '')).filter(id => id !== ''))
      if (!answer) answer = part.answer
      else {
        if (part.answer.version !== answer.version) {
          throw sharingError(
            `${name}: page ${page + 1} of the query is of version ${part.answer.version}, page 1 of ${answer.version}`,
            this.endpoint,
          )
        }
        answer.files.push(...part.answer.files)
        answer.minUrlExpirationTimestamp = minDefined(
          answer.minUrlExpirationTimestamp,
          part.answer.minUrlExpirationTimestamp,
        )
      }
      if (part.answer.refreshToken) answer.refreshToken = part.answer.refreshToken
      pageToken = part.nextPageToken
      if (!pageToken) return answer
      pager.token(pageToken)
    }
  }

  /** "share.schema.table on <endpoint>", for errors. */
  describe(t: ShareCoordinates): string {
    return `${quotedName(t.share)}.${quotedName(t.schema)}.${quotedName(t.table)} on ${this.endpoint}`
  }

  /**
   * All items of a paged list call, under the same bounds as a query; an item is keyed by its
   * name (a repeated name is refused).
   */
  private async list(path: string, plural: string, kind: string): Promise<Record<string, unknown>[]> {
    const what = `${this.endpoint}${path}`
    const pager = new Pager(what, what, this.limits, { plural, key: `${kind} name` })
    const items: Record<string, unknown>[] = []
    let token: string | undefined
    for (;;) {
      pager.next()
      const q = token ? `?${new URLSearchParams({ pageToken: token })}` : ''
      const res = await this.request('GET', `${path}${q}`)
      const json = parseJson(await pager.read(res)) as { items?: unknown; nextPageToken?: unknown } | undefined
      if (!json || typeof json !== 'object' || Array.isArray(json))
        throw sharingError(`${what}: the answer is not a JSON object`, this.endpoint)
      const page = Array.isArray(json.items) ? (json.items as Record<string, unknown>[]) : []
      pager.take(page.map(item => text(item?.name)))
      items.push(...page)
      token = typeof json.nextPageToken === 'string' && json.nextPageToken ? json.nextPageToken : undefined
      if (!token) return items
      pager.token(token)
    }
  }

  /**
   * One call with the Authorization header; an OAuth token the server no longer takes (401) is
   * fetched anew once. A refusal is an error naming the table (or path), status and reason.
   */
  private async request(method: 'GET' | 'POST', path: string, body?: unknown, t?: ShareCoordinates): Promise<Response> {
    const url = `${this.endpoint}${path}`
    for (let attempt = 0; ; attempt++) {
      const headers: Record<string, string> = { Accept: 'application/json, application/x-ndjson' }
      const authorization = await this.auth.header()
      if (authorization) headers.Authorization = authorization
      if (t) headers['delta-sharing-capabilities'] = CAPABILITIES
      if (body !== undefined) headers['Content-Type'] = 'application/json; charset=utf-8'
      const init: RequestInit = { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }
      // The endpoint's own origin only: these headers carry the token (http.ts withHeaders rule).
      const res = await send(url, init, { ...this.http, resolver: undefined, headers: undefined }, this.endpoint)
      if (res.ok) return res
      if (res.status === 401 && attempt === 0 && this.auth.invalidate()) continue
      const error = await explainedStatusError(method, url, res)
      const what = t ? this.describe(t) : `profile ${this.source}`
      const hint = HINTS[res.status] ?? ''
      throw new TableError(`${what}: ${error.message}${hint}`, res.status === 404 ? 'not-a-table' : 'sharing', url)
    }
  }
}

const HINTS: Record<number, string> = {
  401: ' — the profile’s token was refused (wrong or revoked); ask the provider for a new profile',
  403: ' — the profile may not read this',
  404: ' — not shared with this profile (check share, schema and table names)',
}

/**
 * `shares/{share}/schemas/{schema}/tables/{table}`, each name one encoded segment.
 *
 * @throws TableError for a name that cannot be a segment (names.ts pathSegment)
 */
export function tablePath(t: ShareCoordinates): string {
  return `shares/${pathSegment(t.share, 'share')}/schemas/${pathSegment(t.schema, 'schema')}/tables/${pathSegment(t.table, 'table')}`
}

function versionHeader(res: Response, name: string): number {
  const raw = res.headers.get('Delta-Table-Version')
  const version = raw === null ? NaN : Number(raw)
  if (!Number.isSafeInteger(version) || version < 0) {
    throw sharingError(`${name}: the answer has no Delta-Table-Version header (got ${JSON.stringify(raw)})`, res.url)
  }
  return version
}

/** Parses one page of a query's NDJSON answer. */
function parseAnswer(body: string, res: Response, name: string): { answer: QueryAnswer; nextPageToken?: string } {
  const format = respondedFormat(res.headers.get('delta-sharing-capabilities'))
  const answer: QueryAnswer = { version: versionHeader(res, name), format, protocol: {}, metaData: {}, files: [] }
  let nextPageToken: string | undefined
  let lineNo = 0
  for (const raw of body.split('\n')) {
    lineNo++
    const line = raw.trim()
    if (!line) continue
    let obj: Record<string, unknown>
    try {
      obj = JSON.parse(line) as Record<string, unknown>
    } catch (error) {
      throw sharingError(`${name}: query answer line ${lineNo} is not JSON (${(error as Error).message})`, res.url)
    }
    if (isObject(obj.protocol)) answer.protocol = obj.protocol
    else if (isObject(obj.metaData)) answer.metaData = obj.metaData
    else if (isObject(obj.file)) answer.files.push(obj.file)
    else if (isObject(obj.endStreamAction)) {
      const end = obj.endStreamAction
      if (typeof end.errorMessage === 'string' && end.errorMessage) {
        throw sharingError(`${name}: the server failed the query while answering: ${end.errorMessage}`, res.url)
      }
      if (typeof end.refreshToken === 'string' && end.refreshToken) answer.refreshToken = end.refreshToken
      if (typeof end.nextPageToken === 'string' && end.nextPageToken) nextPageToken = end.nextPageToken
      if (typeof end.minUrlExpirationTimestamp === 'number')
        answer.minUrlExpirationTimestamp = end.minUrlExpirationTimestamp
    }
  }
  if (!Object.keys(answer.protocol).length || !Object.keys(answer.metaData).length) {
    throw sharingError(
      `${name}: the query answer has no ${Object.keys(answer.protocol).length ? 'metaData' : 'protocol'} line`,
      res.url,
    )
  }
  // The format header is optional on old servers: the lines themselves say which it is.
  if (isObject(answer.protocol.deltaProtocol)) answer.format = 'delta'
  return { answer, nextPageToken }
}

/** `responseformat=…` of a `delta-sharing-capabilities` header; absent means parquet (PROTOCOL.md). */
function respondedFormat(header: string | null): 'delta' | 'parquet' {
  for (const part of (header ?? '').split(';')) {
    const [key, value] = part.split('=')
    if (key?.trim().toLowerCase() === 'responseformat' && value?.trim().toLowerCase() === 'delta') return 'delta'
  }
  return 'parquet'
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body)
  } catch {
    return undefined
  }
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : String(v)
}

function optionalId(item: Record<string, unknown>): { id?: string } {
  return typeof item.id === 'string' ? { id: item.id } : {}
}

function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b)
}

/** A TableError('sharing'). */
export function sharingError(message: string, url?: string): TableError {
  return new TableError(message, 'sharing', url)
}
