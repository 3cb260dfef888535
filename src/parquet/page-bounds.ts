/**
 * Declared sizes checked before anything is allocated for them. A Parquet page states its own
 * uncompressed size and value count, and the decoders allocate what it states, so a 138-byte file
 * can ask for 2 GiB. The checks, per column chunk of a row group:
 *
 * - the chunk's value count is at most the row group's rows (columns that do not repeat);
 * - fixed-width types (BOOLEAN…FIXED_LEN_BYTE_ARRAY) have an upper bound per value, so the
 *   chunk's `total_uncompressed_size` must fit its value count (plus page headers and levels);
 * - every page's `uncompressed_page_size` fits the chunk's total (and their sum does too), the
 *   page cap `maxPageBytes`, and for fixed widths the page's own value count; value counts of the
 *   pages add up to at most the chunk's, and one page holds at most maxPageBytes / 8 values.
 *
 * BYTE_ARRAY values have no bound by type, so their pages are held to the chunk's sizes and the
 * cap. codecs.ts then decompresses into exactly the declared size.
 */
import type { ColumnMetaData, PageHeader, SchemaTree } from 'hyparquet'
import { parquetHeader } from 'hyparquet/src/column.js'
import { ParquetError } from './errors.ts'

/** Caps on what a page may declare. */
export interface PageLimits {
  /** Largest uncompressed page, any type (bytes); default 128 MiB, in Node also `SNAPTRAIN_MAX_PAGE_BYTES`. */
  maxPageBytes: number
}

/** Default page cap: far above what writers produce (1 MiB pages), below what would hurt a tab. */
export const DEFAULT_MAX_PAGE_BYTES = 128 * 1024 * 1024

/** The limits in force: `overrides`, else the environment (Node), else the defaults. */
export function pageLimits(overrides: Partial<PageLimits> = {}): PageLimits {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
  const fromEnv = Number(env?.SNAPTRAIN_MAX_PAGE_BYTES)
  return { maxPageBytes: overrides.maxPageBytes ?? (fromEnv > 0 ? fromEnv : DEFAULT_MAX_PAGE_BYTES) }
}

/** Bytes per value of a fixed-width physical type (BOOLEAN counted as a byte); undefined for BYTE_ARRAY. */
export function valueWidth(meta: ColumnMetaData, leaf: SchemaTree): number | undefined {
  switch (meta.type) {
    case 'BOOLEAN':
      return 1
    case 'INT32':
    case 'FLOAT':
      return 4
    case 'INT64':
    case 'DOUBLE':
      return 8
    case 'INT96':
      return 12
    case 'FIXED_LEN_BYTE_ARRAY':
      return leaf.element.type_length ?? 0
    default:
      return undefined
  }
}

/**
 * Room per value beyond the value itself: two level streams and dictionary indices at their
 * worst RLE run lengths. Per page: a header with statistics of two values and small fields.
 */
const LEVEL_BYTES_PER_VALUE = 16
const PAGE_HEADER_BYTES = 256
/** Slack for a chunk's headers, dictionary page and writer quirks, so small chunks never trip the bound. */
const CHUNK_SLACK_BYTES = 64 * 1024

/** Where a chunk is, for messages. */
export interface ChunkContext {
  url: string
  column: string
}

/**
 * Checks one column chunk: its footer sizes against the row group (`rows`) and type, then every
 * page header in `bytes` (the chunk's bytes, first page header to chunk end) against the chunk.
 * `schemaPath`: root to leaf. Throws ParquetError('corrupt-file') naming the file, column and limit.
 */
export function checkChunk(
  bytes: Uint8Array,
  meta: ColumnMetaData,
  rows: number,
  schemaPath: SchemaTree[],
  ctx: ChunkContext,
  limits: PageLimits,
): void {
  const leaf = schemaPath[schemaPath.length - 1]
  const repeated = schemaPath.some(node => node.element.repetition_type === 'REPEATED')
  const values = Number(meta.num_values)
  const total = Number(meta.total_uncompressed_size)
  const fail = (what: string): never => {
    throw new ParquetError(`${ctx.url}: column '${ctx.column}': ${what}`, 'corrupt-file', ctx.url)
  }
  if (!repeated && values > rows) fail(`the chunk declares ${values} values, the row group has ${rows} rows`)
  const width = valueWidth(meta, leaf)
  if (width !== undefined) {
    const bound = values * (6 * width + PAGE_HEADER_BYTES + LEVEL_BYTES_PER_VALUE) + CHUNK_SLACK_BYTES
    if (total > bound) {
      fail(
        `the chunk declares ${total} uncompressed bytes, over the ${bound} that ${values} ${meta.type} values can take`,
      )
    }
  }
  checkPages(bytes, { meta, values, total, width, limits, fail })
}

