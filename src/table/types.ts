/**
 * Types of the Delta snapshot reader (src/table). This file is the contract between the log
 * replay (snapshot.ts and friends) and the row reader (rows.ts and friends); the CLI, the page
 * and the loaders only see these types.
 */

import type { IndexedLog } from './listing.ts'

/** The subset of `fetch` the reader uses; tests inject fakes, the CLI passes Node's fetch. */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>

/** How the reader talks HTTP. Every wait is bounded (no hangs). */
export interface HttpOptions {
  /** Injected fetch; default globalThis.fetch. */
  fetch?: FetchLike
  /** Per-request timeout in ms (first byte to last byte); default 10 000. */
  timeoutMs?: number
  /** Attempts per request, first one included; retries only 5xx and network errors; default 4. */
  attempts?: number
  /** Base backoff in ms (doubles each retry, with jitter); default 100. */
  backoffMs?: number
  /** Extra request headers (e.g. Authorization), sent only to the table's origin. */
  headers?: Record<string, string>
  /**
   * Origins (`https://host[:port]`) besides the table's own that its requests may go to: data
   * files, deletion vectors and checkpoint parts the log names, a share's pre-signed URLs (as
   * resolved, not the reader's stable URLs), every redirect hop. A request anywhere else is
   * refused before it is sent. Default: no list, any origin.
   */
  allowOrigins?: string[]
  /**
   * Send credentials (an Authorization header, a session token, a pre-signed URL) over plain
   * `http://` to a host that is not loopback. Default false: such a request is refused naming
   * the endpoint (loopback — 127.0.0.0/8, localhost, [::1] — is always allowed).
   */
  allowInsecureHttp?: boolean
  /**
   * Largest whole-file answer (bytes) where the log does not give the file's size: commits,
   * `_last_checkpoint`, JSON checkpoints, listing pages. Default 256 MiB (in Node also
   * `SNAPTRAIN_MAX_LOG_BYTES`); a longer answer is aborted and refused naming the URL.
   */
  maxLogBytes?: number
  /**
   * Delta Sharing: bounds on one answer of the sharing server (a query's pages, or a list call's);
   * defaults fit a table of a million files (src/sharing/limits.ts).
   */
  shareLimits?: ShareAnswerLimits
  /**
   * Governed tables: turns the reader's stable URLs (as in the Snapshot) into the request sent now
   * (a share's current pre-signed URL, a SigV4-signed storage request). Every request of the reader
   * passes it; error messages name the stable URL, never the signed one.
   */
  resolver?: UrlResolver
  /**
   * What static indexes said of tables' logs, by table root URL (listing.ts IndexedLog): opening
   * one of these tables asks its host no listing and no probe. The page hands the logs it read to
   * its workers here (listing.ts indexedLogsFor); the page's own realm remembers them anyway.
   */
  indexedLogs?: Record<string, IndexedLog>
}

/** Bounds on one Delta Sharing answer, all its pages together; past one, the answer is refused naming it. */
export interface ShareAnswerLimits {
  /** Pages (default 100 000; in Node also `SNAPTRAIN_SHARE_MAX_PAGES`). */
  pages?: number
  /** Files of a query, items of a list call (default 2 000 000; `SNAPTRAIN_SHARE_MAX_FILES`). */
  files?: number
  /** Body bytes (default 4 GiB; `SNAPTRAIN_SHARE_MAX_BYTES`). */
  bytes?: number
}

/** The request to send for a stable URL: where, and with which extra headers. */
export interface ResolvedRequest {
  url: string
  headers?: Record<string, string>
}

/**
 * The one hook through which governed tables reach storage (a Delta Sharing client, signed S3,
 * vended credentials). Plain data in and out, so a worker can hold a comlink proxy of the
 * coordinator's resolver.
 */
