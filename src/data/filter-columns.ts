/**
 * Reads the columns a filter needs for a row range of one file, as Rows (Row value types keyed by
 * logical name, partition values included), reusing the row reader's column planning and value
 * conversion so the filter sees exactly the values readRows would deliver.
 */
import type { AsyncBuffer, FileMetaData } from '../parquet/types.ts'
import { withRawTypes } from '../parquet/file.ts'
import { buildRow, partitionValues, planColumns, readGroup, schemaField } from '../table/rows.ts'
import { schemaIndex } from '../parquet/group-read.ts'
import type { AddFile, Row, Snapshot } from '../table/types.ts'

/**
 * The rows of row group `rowGroup` of `file` with only `columns` (logical names, all in the
 * schema) filled in, in file order. `metadata` is the file's footer as parsed.
 */
export async function readFilterRows(
  snapshot: Snapshot,
  file: AddFile,
  buffer: AsyncBuffer,
  metadata: FileMetaData,
  columns: string[],
  rowGroup: number,
): Promise<Row[]> {
  const fields = columns.map(name => schemaField(snapshot.schema, name)!)
  const plans = planColumns(snapshot, file, fields, schemaIndex(metadata).tree)
  const partitionRow = partitionValues(snapshot, file, plans)
  const values = await readGroup(buffer, rawTypes(metadata), plans, rowGroup, file.url)
  const rows: Row[] = new Array(Number(metadata.row_groups[rowGroup].num_rows))
  for (let i = 0; i < rows.length; i++) rows[i] = buildRow(values, i, plans, partitionRow, snapshot, file.url)
  return rows
}

/** withRawTypes is a copy per call; cache it per footer since a file has several ranges. */
const RAW = new WeakMap<FileMetaData, FileMetaData>()

function rawTypes(metadata: FileMetaData): FileMetaData {
  let raw = RAW.get(metadata)
  if (!raw) {
    raw = withRawTypes(metadata)
    RAW.set(metadata, raw)
  }
  return raw
}