interface PageCheck {
  meta: ColumnMetaData
  values: number
  total: number
  width?: number
  limits: PageLimits
  fail: (what: string) => never
}

/** Walks the page headers of a chunk (no decompression) and checks each against the chunk. */
function checkPages(bytes: Uint8Array, c: PageCheck): void {
  const reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 }
  let uncompressed = 0
  let values = 0
  while (reader.offset < bytes.byteLength - 1) {
    const at = reader.offset
    let header: PageHeader
    try {
      header = parquetHeader(reader)
    } catch (error) {
      return c.fail(
        `unreadable page header at chunk byte ${at}: ${error instanceof Error ? error.message : String(error)}`,
      )
    }
    const page = `page at chunk byte ${at}`
    const size = header.uncompressed_page_size
    if (!(header.compressed_page_size >= 0) || reader.offset + header.compressed_page_size > bytes.byteLength) {
      c.fail(`${page} declares ${header.compressed_page_size} compressed bytes, past the chunk's end`)
    }
    if (!(size >= 0) || size > c.limits.maxPageBytes) {
      c.fail(
        `${page} declares ${size} uncompressed bytes, over the page cap of ${c.limits.maxPageBytes} (maxPageBytes)`,
      )
    }
    uncompressed += size
    if (uncompressed > c.total) {
      c.fail(`${page} declares ${size} uncompressed bytes, past the chunk's total_uncompressed_size of ${c.total}`)
    }
    const count = pageValues(header)
    if (count > c.limits.maxPageBytes / 8) {
      c.fail(`${page} declares ${count} values, over the ${c.limits.maxPageBytes / 8} one page may hold`)
    }
    if (header.type !== 'DICTIONARY_PAGE') values += count
    if (count > c.values || values > c.values)
      c.fail(`${page} brings the chunk to ${values} values, it declares ${c.values}`)
    checkPageSize(header, count, page, c)
    reader.offset += header.compressed_page_size
  }
}

/** The values a page header declares (data pages v1/v2, dictionary pages). */
function pageValues(header: PageHeader): number {
  return (
    header.data_page_header?.num_values ??
    header.data_page_header_v2?.num_values ??
    header.dictionary_page_header?.num_values ??
    0
  )
}

/** A page's uncompressed size against what its values can take (fixed widths) or need (dictionaries). */
function checkPageSize(header: PageHeader, count: number, page: string, c: PageCheck): void {
  const size = header.uncompressed_page_size
  const v2 = header.data_page_header_v2
  if (
    v2 &&
    v2.definition_levels_byte_length + v2.repetition_levels_byte_length > Math.min(size, header.compressed_page_size)
  ) {
    c.fail(`${page} declares level bytes beyond its own size`)
  }
  if (header.type === 'DICTIONARY_PAGE') {
    // Plain dictionary values: the fixed width each, or a 4-byte length prefix for BYTE_ARRAY.
    if (count * (c.width ?? 4) > size) c.fail(`${page} declares ${count} dictionary values in ${size} bytes`)
    if (c.width !== undefined && size > count * c.width + PAGE_HEADER_BYTES) {
      c.fail(`${page} declares ${size} uncompressed bytes for ${count} ${c.meta.type} dictionary values`)
    }
  } else if (c.width !== undefined) {
    const bound = count * (c.width + LEVEL_BYTES_PER_VALUE) + PAGE_HEADER_BYTES
    if (size > bound) {
      c.fail(
        `${page} declares ${size} uncompressed bytes, over the ${bound} that ${count} ${c.meta.type} values can take`,
      )
    }
  }
}
