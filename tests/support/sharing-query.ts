/**
 * The query route of the Delta Sharing test server: the request body checked as the reference
 * server checks it, file selection, pages cut by `maxFiles` (or the server's page size) behind
 * sealed page tokens, refresh tokens, and the end-of-stream line.
 */
import {
  type Call,
  type Answer,
  ApiError,
  type Context,
  E,
  openToken,
  sealToken,
  sha256,
  tableKey,
  unsupported,
} from './sharing-common.ts'
import {
  capabilities,
  checkFileIdHash,
  fileLine,
  metadataLine,
  ndjson,
  protocolLine,
  responseFormat,
} from './sharing-format.ts'
import { findTable } from './sharing-lists.ts'
import { filterFiles, limitFiles } from './sharing-predicate.ts'
import { openLog, resolveSnapshot, snapshotAt } from './sharing-table.ts'

/** Refresh and page tokens live an hour, as the reference server's do by default. */
const TOKEN_TTL_MS = 3_600_000

/** The request body of a query, type-checked. */
export interface QueryRequest {
  predicateHints?: string[]
  jsonPredicateHints?: string
  limitHint?: number
  version?: number
  timestamp?: string
  startingVersion?: number
  maxFiles?: number
  pageToken?: string
  includeRefreshToken?: boolean
  refreshToken?: string
}

interface PageToken {
  k: 'page'
  t: string
  v: number
  o: number
  h: string
  r: boolean
  e: number
}

interface RefreshToken {
  k: 'refresh'
  t: string
  v: number
  e: number
}

/** `POST …/query`: one page of a table's files at the asked (or the token's) version. */
export async function queryTable(c: Call): Promise<Answer> {
  const spec = findTable(c.ctx, c.params)
  const q = parseQueryBody(c.body)
  const fileIdHash = checkFileIdHash(c.req)
  const key = tableKey(spec)
  const checksum = sha256(JSON.stringify([q.predicateHints, q.jsonPredicateHints, q.limitHint, q.version, q.timestamp]))
  const pageToken = q.pageToken ? openPageToken(c.ctx, q.pageToken, key, checksum) : undefined
  const refresh = q.refreshToken ? openRefreshToken(c.ctx, q.refreshToken, key) : undefined
  // A later page or a refresh reads the version of the first answer, whatever is newer now.
  const tokenVersion = pageToken?.v ?? refresh?.v
  const snap =
    tokenVersion === undefined
      ? await resolveSnapshot(spec, q.version, q.timestamp)
      : await snapshotAt(await openLog(spec.dir), tokenVersion)
  const caps = capabilities(c.req)
  const format = responseFormat(spec, caps, snap.protocol)
  const files = limitFiles(filterFiles(snap, q.jsonPredicateHints), q)
  const start = pageToken?.o ?? 0
  const size = q.maxFiles ?? c.ctx.pageSize
  const pageFiles = files.slice(start, start + size)
  const expires = Date.now() + Math.round(c.ctx.urlLifetimeMs)
  const travel = q.version !== undefined || q.timestamp !== undefined
  const lines: unknown[] = [protocolLine(format, snap.protocol), metadataLine(format, snap, spec)]
  for (const add of pageFiles) lines.push(fileLine(c.ctx, spec, format, add, expires, travel ? snap : undefined))
  const wantsRefresh = q.includeRefreshToken === true || pageToken?.r === true
  const end: Record<string, unknown> = {}
  if (start + size < files.length) {
    const next: PageToken = {
      k: 'page',
      t: key,
      v: snap.version,
      o: start + size,
      h: checksum,
      r: wantsRefresh,
      e: Date.now() + TOKEN_TTL_MS,
    }
    end.nextPageToken = sealToken(c.ctx, next)
  }
  if (wantsRefresh)
    end.refreshToken = sealToken(c.ctx, { k: 'refresh', t: key, v: snap.version, e: Date.now() + TOKEN_TTL_MS })
  if (pageFiles.length) end.minUrlExpirationTimestamp = expires
  const askedEnd = caps.get('includeendstreamaction')?.[0] === 'true'
  const paged = q.maxFiles !== undefined || pageToken !== undefined || end.nextPageToken !== undefined
  if (askedEnd || paged || wantsRefresh) lines.push({ endStreamAction: end })
  return ndjson(snap.version, format, lines, fileIdHash, askedEnd)
}