export interface UrlResolver {
  /**
   * The request for `url` now. `headers` are the request's own (e.g. Range), for signing; throws
   * TableError naming `url` when it is not one this resolver may serve (nothing is sent then).
   */
  resolve(url: string, method: string, headers: Record<string, string>): Promise<ResolvedRequest>
  /**
   * Told of a 401/403 answer to a resolved request (`body`: its first 64 KiB as text); resolves
   * true when it renewed what the request needs (URLs, credentials) so it should be sent again.
   */
  rejected(url: string, status: number, body: string): Promise<boolean>
  /**
   * Told of a redirect answer (3xx) to a resolved request (`headers` lower-case, `body` its first
   * 64 KiB as text); resolves true when the resolver now sends `url` where the redirect says (an
   * S3 bucket's own region: same bucket, same provider), so the request should be resolved and
   * sent again. Absent, or false: the redirect is refused and nothing is sent to where it leads.
   */
  redirected?(url: string, status: number, headers: Record<string, string>, body: string): Promise<boolean>
  /**
   * A resolver that is the table's source (a Delta Sharing session: the server answers the
   * snapshot, there is no log to read) opens its snapshots itself; openSnapshot defers to it.
   */
  openSnapshot?(tableUrl: string, opts: OpenOptions): Promise<Snapshot>
  /** Such a source's history, as listCommits gives it for a log. */
  listCommits?(tableUrl: string): Promise<CommitInfo[]>
}

/** Which snapshot to open. At most one of version / timestamp. */
export interface OpenOptions extends HttpOptions {
  /** Table version; default the latest. */
  version?: number
  /** Latest version committed at or before this time (ISO-8601 string or ms since epoch). */
  timestamp?: string | number
  /**
   * Told what the reader worked around (a checkpoint it could not read, say); default
   * `console.warn`. The CLI sends it to stderr.
   */
  onWarning?: (message: string) => void
  /**
   * The row filter (filter syntax) the caller will apply: a source that can skip files by it (a
   * share sends it as jsonPredicateHints) may; rows are re-filtered exactly regardless.
   */
  filterHint?: string
  /** Rows the caller will read at most (a preview): a share sends it as limitHint. */
  limitHint?: number
}

/** A primitive Delta type name as in the schema JSON: 'long', 'string', 'decimal(10,2)', … */
export type PrimitiveType = string

/** Any Delta data type. */
export type DeltaType = PrimitiveType | StructType | ArrayType | MapType

/** A field of a struct; `metadata` carries column mapping keys (delta.columnMapping.*). */
export interface StructField {
  name: string
  type: DeltaType
  nullable: boolean
  metadata: Record<string, unknown>
}

/** A struct (the table schema is one). */
export interface StructType {
  type: 'struct'
  fields: StructField[]
}
/** An array column. */
export interface ArrayType {
  type: 'array'
  elementType: DeltaType
  containsNull: boolean
}
/** A map column. */
export interface MapType {
  type: 'map'
  keyType: DeltaType
  valueType: DeltaType
  valueContainsNull: boolean
}

/** The protocol action in force at the snapshot's version. */
export interface Protocol {
  minReaderVersion: number
  minWriterVersion: number
  readerFeatures?: string[]
  writerFeatures?: string[]
}

/** The metaData action in force at the snapshot's version. */
export interface Metadata {
  id: string
  name?: string
  description?: string
  format: { provider: string; options?: Record<string, string> }
  schemaString: string
  partitionColumns: string[]
  configuration: Record<string, string>
  createdTime?: number
}

/** Deletion vector descriptor as in an add action (Delta PROTOCOL.md "Deletion Vectors"). */
export interface DeletionVectorDescriptor {
  /** 'u': relative path derived from a UUID (z85), 'p': absolute path, 'i': inline bitmap (z85). */
  storageType: 'u' | 'p' | 'i'
  pathOrInlineDv: string
  /** Byte offset of the bitmap inside the DV file (not for inline). */
  offset?: number
  sizeInBytes: number
  /** Number of deleted rows. */
  cardinality: number
}

/** Per-file column statistics from the add action's `stats` (or checkpoint `stats_parsed`). */
export interface FileStats {
  numRecords?: number
  /** Keyed by logical column name (nested structs as nested objects). */
  minValues?: Record<string, unknown>
  maxValues?: Record<string, unknown>
  nullCount?: Record<string, unknown>
  tightBounds?: boolean
}

