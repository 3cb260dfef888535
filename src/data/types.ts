/**
 * Types of the data path (src/data, src/workers/loader*): scan plan → units → per-epoch
 * assignment → cursor → decoded columnar batches. This file is the contract between the planner,
 * the assignment/shuffle/cursor modules, the decoders and the loader workers.
 *
 * Row position: (file path as in the log, file-relative row index in the parquet file). Every
 * module speaks of rows by (unit id, index into the unit's live rows), which maps to a position
 * through the unit. The seeded validation split does not use positions (a share's files have no
 * Delta path): it keys rows by their values (row-key.ts).
 */
import type { FileMetaData } from '../parquet/types.ts'
import type { HttpOptions, ShareOrigin, StructField } from '../table/types.ts'
import type { FileValidator } from '../table/range-check.ts'

/** A parsed row filter. Column names are logical; literals are typed at parse time. */
export type FilterExpr =
  | { kind: 'compare'; op: '=' | '!=' | '<' | '<=' | '>' | '>='; column: string; value: Literal }
  | { kind: 'in'; column: string; values: Literal[]; negated: boolean }
  | { kind: 'null'; column: string; negated: boolean } // IS NULL / IS NOT NULL
  | { kind: 'and' | 'or'; left: FilterExpr; right: FilterExpr }
  | { kind: 'not'; expr: FilterExpr }

/**
 * A literal in a filter: number (int or float), string, date ('YYYY-MM-DD' via DATE '…'),
 * timestamp (ISO-8601 UTC string as Timestamp prints it, with µs or ns digits when the literal has
 * them, via TIMESTAMP '…'), boolean (TRUE/FALSE).
 */
export type Literal =
  /** `text`: the literal as written (sign included), for exact long and decimal comparisons. */
  | { type: 'number'; value: number; text?: string }
  | { type: 'string'; value: string }
  | { type: 'date'; value: string }
  | { type: 'timestamp'; value: string }
  | { type: 'boolean'; value: boolean }

/**
 * Value range of one column over a set of rows (a partition value, a file's Delta stats, a
 * row group's Parquet statistics), with min/max already in Row value types (table/types.ts Row).
 * Absent bounds are unknown; bounds may be loose but never tighter than the data.
 */
export interface ColumnRange {
  min?: unknown
  max?: unknown
  /** Null rows; undefined = unknown; ≥ rowCount (or Infinity) = all null. */
  nullCount?: number
  /** NaN may occur (float/double): NaN rows sort above every number and escape min/max. */
  nan?: boolean
}

/** Ranges of the columns of a set of rows, keyed by logical column name; missing = unknown. */
export interface ColumnRangeStats {
  rowCount?: number
  columns: Record<string, ColumnRange | undefined>
}

/** What to scan: columns and an optional filter over one snapshot. */
export interface PlanOptions extends HttpOptions {
  /** Logical columns to deliver (default: all top-level columns). */
  columns?: string[]
  /** Filter expression string (parsed with parseFilter) — column names are logical. */
  filter?: string
  /** Label column; must be among the delivered columns (added when missing). */
  label?: string
  /**
   * Largest unit, in rows: row groups larger than this are cut into row ranges so work spreads
   * over workers (default 65 536).
   */
  maxUnitRows?: number
}

/** A live data file of the plan, with its parquet footer (fetched once, shared by workers). */
export interface PlanFile {
  /** Index in plan.files. */
  index: number
  /** Path as written in the log (the identity printed by `--format ids`). */
  path: string
  url: string
  /** Bytes. */
  size: number
  /** Typed partition values keyed by logical column name. */
  partitionValues: Record<string, unknown>
  metadata: FileMetaData
  /**
   * ETag/Last-Modified/size seen when the footer was read; loader workers check their reads
   * against it, so a file rewritten after planning fails the read instead of mixing versions.
   */
  validator?: FileValidator
}

/**
 * The smallest piece of work: rows [rowStart, rowEnd) of one row group of one file, with the
 * rows deleted by the deletion vector or rejected by the filter already removed, so its exact
 * live row count is known before any feature column is read.
 */
export interface Unit {
  /** Index in plan.units (table order: files by footer fingerprint (plan.ts), then row group, then row range). */
  id: number
  fileIndex: number
  rowGroup: number
  /** File-relative row index of the first row of the range. */
  rowStart: number
  /** Exclusive end. */
  rowEnd: number
  /**
   * File-relative indices of the live rows in [rowStart, rowEnd), ascending; absent when every
   * row of the range is live.
   */
  live?: Uint32Array
  /** Number of live rows (live?.length ?? rowEnd − rowStart). */
  liveRows: number
}

