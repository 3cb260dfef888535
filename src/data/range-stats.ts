/**
 * Value ranges for pruning (types.ts ColumnRangeStats), from the three places a plan finds them:
 * typed partition values (min = max), the add action's Delta stats (JSON: longs as numbers,
 * dates/timestamps as strings, strings possibly truncated) and Parquet row-group statistics (as
 * hyparquet decodes them, under physical column names). Every bound is converted to the Row value
 * type of the column's Delta type; anything uncertain is left out (unknown never prunes).
 */
import type { FileMetaData, SchemaElement, SchemaTree } from '../parquet/types.ts'
import { findParquetChild, partitionValueFor } from '../table/column-mapping.ts'
import { parsePartitionValue } from '../table/partition-values.ts'
import { Timestamp } from '../table/timestamp.ts'
import { schemaField } from '../table/rows.ts'
import { formatDays } from '../table/values.ts'
import type { AddFile, DeltaType, Snapshot } from '../table/types.ts'
import { groupChunks, schemaIndex } from '../parquet/group-read.ts'
import type { ColumnRange, ColumnRangeStats } from './types.ts'

/**
 * Delta truncates string stats to a 32-character prefix (dataSkippingStringPrefixLength); a max that
 * long may be below the real max, so it is dropped. A min prefix stays a valid lower bound.
 */
const STRING_PREFIX = 32
const MS_PER_DAY = 86_400_000

/** Typed partition values of a file, keyed by logical name (null for a null partition). */
export function filePartitionValues(snapshot: Snapshot, file: AddFile): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const name of snapshot.partitionColumns) {
    const field = schemaField(snapshot.schema, name)
    if (!field) continue
    const raw = partitionValueFor(file.partitionValues, field, snapshot.columnMapping)
    out[name] = parsePartitionValue(raw, field.type, name)
  }
  return out
}

/** Adds partition columns as exact ranges (every row of the file has the same value). */
export function withPartitions(stats: ColumnRangeStats, partitions: Record<string, unknown>): ColumnRangeStats {
  const columns = { ...stats.columns }
  for (const [name, value] of Object.entries(partitions)) {
    columns[name] = value === null ? { nullCount: Infinity } : { min: value, max: value, nullCount: 0 }
  }
  return { rowCount: stats.rowCount, columns }
}

/** Ranges from the add action's `stats` (empty when the file has none). */
export function deltaFileStats(snapshot: Snapshot, file: AddFile): ColumnRangeStats {
  const stats = file.stats
  const columns: Record<string, ColumnRange> = {}
  if (!stats) return { columns }
  for (const field of snapshot.schema.fields) {
    if (typeof field.type !== 'string') continue
    const nulls = stats.nullCount?.[field.name]
    columns[field.name] = {
      min: fromDelta(stats.minValues?.[field.name], field.type, 'min'),
      max: fromDelta(stats.maxValues?.[field.name], field.type, 'max'),
      nullCount: typeof nulls === 'number' ? nulls : undefined,
      nan: isFloating(field.type),
    }
  }
  return { rowCount: stats.numRecords, columns }
}

/** Ranges from the Parquet statistics of one row group (column mapping aware). */
export function rowGroupStats(snapshot: Snapshot, metadata: FileMetaData, rowGroup: number): ColumnRangeStats {
  const group = metadata.row_groups[rowGroup]
  const rowCount = Number(group.num_rows)
  const root = schemaOf(metadata)
  const partitions = new Set(snapshot.partitionColumns)
  const columns: Record<string, ColumnRange> = {}
  for (const field of snapshot.schema.fields) {
    if (typeof field.type !== 'string' || partitions.has(field.name)) continue
    const node = findParquetChild(root.children, field, snapshot.columnMapping)
    if (!node) {
      columns[field.name] = { nullCount: rowCount }
      continue
    } // column added later: all null
    const chunk = groupChunks(group)
      .get(node.element.name)
      ?.find(c => c.meta_data?.path_in_schema.length === 1)
    const s = chunk?.meta_data?.statistics
    if (!s) continue
    // Deprecated min/max were written with signed comparison: right for signed ints, dates and
    // booleans, wrong for strings/bytes and unsigned ints, so only used for the former.
    const legacy = chunk.meta_data && signedOrder(chunk.meta_data.type, node.element)
    columns[field.name] = {
      min: fromParquet(s.min_value ?? (legacy ? s.min : undefined), field.type, 'min'),
      max: fromParquet(s.max_value ?? (legacy ? s.max : undefined), field.type, 'max'),
      nullCount: s.null_count === undefined ? undefined : Number(s.null_count),
      nan: isFloating(field.type),
    }
  }
  return { rowCount, columns }
}