/** Parse and check the body, refusing what the reference server refuses. */
function parseQueryBody(body: string): QueryRequest {
  let raw: unknown
  try {
    raw = body.trim() ? JSON.parse(body) : {}
  } catch (error) {
    throw new ApiError(400, E.malformed, `the request body is not JSON: ${(error as Error).message}`)
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    throw new ApiError(400, E.malformed, 'the request body is not a JSON object')
  const b = raw as Record<string, unknown>
  const q: QueryRequest = {
    predicateHints: field(
      b,
      'predicateHints',
      v => Array.isArray(v) && v.every(s => typeof s === 'string'),
    ) as string[],
    jsonPredicateHints: field(b, 'jsonPredicateHints', v => typeof v === 'string') as string,
    limitHint: integer(b, 'limitHint'),
    version: integer(b, 'version'),
    timestamp: field(b, 'timestamp', v => typeof v === 'string') as string,
    startingVersion: integer(b, 'startingVersion'),
    maxFiles: integer(b, 'maxFiles'),
    pageToken: field(b, 'pageToken', v => typeof v === 'string') as string,
    includeRefreshToken: field(b, 'includeRefreshToken', v => typeof v === 'boolean') as boolean,
    refreshToken: field(b, 'refreshToken', v => typeof v === 'string') as string,
  }
  const versioned = [q.version, q.timestamp, q.startingVersion].filter(v => v !== undefined).length
  const fail = (message: string) => new ApiError(400, E.invalid, message)
  if (versioned > 1) throw fail('give at most one of version, timestamp and startingVersion')
  if (q.version !== undefined && q.version < 0) throw fail('version must be a non-negative integer')
  if (q.startingVersion !== undefined) unsupported('startingVersion (streaming) queries')
  if (q.maxFiles !== undefined && q.maxFiles <= 0) throw fail('maxFiles must be a positive integer')
  if (versioned && q.includeRefreshToken) throw fail('includeRefreshToken is only for queries of the latest version')
  if (q.pageToken && q.includeRefreshToken)
    throw fail('includeRefreshToken goes with a first page only, not with pageToken')
  if (versioned && q.refreshToken) throw fail('refreshToken is only for queries of the latest version')
  if (q.pageToken && q.refreshToken) throw fail('refreshToken goes with a first page only, not with pageToken')
  return q
}

function field(b: Record<string, unknown>, name: string, ok: (v: unknown) => boolean): unknown {
  const v = b[name]
  if (v == null) return undefined
  if (!ok(v)) throw new ApiError(400, E.malformed, `${name} has the wrong type: ${JSON.stringify(v)}`)
  return v
}

/** Int fields arrive as JSON numbers or, from protobuf-JSON clients, as digit strings. */
function integer(b: Record<string, unknown>, name: string): number | undefined {
  const v = field(
    b,
    name,
    x => (typeof x === 'number' && Number.isInteger(x)) || (typeof x === 'string' && /^-?\d+$/.test(x)),
  )
  return v === undefined ? undefined : Number(v)
}

function openPageToken(ctx: Context, text: string, key: string, checksum: string): PageToken {
  const token = openToken<PageToken>(ctx, text)
  const fail = (message: string) => new ApiError(400, E.invalid, message)
  if (token?.k !== 'page') throw fail(`pageToken is not one this server issued: ${text}`)
  if (token.e < Date.now()) throw fail('pageToken has expired: start the query again')
  if (token.t !== key) throw fail('pageToken was issued for another table')
  if (token.h !== checksum) {
    throw fail('the query parameters differ from those of the first page: they must stay the same on every page')
  }
  return token
}

function openRefreshToken(ctx: Context, text: string, key: string): RefreshToken {
  const token = openToken<RefreshToken>(ctx, text)
  const fail = (message: string) => new ApiError(400, E.invalid, message)
  if (token?.k !== 'refresh') throw fail(`refreshToken is not one this server issued: ${text}`)
  if (token.e < Date.now()) throw fail('refreshToken has expired: start the query again')
  if (token.t !== key) throw fail('refreshToken was issued for another table')
  return token
}
