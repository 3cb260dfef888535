/**
 * The row reader: turns a Snapshot's live files into Rows (types.ts). Per file it fetches the
 * parquet footer once, reads only the needed columns (physical names) row group by row group,
 * drops rows named by the deletion vector, adds typed partition values and converts every value
 * to the Row types under its logical name.
 */
import { ParquetError } from '../parquet/errors.ts'
import { openParquetFile, readGroupValues, readMetadata, withRawTypes, type GroupValues } from '../parquet/file.ts'
import { schemaIndex } from '../parquet/group-read.ts'
import type { AsyncBuffer, FileMetaData, ParquetParsers, SchemaTree } from '../parquet/types.ts'
import { findParquetChild, partitionValueFor, physicalName } from './column-mapping.ts'
import { checkPhysicalType } from './physical-type.ts'
import { loadDeletionVector } from './deletion-vector.ts'
import { retryingFetch } from './http.ts'
import { FileMemory, type FileValidator } from './range-check.ts'
import { parsePartitionValue } from './partition-values.ts'
import { countDeletedIn, isDeleted } from './roaring.ts'
import { Timestamp } from './timestamp.ts'
import { convertValue } from './values.ts'
import {
  TableError,
  type AddFile,
  type HttpOptions,
  type ReadOptions,
  type Row,
  type Snapshot,
  type StructField,
  type StructType,
} from './types.ts'

/** One output column and where its values come from. */
export interface ColumnPlan {
  field: StructField
  /** Partition column: typed value shared by all rows of the file. */
  partition: boolean
  /** Data column: parquet node, or undefined when the file predates the column (reads null). */
  node?: SchemaTree
}

/** Files read at once by readRows. */
const FILE_CONCURRENCY = 4

/**
 * Timestamps exactly, as Timestamp (hyparquet's Dates would drop the microseconds, and its
 * truncation toward zero is off by one ms before 1970), and dates as day numbers (values.ts
 * formats them), see values.ts.
 */
const PARSERS: Partial<ParquetParsers> = {
  timestampFromMilliseconds: (ms: bigint) => Timestamp.fromMillis(ms),
  timestampFromMicroseconds: (us: bigint) => Timestamp.fromMicros(us),
  timestampFromNanoseconds: (ns: bigint) => Timestamp.fromNanos(ns),
  dateFromDays: (days: number) => days,
}

/**
 * Reads the live rows of a snapshot, files in snapshot order, rows in file order.
 * `opts.columns`: logical names (default all top-level columns); `opts.limit`: stop after that
 * many live rows. Throws TableError ('schema' for an unknown column, 'corrupt-file', 'http').
 */
export async function readRows(snapshot: Snapshot, opts: ReadOptions = {}): Promise<Row[]> {
  const limit = opts.limit ?? Infinity
  const rows: Row[] = []
  selectFields(snapshot, opts.columns) // unknown columns fail even for an empty table
  // A few files at a time hides per-request latency; with a limit, at most one window over-reads.
  for (let i = 0; i < snapshot.files.length && rows.length < limit; i += FILE_CONCURRENCY) {
    const window = snapshot.files.slice(i, i + FILE_CONCURRENCY)
    const remaining = limit - rows.length
    const parts = await Promise.all(
      window.map(file => collect(scanFile(snapshot, file, { ...opts, limit: remaining }))),
    )
    for (const row of parts.flat()) {
      if (rows.length >= limit) break
      rows.push(row)
    }
  }
  return rows
}

async function collect(batches: AsyncIterable<Row[]>): Promise<Row[]> {
  const rows: Row[] = []
  for await (const batch of batches) for (const row of batch) rows.push(row)
  return rows
}

/**
 * Reads one live file of a snapshot, yielding the live rows of each row group as one batch
 * (row groups whose rows are all deleted yield an empty batch). Honours `opts.limit`. `deleted`:
 * the file's deletion vector when the caller already loaded it (sorted deleted row indices), so
 * it is not fetched twice; otherwise it is loaded here.
 */
export async function* scanFile(
  snapshot: Snapshot,
  file: AddFile,
  opts: ReadOptions = {},
  deleted?: readonly number[],
  expected?: FileValidator,
): AsyncGenerator<Row[]> {
  let remaining = opts.limit ?? Infinity
  const fields = selectFields(snapshot, opts.columns)
  const buffer = await openFile(file, opts, snapshot.tableUrl, expected)
  const metadata = await readFooter(buffer, file.url)
  const plans = planColumns(snapshot, file, fields, schemaIndex(metadata).tree)
  const partitionRow = partitionValues(snapshot, file, plans)
  deleted ??= file.deletionVector
    ? await loadDeletionVector(file.deletionVector, snapshot.tableUrl, opts, file.url, Number(metadata.num_rows))
    : []
  const rawMetadata = withRawTypes(metadata)
  let groupStart = 0
  for (const [rowGroup, group] of metadata.row_groups.entries()) {
    if (remaining <= 0) return
    const groupRows = Number(group.num_rows)
    const allDeleted = countDeletedIn(deleted, groupStart, groupStart + groupRows) === groupRows
    const values = allDeleted ? undefined : await readGroup(buffer, rawMetadata, plans, rowGroup, file.url)
    const batch: Row[] = []
    for (let i = 0; i < groupRows && batch.length < remaining; i++) {
      if (deleted.length && isDeleted(deleted, groupStart + i)) continue
      batch.push(buildRow(values, i, plans, partitionRow, snapshot, file.url))
    }
    remaining -= batch.length
    groupStart += groupRows
    yield batch
  }
}

