/**
 * Reads the columns a filter needs for a row range of one file, as Rows (Row value types keyed by
 * logical name, partition values included), reusing the row reader's column planning and value
 * conversion so the filter sees exactly the values readRows would deliver.
 */
import { parquetSchema, type AsyncBuffer, type FileMetaData } from 'hyparquet'
import { buildRow, partitionValues, planColumns, readGroup, withRawTypes } from '../table/rows.ts'
import type { AddFile, Row, Snapshot } from '../table/types.ts'

/**
 * Rows [start, end) of `file` with only `columns` (logical names, all in the schema) filled in;
 * row i of the result is file row start + i. `metadata` is the file's footer as parsed.
 */
export async function readFilterRows(
  snapshot: Snapshot, file: AddFile, buffer: AsyncBuffer, metadata: FileMetaData, columns: string[], start: number, end: number,
): Promise<Row[]> {
  const fields = columns.map((name) => snapshot.schema.fields.find((f) => f.name === name)!)
  const plans = planColumns(snapshot, file, fields, parquetSchema(metadata))
  const partitionRow = partitionValues(snapshot, file, plans)
  const raw = await readGroup(buffer, rawTypes(metadata), plans, start, end, file.url)
  const rows: Row[] = new Array(end - start)
  for (let i = 0; i < rows.length; i++) rows[i] = buildRow(raw?.[i], plans, partitionRow, snapshot, file.url)
  return rows
}

/** withRawTypes is a copy per call; cache it per footer since a file has several ranges. */
const RAW = new WeakMap<FileMetaData, FileMetaData>()

function rawTypes(metadata: FileMetaData): FileMetaData {
  let raw = RAW.get(metadata)
  if (!raw) { raw = withRawTypes(metadata); RAW.set(metadata, raw) }
  return raw
}
