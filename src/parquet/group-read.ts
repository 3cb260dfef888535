/**
 * One row group's columns, read and decoded in time linear in the columns asked for: the row
 * reader and the loader's general path both come here. The chunk bytes are fetched up front
 * (unit-bytes.ts), every page header is checked against the chunk (page-bounds.ts) before a page
 * is decoded, and each chunk goes through hyparquet's own column decoder (`readColumn`) and, for
 * nested columns, its assembly (`assembleNested`).
 *
 * Why not parquetRead: its planning and assembly look columns up by name in arrays
 * (`columns.includes`, `children.find`, `asyncColumns.find`), which is quadratic in the width:
 * one row of a 50 000-column file took a minute. Here every lookup is a Map built once per file.
 */
import type {
  AsyncBuffer,
  ColumnChunk,
  ColumnMetaData,
  Compressors,
  DecodedArray,
  FileMetaData,
  ParquetParsers,
  RowGroup,
  SchemaTree,
} from 'hyparquet'
import { parquetSchema } from 'hyparquet'
import { assembleNested } from 'hyparquet/src/assemble.js'
import { readColumn } from 'hyparquet/src/column.js'
import { DEFAULT_PARSERS } from 'hyparquet/src/convert.js'
import { flatten } from 'hyparquet/src/utils.js'
import { compressors as boundedCodecs } from './codecs.ts'
import { checkChunk, pageLimits, type PageLimits } from './page-bounds.ts'
import { chunkRanges, fetchRanges, type UnitBytes } from './unit-bytes.ts'

/** The schema of one file, indexed: top-level columns by name, leaves by dotted path. */
export interface SchemaIndex {
  tree: SchemaTree
  top: Map<string, SchemaTree>
  /** Root-to-leaf schema path of each leaf, keyed by `path_in_schema.join('.')`. */
  leaves: Map<string, SchemaTree[]>
}

const SCHEMAS = new WeakMap<FileMetaData, SchemaIndex>()
const GROUPS = new WeakMap<RowGroup, Map<string, ColumnChunk[]>>()

/** The file's schema index, built once per footer. */
export function schemaIndex(metadata: FileMetaData): SchemaIndex {
  let index = SCHEMAS.get(metadata)
  if (index) return index
  const tree = parquetSchema(metadata)
  const top = new Map<string, SchemaTree>()
  for (const child of tree.children) if (!top.has(child.element.name)) top.set(child.element.name, child)
  const leaves = new Map<string, SchemaTree[]>()
  const walk = (path: SchemaTree[]): void => {
    const node = path[path.length - 1]
    if (!node.children.length) leaves.set(node.path.join('.'), path)
    for (const child of node.children) walk([...path, child])
  }
  walk([tree])
  SCHEMAS.set(metadata, (index = { tree, top, leaves }))
  return index
}

/** The column chunks of a row group by top-level column name (a nested column has several). */
export function groupChunks(group: RowGroup): Map<string, ColumnChunk[]> {
  let chunks = GROUPS.get(group)
  if (chunks) return chunks
  chunks = new Map()
  for (const chunk of group.columns) {
    const name = chunk.meta_data?.path_in_schema[0]
    if (name === undefined) continue
    const list = chunks.get(name)
    if (list) list.push(chunk)
    else chunks.set(name, [chunk])
  }
  GROUPS.set(group, chunks)
  return chunks
}

/**
 * Fetches the chunks of `columns` (top-level parquet names) in row group `rowGroup` and checks
 * their declared sizes and page headers before anything decodes them.
 */
export async function fetchGroup(
  file: AsyncBuffer,
  metadata: FileMetaData,
  rowGroup: number,
  columns: ReadonlySet<string>,
  url: string,
  limits: PageLimits = pageLimits(),
): Promise<UnitBytes> {
  const bytes = await fetchRanges(file, chunkRanges(metadata, rowGroup, columns), url)
  checkGroup(bytes, metadata, rowGroup, columns, url, limits)
  return bytes
}

/** Checks every chunk of `columns` in `bytes` (page-bounds.ts); throws ParquetError('corrupt-file'). */
export function checkGroup(
  bytes: UnitBytes,
  metadata: FileMetaData,
  rowGroup: number,
  columns: ReadonlySet<string>,
  url: string,
  limits: PageLimits,
): void {
  const group = metadata.row_groups[rowGroup]
  const { leaves } = schemaIndex(metadata)
  const chunks = groupChunks(group)
  for (const name of columns) {
    for (const chunk of chunks.get(name) ?? []) {
      const meta = chunk.meta_data!
      const column = meta.path_in_schema.join('.')
      const schemaPath = leaves.get(column)
      if (!schemaPath) continue // not in the schema: the decoder names it
      checkChunk(chunkView(bytes, meta), meta, Number(group.num_rows), schemaPath, { url, column }, limits)
    }
  }
}