/** A live data file of the snapshot. */
export interface AddFile {
  /** Path as written in the log (URL-encoded relative path, or an absolute URI). */
  path: string
  /** Absolute URL to fetch the file from. */
  url: string
  /** File size in bytes. */
  size: number
  /** Raw partition values as strings (null for a null partition), keyed by LOGICAL column name. */
  partitionValues: Record<string, string | null>
  modificationTime: number
  stats?: FileStats
  deletionVector?: DeletionVectorDescriptor
  /** Row tracking / other fields are kept but not interpreted. */
  baseRowId?: number
}

/** One committed version as seen in the log (for history views and time travel). */
export interface CommitInfo {
  version: number
  /**
   * Commit time in ms since epoch: inCommitTimestamp, else the commit file's modification time,
   * made strictly increasing over the history (as time travel compares them).
   */
  timestamp: number
  operation?: string
  operationMetrics?: Record<string, string>
}

/** The table at one version: everything needed to read it. */
export interface Snapshot {
  /** Table root URL, always ending in '/'. */
  tableUrl: string
  version: number
  /** Commit time of `version` in ms since epoch; NaN where the source does not say (a share's latest snapshot). */
  timestamp: number
  protocol: Protocol
  metadata: Metadata
  /** Logical schema (from metaData.schemaString). */
  schema: StructType
  partitionColumns: string[]
  columnMapping: 'none' | 'name' | 'id'
  /** Live files, sorted by path. */
  files: AddFile[]
  /** Where a shared table came from (src/sharing): absent for a table read from its log. */
  share?: ShareOrigin
}

/** A shared table's coordinates and the server's file ids: what a manifest records (never URLs or tokens). */
export interface ShareOrigin {
  endpoint: string
  share: string
  schema: string
  table: string
  /** The response format the server answered in. */
  format: 'delta' | 'parquet'
  /** The server's file id of each live file, by its table-relative path. */
  fileIds: Record<string, string>
}

/**
 * A decoded row, keyed by LOGICAL column name (partition columns included). Value types:
 * byte/short/integer/float/double → number; long → bigint; boolean → boolean; string → string;
 * binary → Uint8Array; decimal(p,s) → exact decimal string ("-12.30"); date → 'YYYY-MM-DD' string;
 * timestamp and timestamp_ntz → Timestamp (timestamp.ts: exact µs since the epoch as a bigint, plus
 * the ns within the µs that only Parquet NANOS/INT96 columns carry; ntz read as UTC wall clock;
 * printed ISO-8601 with 'Z', 3/6/9 fraction digits as the value needs);
 * struct → object; array → array; map → Map. null for null.
 */
export type Row = Record<string, unknown>

/** What to read from a snapshot. */
export interface ReadOptions extends HttpOptions {
  /** Logical column names; default all top-level columns in schema order. */
  columns?: string[]
  /** Stop after this many rows (live rows, after deletion vectors). */
  limit?: number
}

/** Errors the reader raises carry the URL they concern; `code` tells what went wrong. */
export class TableError extends Error {
  constructor(
    message: string,
    readonly code: TableErrorCode,
    readonly url?: string,
  ) {
    super(message)
    this.name = 'TableError'
  }
}

/** Kinds of reader error; the CLI maps them to messages and the tests to expectations. */
export type TableErrorCode =
  | 'not-a-table' // no _delta_log / no commits found
  | 'version-not-found' // asked version/timestamp not in the log
  | 'unsupported-feature' // reader version or feature we don't implement (named in message)
  | 'catalog-managed' // table that cannot be read from its path alone
  | 'malformed-log' // a commit/checkpoint that doesn't parse
  | 'http' // 4xx/5xx after retries, timeout, network error
  | 'corrupt-file' // truncated/corrupt parquet or DV file
  | 'schema' // data file doesn't match the log's schema
  | 'changed-file' // a data file's ETag/size changed between two reads of one run
  | 'bad-response' // a server answered other bytes than the ones asked for
  | 'sharing' // a Delta Sharing profile, address or server answer that cannot be used (named in message)
  | 'access' // a governed table's credentials: refused, expired beyond renewal, or for another origin
