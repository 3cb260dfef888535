/**
 * Parquet encoding of a frame with hyparquet-writer: an explicit schema from the column specs
 * (so types never depend on guessing from data), snappy pages, footer statistics per row group.
 */
import { parquetWriteBuffer } from 'hyparquet-writer'
import { columnLength, isVectors } from './frame.ts'
import type { ColumnSpec, ColumnValues, Frame } from './types.ts'

// hyparquet-writer bundles its own hyparquet types; take SchemaElement from its signature.
type SchemaElement = NonNullable<Parameters<typeof parquetWriteBuffer>[0]['schema']>[number]

/** Parquet schema (flattened, root first) for the given columns, as Spark writes it. */
export function parquetSchema(specs: ColumnSpec[]): SchemaElement[] {
  const schema: SchemaElement[] = [{ name: 'root', num_children: specs.length }]
  for (const spec of specs) schema.push(...columnElements(spec))
  return schema
}

/**
 * Encodes `frame` as one snappy-compressed Parquet file.
 * `rowGroupRows`: rows per row group (the last one may be shorter).
 */
export function encodeParquet(specs: ColumnSpec[], frame: Frame, rowGroupRows: number): Uint8Array {
  const columnData = specs.map(spec => {
    const data = frame.columns[spec.name]
    if (!data) throw new Error(`datagen: frame has no column '${spec.name}'`)
    const rows = columnLength(data)
    if (rows !== frame.numRows)
      throw new Error(`datagen: column '${spec.name}' has ${rows} rows, expected ${frame.numRows}`)
    return { name: spec.name, data: writerData(spec, data) }
  })
  const buf = parquetWriteBuffer({
    schema: parquetSchema(specs),
    columnData,
    codec: 'SNAPPY',
    statistics: true,
    rowGroupSize: Math.max(1, rowGroupRows),
    createdBy: 'snaptrain datagen (hyparquet-writer 0.17.0)',
  })
  return new Uint8Array(buf)
}

/** Values in the form hyparquet-writer takes: one JS array per list row, null for NaN markers. */
function writerData(spec: ColumnSpec, values: ColumnValues): Exclude<ColumnValues, { width: number }> | number[][] {
  if (isVectors(values)) {
    const w = values.width
    return Array.from({ length: values.data.length / w }, (_, i) => Array.from(values.data.subarray(i * w, i * w + w)))
  }
  if (spec.nullable && (values instanceof Float32Array || values instanceof Float64Array)) {
    return Array.from(values, v => (Number.isNaN(v) ? null : v))
  }
  return values
}

function columnElements(spec: ColumnSpec): SchemaElement[] {
  const repetition_type = spec.nullable ? 'OPTIONAL' : 'REQUIRED'
  const { name, type } = spec
  if (typeof type === 'object') {
    // 3-level LIST with Spark's names (list/element), which every Delta reader accepts.
    return [
      { name, repetition_type, converted_type: 'LIST', num_children: 1 },
      { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
      { name: 'element', type: type.elementType === 'long' ? 'INT64' : 'FLOAT', repetition_type: 'REQUIRED' },
    ]
  }
  switch (type) {
    case 'long':
      return [{ name, type: 'INT64', repetition_type }]
    case 'integer':
      return [{ name, type: 'INT32', repetition_type }]
    case 'float':
      return [{ name, type: 'FLOAT', repetition_type }]
    case 'double':
      return [{ name, type: 'DOUBLE', repetition_type }]
    case 'string':
      return [{ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type }]
  }
}

/** The Delta `schemaString` (JSON struct) for the given columns. */
export function deltaSchemaString(specs: ColumnSpec[]): string {
  return JSON.stringify({
    type: 'struct',
    fields: specs.map(s => ({ name: s.name, type: s.type, nullable: s.nullable, metadata: {} })),
  })
}
