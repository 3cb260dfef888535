/**
 * Parquet files as the rest of src/ opens and reads them: a ranged byte source over a URL, the
 * footer, the footer seen with raw DECIMAL/MAP types, one row group's columns as one value per
 * row, and whole-file reads into row objects (checkpoints). Fetching is the caller's (`fetch`:
 * table/http.ts's retrying fetch, with its range checks); errors are hyparquet's or
 * ParquetError, and the caller names them as its own (table/rows.ts asTableError).
 */
import {
  asyncBufferFromUrl,
  cachedAsyncBuffer,
  parquetMetadataAsync,
  parquetReadObjects,
  parquetSchema,
  type AsyncBuffer,
  type DecodedArray,
  type FileMetaData,
  type ParquetParsers,
} from 'hyparquet'
import { flatten } from 'hyparquet/src/utils.js'
import { compressors } from './codecs.ts'
import { fetchGroup, readGroupColumns } from './group-read.ts'

/**
 * A byte source over the file at `url` of `byteLength` bytes (the log's size: no HEAD request;
 * undefined: asked of the server),
 * every read through `fetch`; `cached`: slices kept for the buffer's life (footers and one-off
 * reads; a loader keeps its own per-unit bytes instead, unit-bytes.ts).
 */
export async function openParquetFile(
  url: string,
  byteLength: number | undefined,
  fetch: typeof globalThis.fetch,
  cached = true,
): Promise<AsyncBuffer> {
  const buffer = await asyncBufferFromUrl({ url, byteLength, fetch })
  return cached ? cachedAsyncBuffer(buffer) : buffer
}

/** The file's footer (hyparquet's parse errors as they are). */
export function readMetadata(buffer: AsyncBuffer): Promise<FileMetaData> {
  return parquetMetadataAsync(buffer)
}

/** Names of the file's top-level columns. */
export function topLevelNames(metadata: FileMetaData): string[] {
  return parquetSchema(metadata).children.map(c => c.element.name)
}

/**
 * Copy of the footer whose DECIMAL and MAP annotations are removed, so hyparquet hands back
 * unscaled integers/bytes (its decimals are lossy floats) and key/value entry lists (its maps are
 * objects with string keys). table/values.ts rebuilds exact decimals and Maps from these.
 */
export function withRawTypes(metadata: FileMetaData): FileMetaData {
  const schema = metadata.schema.map(element => {
    const raw =
      element.converted_type === 'DECIMAL' ||
      element.converted_type === 'MAP' ||
      element.logical_type?.type === 'DECIMAL' ||
      element.logical_type?.type === 'MAP'
    return raw ? { ...element, converted_type: undefined, logical_type: undefined } : element
  })
  return { ...metadata, schema }
}

/** Decoded values of a row group's columns, keyed by parquet top-level name; one entry per row. */
export type GroupValues = Map<string, DecodedArray>

/**
 * Every row of `columns` (top-level parquet names) in row group `rowGroup`, pages checked before
 * decoding (group-read.ts), strings as bytes (`utf8: false`) and values through `parsers`;
 * undefined when no column is asked or the group is empty. Throws when a column is missing or short.
 */
export async function readGroupValues(
  buffer: AsyncBuffer,
  metadata: FileMetaData,
  columns: ReadonlySet<string>,
  rowGroup: number,
  url: string,
  parsers: Partial<ParquetParsers>,
): Promise<GroupValues | undefined> {
  const rows = Number(metadata.row_groups[rowGroup].num_rows)
  if (!columns.size || !rows) return undefined
  const bytes = await fetchGroup(buffer, metadata, rowGroup, columns, url)
  const select = { groupStart: 0, selectStart: 0, selectEnd: rows }
  const decoded = readGroupColumns(bytes, metadata, rowGroup, select, columns, { utf8: false, parsers })
  const values: GroupValues = new Map()
  for (const name of columns) {
    const column = decoded.get(name)
    if (!column) throw new Error(`parquet column not found: ${name}`)
    const flat = flatten(column.data)
    if (column.skipped || flat.length < rows) throw new Error(`column ${name} holds ${flat.length} of ${rows} rows`)
    values.set(name, flat)
  }
  return values
}

/** Every row of `columns` of a (small) file as objects keyed by column name, bounded codecs. */
export function readObjects(
  file: AsyncBuffer,
  metadata: FileMetaData,
  columns: string[],
): Promise<Record<string, unknown>[]> {
  return parquetReadObjects({ file, metadata, columns, compressors })
}
