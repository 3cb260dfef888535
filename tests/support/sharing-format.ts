/**
 * Response format and NDJSON lines of the Delta Sharing test server: which of parquet and delta
 * format a request gets (the spec's rules, and the reference server's reader-feature check), and
 * the protocol, metaData and file lines in each.
 */
import type { IncomingMessage } from 'node:http'
import type { AddAction } from '../../src/table/actions.ts'
import { dvUniqueId } from '../../src/table/replay.ts'
import type { Protocol } from '../../src/table/types.ts'
import { type Answer, ApiError, type Context, E, sha1, tableKey } from './sharing-common.ts'
import { presign } from './sharing-files.ts'
import type { SharedTableSpec } from './sharing-server.ts'
import { dvPath, relativePath, type TableSnapshot } from './sharing-table.ts'

const NDJSON = 'application/x-ndjson; charset=utf-8'
/** Feature names the reference server checks against the client's `readerfeatures`. */
const CHECKED_FEATURES = ['deletionVectors', 'columnMapping']

/** The two response formats of the protocol. */
export type Format = 'parquet' | 'delta'

/** The `delta-sharing-capabilities` header as key → values, lower case (the spec makes both case-insensitive). */
export function capabilities(req: IncomingMessage): Map<string, string[]> {
  const out = new Map<string, string[]>()
  const header = String(req.headers['delta-sharing-capabilities'] ?? '').toLowerCase()
  for (const part of header.split(';')) {
    const [key, value, extra] = part.split('=')
    if (value === undefined || extra !== undefined) continue
    const values = value.split(',').map(s => s.trim())
    out.set(key.trim(), values.filter(Boolean))
  }
  return out
}

/**
 * The format to answer in, by the spec's rules: one format asked is answered as asked; of a list,
 * parquet only for a table without reader features. Parquet cannot carry deletion vectors or
 * column mapping, so a table needing reader features is refused in it; in delta format the client
 * must list the features the reference server checks (deletionVectors, columnMapping).
 */
export function responseFormat(spec: SharedTableSpec, caps: Map<string, string[]>, protocol: Protocol): Format {
  if (spec.parquetOnly) return 'parquet'
  const asked = caps.get('responseformat') ?? ['parquet']
  const unknown = asked.filter(f => f !== 'parquet' && f !== 'delta')
  if (unknown.length || !asked.length) {
    throw new ApiError(
      400,
      E.invalid,
      `unknown responseformat '${unknown.join(',')}': this server answers parquet or delta`,
    )
  }
  const format: Format =
    asked.length === 1
      ? (asked[0] as Format)
      : protocol.minReaderVersion === 1 && asked.includes('parquet')
        ? 'parquet'
        : 'delta'
  const needs = readerFeatures(protocol)
  if (format === 'parquet' && protocol.minReaderVersion > 1) {
    throw new ApiError(
      400,
      E.unsupported,
      `table ${tableKey(spec)} needs reader features [${needs.join(', ')}] (minReaderVersion ` +
        `${protocol.minReaderVersion}), which responseformat=parquet cannot carry: ask for responseformat=delta`,
    )
  }
  if (format === 'delta') {
    const listed = new Set(caps.get('readerfeatures') ?? [])
    const missing = needs.filter(f => CHECKED_FEATURES.includes(f) && !listed.has(f.toLowerCase()))
    if (missing.length) {
      throw new ApiError(
        400,
        E.unsupported,
        `table ${tableKey(spec)} uses reader features [${missing.join(', ')}] that the request's ` +
          'delta-sharing-capabilities readerfeatures do not list',
      )
    }
  }
  return format
}

/** Reader features of a protocol; reader version 2 is column mapping. */
function readerFeatures(p: Protocol): string[] {
  if (p.minReaderVersion >= 3) return p.readerFeatures ?? []
  return p.minReaderVersion === 2 ? ['columnMapping'] : []
}

