/**
 * The unit reader's fast path: the unit's columns that page-decode.ts can decode straight from
 * the fetched column chunks, selected to the unit's live rows. Columns it leaves out (other
 * types, nulls where they are errors, ragged lists, unusual encodings, damaged pages) go through
 * hyparquet's general path, which then also reports any error precisely.
 */
import type { Compressors, FileMetaData } from '../parquet/types.ts'
import { groupChunks, groupStartOf, schemaIndex } from '../parquet/group-read.ts'
import { decodeChunkFast, selectFast } from '../parquet/page-decode.ts'
import type { FastEncoding } from '../parquet/page-values.ts'
import type { DecodedColumn, PlanFile, Unit } from './types.ts'
import type { UnitBytes } from '../parquet/unit-bytes.ts'
import type { ColumnSource } from './unit-columns.ts'

/** Fast-decoded columns of `unit` by delivered name (those absent need the general path). */
export function decodeFastColumns(
  bytes: UnitBytes,
  file: PlanFile,
  unit: Unit,
  columns: readonly ColumnSource[],
  compressors?: Compressors,
): Map<string, DecodedColumn> {
  const out = new Map<string, DecodedColumn>()
  const groupStart = groupStartOf(file.metadata, unit.rowGroup)
  for (const c of columns) {
    if (c.kind !== 'parquet' || c.rawTimestamp) continue // raw timestamps need seconds first
    const values = fastColumn(bytes, file.metadata, unit, c.parquetName, c.encoding, groupStart, compressors)
    if (!values) continue
    const column: DecodedColumn = { name: c.name, encoding: c.encoding, values: values.values }
    if (c.encoding === 'fixed_list') column.length = values.width
    out.set(c.name, column)
  }
  return out
}

function fastColumn(
  bytes: UnitBytes,
  metadata: FileMetaData,
  unit: Unit,
  name: string,
  encoding: DecodedColumn['encoding'],
  groupStart: number,
  compressors?: Compressors,
): { values: DecodedColumn['values']; width: number } | undefined {
  const leaves = groupChunks(metadata.row_groups[unit.rowGroup]).get(name)
  const meta = leaves?.length === 1 ? leaves[0].meta_data : undefined
  if (!meta) return undefined
  const start = Number(meta.dictionary_page_offset || meta.data_page_offset)
  const view = bytes.view(start, start + Number(meta.total_compressed_size))
  if (!view) return undefined
  try {
    const schemaPath = schemaIndex(metadata).leaves.get(meta.path_in_schema.join('.'))
    if (!schemaPath) return undefined
    const chunk = decodeChunkFast({
      bytes: view,
      meta,
      schemaPath,
      encoding,
      groupStart,
      start: unit.rowStart,
      end: unit.rowEnd,
      compressors,
    })
    if (!chunk || chunk.rowStart > unit.rowStart || chunk.rowStart + chunk.rows < unit.rowEnd) return undefined
    return {
      values: selectFast(chunk, { start: unit.rowStart, end: unit.rowEnd, live: unit.live }, encoding as FastEncoding),
      width: chunk.width,
    }
  } catch {
    return undefined // damaged or unexpected pages: the general path decodes or names the error
  }
}