/** parquetSchema builds a tree per call; row groups of one footer share one (group-read.ts). */
function schemaOf(metadata: FileMetaData): SchemaTree {
  return schemaIndex(metadata).tree
}

function signedOrder(type: string, element: SchemaElement): boolean {
  // Floats excluded too: old writers let NaN corrupt float min/max (PARQUET-1222).
  if (type !== 'INT32' && type !== 'INT64' && type !== 'BOOLEAN') return false
  const unsigned =
    element.converted_type?.startsWith('UINT') ||
    (element.logical_type?.type === 'INTEGER' && !element.logical_type.isSigned)
  return !unsigned && element.converted_type !== 'DECIMAL' && element.logical_type?.type !== 'DECIMAL'
}

function isFloating(type: string): boolean {
  return type === 'float' || type === 'double'
}

/** A Delta JSON stat → Row value type, or undefined when unusable. */
function fromDelta(value: unknown, type: DeltaType, side: 'min' | 'max'): unknown {
  if (value === null || value === undefined) return undefined
  switch (type) {
    case 'long':
      return typeof value === 'number' && Number.isSafeInteger(value) ? BigInt(value) : undefined
    case 'byte':
    case 'short':
    case 'integer':
      return typeof value === 'number' ? value : undefined
    case 'float':
    case 'double':
      return typeof value === 'number' && Number.isFinite(value) ? value : undefined
    case 'boolean':
      return typeof value === 'boolean' ? value : undefined
    case 'string':
      return typeof value === 'string' ? truncatedString(value, side) : undefined
    case 'date':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : undefined
    case 'timestamp':
    case 'timestamp_ntz':
      return typeof value === 'string' ? deltaTimestamp(value, side) : undefined
  }
  return undefined // decimals (lossy in JSON), binary: no pruning
}

/** A Parquet statistic as hyparquet decodes it → Row value type, or undefined when unusable. */
function fromParquet(value: unknown, type: DeltaType, side: 'min' | 'max'): unknown {
  if (value === null || value === undefined) return undefined
  switch (type) {
    case 'long':
      return typeof value === 'bigint'
        ? value
        : typeof value === 'number' && Number.isSafeInteger(value)
          ? BigInt(value)
          : undefined
    case 'byte':
    case 'short':
    case 'integer':
      return typeof value === 'number' ? value : typeof value === 'bigint' ? Number(value) : undefined
    case 'float':
    case 'double':
      return typeof value === 'number' && Number.isFinite(value) ? value : undefined
    case 'boolean':
      return typeof value === 'boolean' ? value : undefined
    case 'string':
      return typeof value === 'string' ? truncatedString(value, side) : undefined
    case 'date':
      return value instanceof Date
        ? formatDays(Math.floor(value.getTime() / MS_PER_DAY))
        : typeof value === 'number'
          ? formatDays(value)
          : undefined
    case 'timestamp':
    case 'timestamp_ntz':
      return parquetTimestamp(value, side)
  }
  return undefined
}

function truncatedString(value: string, side: 'min' | 'max'): string | undefined {
  return side === 'max' && [...value].length >= STRING_PREFIX ? undefined : value
}

/** Microseconds a millisecond-precision bound may be off by: the rest of that millisecond. */
const SUB_MS = 999n

/**
 * Delta JSON stats print timestamps at ms precision, dropping the µs (Spark truncates, so a max
 * of 4.000Z covers rows up to 4.000999 s; Delta readers add those 999 µs to every timestamp max).
 * The min is widened the same way because a truncation toward zero (checkpoint stats decoded by
 * hyparquet, pre-1970 instants) raises it. A stat printed with sub-ms digits is exact.
 */
function deltaTimestamp(text: string, side: 'min' | 'max'): Timestamp | undefined {
  const t = Timestamp.parse(text)
  if (!t || /\.\d{4,}/.test(text)) return t
  return new Timestamp(side === 'min' ? t.micros - SUB_MS : t.micros + SUB_MS)
}

/**
 * Parquet statistics come from hyparquet's default parsers: a Date of the value truncated toward
 * zero to ms, so the real bound lies within 999 µs either side of it. A Timestamp (a footer read
 * with exact parsers) is the bound itself.
 */
function parquetTimestamp(value: unknown, side: 'min' | 'max'): Timestamp | undefined {
  if (value instanceof Timestamp) return value
  const ms = value instanceof Date ? value.getTime() : NaN
  if (Number.isNaN(ms)) return undefined
  const micros = BigInt(ms) * 1000n
  return new Timestamp(side === 'min' ? micros - SUB_MS : micros + SUB_MS)
}