/** What pruning did, reported by plan, CLI and bench. */
export interface PlanStats {
  filesTotal: number
  filesPruned: number
  rowGroupsTotal: number
  rowGroupsPruned: number
  /** Live rows after deletion vectors, before the filter. */
  rowsBeforeFilter: number
  /** Live rows after deletion vectors and the filter. */
  rows: number
}

/** A scan plan: the exact set of rows a training run sees. Pure data (structured-cloneable). */
export interface ScanPlan {
  tableUrl: string
  version: number
  columns: string[]
  filter?: string
  label?: string
  files: PlanFile[]
  units: Unit[]
  stats: PlanStats
  /**
   * Delta types and column mapping of the delivered columns (added for the decoders; P3). When
   * absent (hand-built plans) columns are read by their parquet names and decoded by parquet type.
   */
  schema?: PlanSchema
  /**
   * Stable digest of (table URL, version, file paths + sizes, columns, filter, unit live rows):
   * a cursor made for another plan is refused by comparing it.
   */
  digest: string
  /** A shared table's coordinates and the server's ids of the plan's files (never URLs or tokens). */
  share?: ShareOrigin
  /**
   * Key columns of the row key (src/data/row-key.ts), set by a run that splits off validation
   * rows: the unit reader then reads them too and every batch carries Batch.keys. Not part of the
   * digest: it changes no delivered row.
   */
  rowKey?: StructField[]
}

/** How an epoch is cut into ranks: `drop_last` and `pad` give equal counts, `all` keeps every row once. */
export type ShardMode = 'drop_last' | 'pad' | 'all'

/** How epochs are cut into ranks and ordered. */
export interface AssignOptions {
  /** Shuffle seed; undefined = no shuffling (table order). */
  seed?: number
  epoch: number
  worldSize: number
  rank: number
  /**
   * Equal per-rank counts by dropping the tail (default) or repeating rows from the start, or
   * `all`: every row exactly once, the first N mod worldSize ranks one row longer.
   */
  mode?: ShardMode
  /** Rows per shuffle window within a rank's stream (default 16 384; 0 = unit order only). */
  shuffleBuffer?: number
}

/** A rank's row stream for one epoch: `length` rows, addressed by position 0 … length-1. */
export interface RankStream {
  length: number
  /** Rows of the whole epoch dropped (drop_last) to make ranks equal; same for every rank. */
  rowsDropped: number
  /** Rows repeated (pad) to make ranks equal. */
  rowsPadded: number
  /** Rows per shuffle window actually used. */
  shuffleBuffer: number
}

/** Where a run stands; JSON-serialisable. Resuming yields exactly the rows not yet delivered. */
export interface Cursor {
  tableUrl: string
  version: number
  planDigest: string
  seed?: number
  epoch: number
  worldSize: number
  rank: number
  mode: ShardMode
  shuffleBuffer: number
  /** Rows of this rank's epoch stream already delivered. */
  position: number
}

/** How a column is decoded into a typed array. */
export type ColumnEncoding =
  | 'float32' // Float32Array, null → NaN (numbers, booleans, dates as days)
  | 'int32' // Int32Array (null → error naming the column)
  | 'uint32' // Uint32Array
  | 'hash32' // Uint32Array: stable 32-bit hash of the value (strings, int64 ids)
  | 'bool' // Uint8Array 0/1 (null → error)
  | 'fixed_list' // Float32Array n × length (length from the first row / schema; nulls → NaN)
  | 'var_list' // offsets Uint32Array (n + 1) + values Float32Array
  | 'hash_list' // offsets Uint32Array (n + 1) + values Uint32Array of item hashes (as hash32); null row → empty, null item skipped
  | 'utf8' // strings, nulls kept: offsets Uint32Array (n + 1) + values Uint8Array; a row is byte 1 then its UTF-8 bytes, a null row is empty (decode.ts utf8Strings)

/** One decoded column of a batch. */
export interface DecodedColumn {
  name: string
  encoding: ColumnEncoding
  values: Float32Array | Int32Array | Uint32Array | Uint8Array
  /** fixed_list: elements per row. */
  length?: number
  /** var_list / hash_list: n + 1 offsets into values. */
  offsets?: Uint32Array
}

/** A columnar batch of rows, in delivery order. */
export interface Batch {
  /** Rows in the batch. */
  size: number
  /** Position of the batch's first row in the rank's epoch stream. */
  position: number
  epoch: number
  columns: Record<string, DecodedColumn>
  /** Row identities, when asked for: unit id and file-relative row index per row. */
  ids?: { unit: Uint32Array; row: Uint32Array }
  /** Row keys (src/data/row-key.ts), when the plan has rowKey columns. */
  keys?: Uint32Array
}

/** Column decoding requests: logical column → encoding (default chosen from the Delta type). */
export type DecodeSpec = Record<string, ColumnEncoding>