/** Fields to read, in the requested order; unknown names are a 'schema' error. */
function selectFields(snapshot: Snapshot, columns?: string[]): StructField[] {
  if (!columns) return snapshot.schema.fields
  return columns.map(name => {
    const field = schemaField(snapshot.schema, name)
    if (!field)
      throw new TableError(`${snapshot.tableUrl}: no column '${name}' in the table schema`, 'schema', snapshot.tableUrl)
    return field
  })
}

const FIELDS = new WeakMap<StructType, Map<string, StructField>>()

/** The top-level field named `name` (the first, as `find` would), from an index built once per schema. */
export function schemaField(schema: StructType, name: string): StructField | undefined {
  let index = FIELDS.get(schema)
  if (!index) {
    index = new Map()
    for (const f of schema.fields) if (!index.has(f.name)) index.set(f.name, f)
    FIELDS.set(schema, index)
  }
  return index.get(name)
}

/**
 * AsyncBuffer over the file URL with the size from the log (no HEAD request). Every request
 * goes through retryingFetch, so it has a timeout, retries and names the URL when it fails.
 */
export async function openFile(
  file: AddFile,
  opts: HttpOptions,
  tableUrl: string,
  expected?: FileValidator,
): Promise<AsyncBuffer> {
  const memory = new FileMemory()
  // The log's size is what the file must have; a different one is a rewritten file (range-check.ts).
  // `expected`: what an earlier read of the file saw, so a file replaced in between fails as changed.
  memory.expect(file.url, { ...expected, size: file.size })
  const fetch = retryingFetch(opts, tableUrl, memory) as typeof globalThis.fetch
  const buffer = await openParquetFile(file.url, file.size, fetch)
  opened.set(buffer, () => memory.known(file.url))
  return buffer
}

/** Validators of the files openFile opened, for fileValidator. */
const opened = new WeakMap<AsyncBuffer, () => FileValidator | undefined>()

/**
 * ETag/Last-Modified/size an openFile buffer has seen so far (after its footer read): the planner
 * hands it to the loader workers, which check their own reads against it.
 */
export function fileValidator(buffer: AsyncBuffer): FileValidator | undefined {
  return opened.get(buffer)?.()
}

/** Parses the footer; a parse failure is 'corrupt-file', an HTTP failure stays 'http'. */
export async function readFooter(buffer: AsyncBuffer, url: string): Promise<FileMetaData> {
  try {
    return await readMetadata(buffer)
  } catch (error) {
    throw asTableError(error, url, 'footer')
  }
}

/**
 * A read failure as a TableError: a TableError as it is, a ParquetError with its own message and
 * code, anything else (hyparquet's) as 'corrupt-file' naming `url` and `what` was being read.
 */
export function asTableError(error: unknown, url: string, what: string): TableError {
  if (error instanceof TableError) return error
  if (error instanceof ParquetError) return new TableError(error.message, error.code, error.url)
  const message = error instanceof Error ? error.message : String(error)
  return new TableError(`${url}: corrupt parquet ${what}: ${message}`, 'corrupt-file', url)
}

/** Resolves each field to a partition value or a parquet column (column mapping aware). */
export function planColumns(snapshot: Snapshot, file: AddFile, fields: StructField[], root: SchemaTree): ColumnPlan[] {
  const partitions = new Set(snapshot.partitionColumns)
  return fields.map(field => {
    if (partitions.has(field.name)) return { field, partition: true }
    const node = findParquetChild(root.children, field, snapshot.columnMapping)
    if (node) checkPhysicalType(file.url, field.name, field.type, node)
    if (!node && !field.nullable) {
      throw new TableError(
        `${file.url}: non-nullable column '${field.name}' (physical '${physicalName(field, snapshot.columnMapping)}') is missing from the file`,
        'schema',
        file.url,
      )
    }
    return { field, partition: false, node }
  })
}

/** Typed partition values of one file, keyed by logical name. */
export function partitionValues(snapshot: Snapshot, file: AddFile, plans: ColumnPlan[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const { field, partition } of plans) {
    if (!partition) continue
    const raw = partitionValueFor(file.partitionValues, field, snapshot.columnMapping)
    out[field.name] = parsePartitionValue(raw, field.type, field.name)
  }
  return out
}

/**
 * Reads the data columns of row group `rowGroup` (pages checked before decoding, group-read.ts);
 * undefined when no data column is needed.
 */
export async function readGroup(
  buffer: AsyncBuffer,
  metadata: FileMetaData,
  plans: ColumnPlan[],
  rowGroup: number,
  url: string,
): Promise<GroupValues | undefined> {
  const columns = new Set(plans.flatMap(p => (p.node ? [p.node.element.name] : [])))
  try {
    return await readGroupValues(buffer, metadata, columns, rowGroup, url, PARSERS)
  } catch (error) {
    throw asTableError(error, url, `data (row group ${rowGroup})`)
  }
}

/** Row `i` of a row group's decoded values (undefined: no data column read) plus the file's partition values. */
export function buildRow(
  values: GroupValues | undefined,
  i: number,
  plans: ColumnPlan[],
  partitionRow: Record<string, unknown>,
  snapshot: Snapshot,
  url: string,
): Row {
  const row: Row = {}
  for (const { field, partition, node } of plans) {
    if (partition) row[field.name] = partitionRow[field.name]
    else if (!node || !values) row[field.name] = null
    else {
      const ctx = { url, column: field.name, mode: snapshot.columnMapping }
      row[field.name] = convertValue(values.get(node.element.name)![i], field.type, node, ctx)
    }
  }
  return row
}