/** The rows to decode: file row of the group's first row, and group rows [selectStart, selectEnd). */
export interface GroupSelect {
  groupStart: number
  selectStart: number
  selectEnd: number
}

/** A decoded top-level column: its chunks, the first starting `skipped` rows into the group. */
export interface GroupColumn {
  data: DecodedArray[]
  skipped: number
}

/** Decoder settings passed to hyparquet per column. */
export interface DecodeOptions {
  parsers?: Partial<ParquetParsers>
  utf8?: boolean
  compressors?: Compressors
}

/**
 * Decodes `columns` (top-level parquet names) of row group `rowGroup` from fetched `bytes`.
 * A name the file lacks is left out of the result. Errors are hyparquet's (the caller wraps them).
 */
export function readGroupColumns(
  bytes: UnitBytes,
  metadata: FileMetaData,
  rowGroup: number,
  select: GroupSelect,
  columns: Iterable<string>,
  opts: DecodeOptions = {},
): Map<string, GroupColumn> {
  const group = metadata.row_groups[rowGroup]
  const index = schemaIndex(metadata)
  const chunks = groupChunks(group)
  const parsers = { ...DEFAULT_PARSERS, ...opts.parsers }
  const plan = { ...select, groupRows: Number(group.num_rows) }
  const out = new Map<string, GroupColumn>()
  for (const name of columns) {
    const node = index.top.get(name)
    const leaves = chunks.get(name)
    if (!node || !leaves) continue
    const decoded = leaves.map(chunk => {
      const meta = chunk.meta_data!
      const schemaPath = index.leaves.get(meta.path_in_schema.join('.'))
      if (!schemaPath) throw new Error(`parquet schema element not found: ${meta.path_in_schema.join('.')}`)
      const decoder = {
        pathInSchema: meta.path_in_schema,
        type: meta.type,
        codec: meta.codec,
        element: schemaPath[schemaPath.length - 1].element,
        schemaPath,
        parsers,
        utf8: opts.utf8,
        compressors: opts.compressors ?? boundedCodecs,
      }
      const view = chunkView(bytes, meta)
      return readColumn({ view: new DataView(view.buffer, view.byteOffset, view.byteLength), offset: 0 }, plan, decoder)
    })
    out.set(name, node.children.length ? assemble(node, leaves, decoded, select, parsers) : decoded[0])
  }
  return out
}

/** File row of the first row of row group `index`. */
export function groupStartOf(metadata: FileMetaData, index: number): number {
  let row = 0
  for (let i = 0; i < index; i++) row += Number(metadata.row_groups[i].num_rows)
  return row
}

/** A chunk's bytes out of the fetched ranges (fetchGroup fetched every chunk it checks). */
function chunkView(bytes: UnitBytes, meta: ColumnMetaData): Uint8Array {
  const start = Number(meta.dictionary_page_offset || meta.data_page_offset)
  const view = bytes.view(start, start + Number(meta.total_compressed_size))
  if (!view) {
    throw new Error(
      `column ${meta.path_in_schema.join('.')}: chunk bytes ${start}+${meta.total_compressed_size} were not fetched`,
    )
  }
  return view
}

/**
 * A nested column from its leaves, as hyparquet's assembleAsync does it: leaves clipped to their
 * common row range (they may start at different pages), then assembled into one value per row.
 */
function assemble(
  node: SchemaTree,
  leaves: ColumnChunk[],
  decoded: GroupColumn[],
  select: GroupSelect,
  parsers: ParquetParsers,
): GroupColumn {
  const flat = decoded.map(d => flatten(d.data))
  const skipped = Math.max(select.selectStart, ...decoded.map(d => d.skipped))
  const end = Math.min(select.selectEnd, ...decoded.map((d, i) => d.skipped + flat[i].length))
  const subcolumns = new Map<string, DecodedArray>()
  leaves.forEach((chunk, i) => {
    const start = skipped - decoded[i].skipped
    subcolumns.set(chunk.meta_data!.path_in_schema.join('.'), flat[i].slice(start, start + Math.max(0, end - skipped)))
  })
  assembleNested(subcolumns, node, parsers)
  const values = subcolumns.get(node.element.name)
  if (!values) throw new Error('parquet column data not assembled')
  return { data: [values], skipped }
}