/**
 * A contiguous run of one unit's live rows in a rank's pre-shuffle sequence (added by the
 * assignment module, src/data/stream.ts). The loader reads segments; the bounded-buffer shuffle
 * then only permutes rows within windows, so a segment's rows are delivered at stream positions
 * [needFrom, needTo).
 */
export interface RankSegment {
  /** Unit id (index in plan.units). */
  unit: number
  /** Live-row index range [start, end) within the unit. */
  start: number
  end: number
  /** Pre-shuffle position, in the rank's stream, of the segment's first row. */
  position: number
  /** Stream positions during which the segment's rows may be delivered (whole shuffle windows). */
  needFrom: number
  needTo: number
}

/** A rank's epoch stream with the queries the loader and the CLI need (see rankStream). */
export interface RankStreamView extends RankStream {
  /**
   * The validated options the stream was built from (defaults filled in; shuffleBuffer is the
   * window actually used: 0 without a seed, at most the stream length).
   */
  options: Required<Omit<AssignOptions, 'seed'>> & { seed?: number }
  /** Rows at stream positions [start, end): unit id and live-row index, each length end − start. */
  rowsAt(start: number, end: number): { unit: Uint32Array; index: Uint32Array }
  /**
   * Unit ids whose rows may be delivered at positions [start, end), each once, in pre-shuffle
   * order (= first-need order up to whole shuffle windows). Exact without intra-window shuffling;
   * with it, every unit of the shuffle windows the range touches (a superset of what rowsAt uses).
   */
  unitsFor(start: number, end: number): number[]
  /** Every unit id the rank reads this epoch, each once, in pre-shuffle order. */
  unitsInOrder(): number[]
  /** The rank's segments, in pre-shuffle order. */
  segments(): RankSegment[]
}

/** Logical schema of a plan's delivered columns: what the decoders need besides the footers. */
export interface PlanSchema {
  /** Delta fields of plan.columns, same order (types + delta.columnMapping.* metadata). */
  fields: StructField[]
  columnMapping: 'none' | 'name' | 'id'
  /** Logical names of the table's partition columns (values come from plan.files[i].partitionValues). */
  partitionColumns: string[]
}

/** Where the time of one unit read went, in ms (fetch and decode do not overlap: bytes first). */
export interface UnitTiming {
  /**
   * Waiting for the unit's byte ranges (all requests of the unit, retries included) while the
   * reader had nothing else to do: latency that passed while it decoded other units is not counted.
   */
  fetchMs: number
  /** Parquet decoding + conversion to typed arrays. */
  decodeMs: number
  /** Bytes fetched for the unit. */
  bytes: number
  /** Wall-clock ms (performance.timeOrigin + now()) when a worker handed the unit over. */
  sentAt?: number
  /** Wall-clock ms when the loader's thread received the unit (transfer = receivedAt − sentAt). */
  receivedAt?: number
}

/** One unit read and decoded by a loader worker: its live rows in unit order. */
export interface DecodedUnit {
  unitId: number
  /** Rows (= unit.liveRows). */
  rows: number
  /** Delivered columns keyed by logical name, each with `rows` entries (× length for lists). */
  columns: Record<string, DecodedColumn>
  /** File-relative row index of each row, when asked for. */
  rowIds?: Uint32Array
  /** Row key of each row, when the plan has rowKey columns (src/data/row-key.ts). */
  keys?: Uint32Array
  timing: UnitTiming
}

/** Counters of a loader (summed over its workers), for the bench and the UI. */
export interface LoaderStats {
  workers: number
  unitsRead: number
  rowsDelivered: number
  batchesDelivered: number
  /** Bytes of typed arrays delivered in batches. */
  bytesDelivered: number
  /** Bytes fetched from the table. */
  bytesFetched: number
  /** Sum over units of UnitTiming.fetchMs / decodeMs (work time, may overlap across workers). */
  fetchMs: number
  decodeMs: number
  /** Time spent moving decoded units from workers to the loader (worker hand-over to arrival), ms. */
  transferMs: number
  /** Time batches() spent waiting for units not yet decoded, ms. */
  waitMs: number
  /** Time batches() spent assembling batches on the loader's thread (row order + gather), ms. */
  assembleMs?: number
  /** Largest number of decoded bytes held at once (cache + in flight estimate). */
  peakBytes: number
  /**
   * Units served by the epoch cache (unit-cache.ts; memory or spill store): nothing fetched for
   * them. With the cache on, cacheHits + cacheMisses = unitsRead (units read ahead and never
   * delivered count in neither).
   */
  cacheHits: number
  /** Units the epoch cache did not hold (read, then stored); 0 with the cache off. */
  cacheMisses: number
  /** Decoded bytes of the units served by the epoch cache. */
  bytesFromCache: number
  /** Files asked once whether they changed before their first cache hit (one 2-byte ranged GET each; never a share's). */
  revalidations: number
}
