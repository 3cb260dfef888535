/**
 * The list routes of the Delta Sharing test server: shares, schemas and tables, paged by
 * `maxResults` and sealed `pageToken`s, and the name lookups the table routes share.
 */
import {
  type Answer,
  ApiError,
  type Call,
  type Context,
  E,
  json,
  openToken,
  sameName,
  sealToken,
  tableKey,
  unique,
  uuidOf,
} from './sharing-common.ts'
import type { SharedTableSpec } from './sharing-server.ts'

/** The reference server refuses larger list pages. */
const MAX_RESULTS = 500

// Shares, schemas and tables come from the table list, in the order first named there.

function shareNames(ctx: Context): string[] {
  return unique(ctx.opts.tables.map(t => t.share))
}

function findShare(ctx: Context, name: string): string {
  const share = shareNames(ctx).find(s => sameName(s, name))
  if (!share) throw new ApiError(404, E.missing, `share '${name}' does not exist`)
  return share
}

function findSchema(ctx: Context, share: string, name: string): string {
  const schema = unique(ctx.opts.tables.filter(t => t.share === share).map(t => t.schema)).find(s => sameName(s, name))
  if (!schema) throw new ApiError(404, E.missing, `schema '${name}' does not exist`)
  return schema
}

/** The shared table named by a route's `{share}`, `{schema}` and `{table}` (case-insensitive). */
export function findTable(ctx: Context, p: Record<string, string>): SharedTableSpec {
  const spec = ctx.opts.tables.find(
    t => sameName(t.share, p.share) && sameName(t.schema, p.schema) && sameName(t.table, p.table),
  )
  if (spec) return spec
  throw new ApiError(404, E.missing, `table '${p.share}.${p.schema}.${p.table}' does not exist`)
}

function tableItem(t: SharedTableSpec): Record<string, string> {
  return {
    name: t.table,
    schema: t.schema,
    share: t.share,
    shareId: uuidOf(`share:${t.share}`),
    id: uuidOf(tableKey(t)),
  }
}

/** `GET shares`. */
export function listShares(c: Call): Answer {
  return json(
    200,
    page(
      c,
      shareNames(c.ctx).map(name => ({ name, id: uuidOf(`share:${name}`) })),
      'shares',
    ),
  )
}

/** `GET shares/{share}`. */
export function getShare(c: Call): Answer {
  const name = findShare(c.ctx, c.params.share)
  return json(200, { share: { name, id: uuidOf(`share:${name}`) } })
}

/** `GET shares/{share}/schemas`. */
export function listSchemas(c: Call): Answer {
  const share = findShare(c.ctx, c.params.share)
  const names = unique(c.ctx.opts.tables.filter(t => t.share === share).map(t => t.schema))
  return json(
    200,
    page(
      c,
      names.map(name => ({ name, share })),
      `schemas:${share}`,
    ),
  )
}

/** `GET shares/{share}/schemas/{schema}/tables`. */
export function listTables(c: Call): Answer {
  const share = findShare(c.ctx, c.params.share)
  const schema = findSchema(c.ctx, share, c.params.schema)
  const tables = c.ctx.opts.tables.filter(t => t.share === share && t.schema === schema)
  return json(200, page(c, tables.map(tableItem), `tables:${share}.${schema}`))
}

/** `GET shares/{share}/all-tables`. */
export function listAllTables(c: Call): Answer {
  const share = findShare(c.ctx, c.params.share)
  return json(200, page(c, c.ctx.opts.tables.filter(t => t.share === share).map(tableItem), `all-tables:${share}`))
}

/** One page of a list: `maxResults` items from the offset in `pageToken`; the token is bound to the list. */
function page<T>(c: Call, items: T[], scope: string): { items: T[]; nextPageToken?: string } {
  const raw = c.query.get('maxResults')
  if (raw !== null && (!/^\d+$/.test(raw) || Number(raw) > MAX_RESULTS)) {
    throw new ApiError(
      400,
      E.invalid,
      `maxResults must be an integer from 0 to ${MAX_RESULTS} (default ${c.ctx.pageSize})`,
    )
  }
  const max = raw === null ? c.ctx.pageSize : Number(raw)
  const tokenText = c.query.get('pageToken')
  let start = 0
  if (tokenText) {
    const token = openToken<{ k: string; o: number }>(c.ctx, tokenText)
    if (!token || token.k !== scope || token.o > items.length)
      throw new ApiError(400, E.invalid, 'pageToken is not one of this list')
    start = token.o
  }
  const end = start + max
  const out: { items: T[]; nextPageToken?: string } = { items: items.slice(start, end) }
  if (end < items.length) out.nextPageToken = sealToken(c.ctx, { k: scope, o: end })
  return out
}