/** The `fileidhash` request header, lower case; refuses a value other than parquet or delta. */
export function checkFileIdHash(req: IncomingMessage): string | undefined {
  const raw = req.headers.fileidhash
  if (typeof raw !== 'string') return undefined
  const value = raw.trim().toLowerCase()
  if (value === 'parquet' || value === 'delta') return value
  throw new ApiError(400, E.invalid, `fileidhash '${raw}' is neither parquet nor delta`)
}

/** The NDJSON answer of a metadata or query call, with its version and format headers. */
export function ndjson(
  version: number,
  format: Format,
  lines: unknown[],
  fileIdHash: string | undefined,
  endStream: boolean,
): Answer {
  const headers: Record<string, string> = {
    'Content-Type': NDJSON,
    'Delta-Table-Version': String(version),
    'delta-sharing-capabilities': `responseformat=${format}${endStream ? ';includeendstreamaction=true' : ''}`,
  }
  if (fileIdHash) headers.fileidhash = fileIdHash
  return { status: 200, headers, body: lines.map(line => `${JSON.stringify(line)}\n`).join('') }
}

/** The protocol line: reader version 1 in parquet format, the table's protocol in delta format. */
export function protocolLine(format: Format, p: Protocol): unknown {
  return format === 'parquet' ? { protocol: { minReaderVersion: 1 } } : { protocol: { deltaProtocol: { ...p } } }
}

/** The metaData line; the raw table configuration rides along in both formats, so a client can see DVs are on. */
export function metadataLine(format: Format, snap: TableSnapshot, spec: SharedTableSpec): unknown {
  const m = snap.metadata
  const extra = {
    version: snap.version,
    location: `s3://sharing-test/${tableKey(spec)}`,
    size: snap.adds.reduce((sum, a) => sum + a.size, 0),
    numFiles: snap.adds.length,
  }
  if (format === 'delta') return { metaData: { deltaMetadata: m, ...extra } }
  const { id, name, description, schemaString, partitionColumns, configuration } = m
  const meta = {
    id,
    name,
    description,
    format: { provider: m.format.provider },
    schemaString,
    partitionColumns,
    configuration,
  }
  return { metaData: { ...meta, ...extra } }
}

/**
 * One file line. `travel` (a version or timestamp query) adds the version and its commit time, as
 * the reference server does. In delta format the add is the log's, its path and its deletion
 * vector's file replaced by pre-signed URLs; inline DVs stay inline.
 */
export function fileLine(
  ctx: Context,
  spec: SharedTableSpec,
  format: Format,
  add: AddAction,
  expires: number,
  travel?: TableSnapshot,
): unknown {
  const key = tableKey(spec)
  const url = presign(ctx, key, relativePath(add.path), expires)
  const id = sha1(add.path)
  const at = travel ? { version: travel.version, timestamp: travel.timestamp } : {}
  const stats = add.stats ?? (add.statsParsed ? JSON.stringify(add.statsParsed) : undefined)
  if (format === 'parquet') {
    const file = {
      url,
      id,
      partitionValues: add.partitionValues,
      size: add.size,
      stats,
      ...at,
      expirationTimestamp: expires,
    }
    return { file }
  }
  const raw: Record<string, unknown> = {
    path: url,
    partitionValues: add.partitionValues,
    size: add.size,
    modificationTime: add.modificationTime,
    dataChange: add.dataChange ?? true,
    stats,
    tags: add.tags,
    baseRowId: add.baseRowId,
    defaultRowCommitVersion: add.defaultRowCommitVersion,
  }
  const file: Record<string, unknown> = { id }
  const dv = add.deletionVector
  if (dv && dv.storageType !== 'i') {
    raw.deletionVector = { ...dv, storageType: 'p', pathOrInlineDv: presign(ctx, key, dvPath(spec.dir, dv), expires) }
    file.deletionVectorFileId = sha1(dvUniqueId(dv))
  } else if (dv) raw.deletionVector = dv
  return { file: { ...file, ...at, expirationTimestamp: expires, deltaSingleAction: { add: raw } } }
}
