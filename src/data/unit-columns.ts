/**
 * Which bytes feed each delivered column of one file: a parquet column (found through column
 * mapping), a partition value, or nothing (the file predates the column), plus the encoding.
 * Resolved once per file per reader; the unit reader reuses it for every unit of the file.
 */
import type { SchemaTree } from '../parquet/types.ts'
import { findParquetChild } from '../table/column-mapping.ts'
import { checkPhysicalType } from '../table/physical-type.ts'
import { TableError, type StructField } from '../table/types.ts'
import { defaultEncoding } from './decode.ts'
import { schemaIndex } from '../parquet/group-read.ts'
import type { ColumnEncoding, DecodeSpec, PlanFile, ScanPlan } from './types.ts'

/**
 * A timestamp column stored without a timestamp annotation, whose values hyparquet hands over as
 * they are: Spark's INT64 microseconds, or the day numbers of a date widened to timestamp_ntz.
 */
export type RawTimestamp = 'micros' | 'days'

/** One delivered column of one file; `rawTimestamp` marks values to bring to seconds first. */
export type ColumnSource =
  | { name: string; encoding: ColumnEncoding; kind: 'parquet'; parquetName: string; rawTimestamp?: RawTimestamp }
  | { name: string; encoding: ColumnEncoding; kind: 'constant'; value: unknown }

/**
 * Resolves the plan's row-key columns (plan.rowKey) for `file` as delivered columns would resolve
 * (column mapping, partition values), each decoded to 32-bit hashes; none without a row key.
 * Used by the unit reader (which reads them) and the epoch cache's keys (which name them).
 */
export function keyColumnResolver(plan: ScanPlan): (file: PlanFile) => ColumnSource[] {
  if (!plan.rowKey) return () => []
  const keyPlan: ScanPlan = {
    ...plan,
    columns: plan.rowKey.map(f => f.name),
    schema: plan.schema && { ...plan.schema, fields: plan.rowKey },
  }
  const keySpec: DecodeSpec = Object.fromEntries(plan.rowKey.map(f => [f.name, 'hash32' as const]))
  return file => resolveColumns(keyPlan, file, keySpec)
}

/**
 * Resolves plan.columns for `file`. With plan.schema, columns are matched through column mapping
 * and typed by their Delta types; without it (hand-built plans) by parquet name and type.
 * Throws TableError('schema') naming the column and file when a column cannot be found or
 * decoded, or when the spec names a column the plan does not deliver.
 */
export function resolveColumns(plan: ScanPlan, file: PlanFile, spec: DecodeSpec): ColumnSource[] {
  const delivered = new Set(plan.columns)
  for (const name of Object.keys(spec)) {
    if (!delivered.has(name)) {
      throw new TableError(
        `decode spec names column '${name}', which the plan does not deliver (columns: ${plan.columns.join(', ')})`,
        'schema',
      )
    }
  }
  const root = schemaIndex(file.metadata).tree
  return plan.columns.map((name, i) => {
    const field = plan.schema?.fields[i]
    if (field && field.name !== name)
      throw new TableError(`plan.schema.fields[${i}] is '${field.name}', expected '${name}'`, 'schema')
    return field ? fromField(plan, file, root, field, spec[name]) : fromParquet(file, root, name, spec[name])
  })
}

function fromField(
  plan: ScanPlan,
  file: PlanFile,
  root: SchemaTree,
  field: StructField,
  asked?: ColumnEncoding,
): ColumnSource {
  const schema = plan.schema!
  const encoding = asked ?? defaultEncoding(field.type, field.name)
  if (schema.partitionColumns.includes(field.name)) {
    return { name: field.name, encoding, kind: 'constant', value: file.partitionValues[field.name] ?? null }
  }
  const node = findParquetChild(root.children, field, schema.columnMapping)
  if (node) checkPhysicalType(file.url, field.name, field.type, node)
  if (node) {
    const source: ColumnSource = { name: field.name, encoding, kind: 'parquet', parquetName: node.element.name }
    const raw = rawTimestamp(field, node)
    return raw ? { ...source, rawTimestamp: raw } : source
  }
  if (!field.nullable) {
    throw new TableError(
      `${file.url}: non-nullable column '${field.name}' is missing from the file`,
      'schema',
      file.url,
    )
  }
  return { name: field.name, encoding, kind: 'constant', value: null }
}

/**
 * Annotated timestamps reach the decoders as seconds (unit-reader.ts parsers); these do not, and
 * would otherwise become µs or day-number features in files of a column whose others hold seconds.
 */
function rawTimestamp(field: StructField, node: SchemaTree): RawTimestamp | undefined {
  if (field.type !== 'timestamp' && field.type !== 'timestamp_ntz') return undefined
  const { type, converted_type, logical_type } = node.element
  if (type === 'INT32') return 'days'
  return type === 'INT64' && !converted_type && !logical_type ? 'micros' : undefined
}

function fromParquet(file: PlanFile, _root: SchemaTree, name: string, asked?: ColumnEncoding): ColumnSource {
  if (name in file.partitionValues) {
    const value = file.partitionValues[name]
    return { name, encoding: asked ?? encodingOfValue(value), kind: 'constant', value }
  }
  const node = schemaIndex(file.metadata).top.get(name)
  if (!node) throw new TableError(`${file.url}: no column '${name}' in the parquet file`, 'schema', file.url)
  return { name, encoding: asked ?? parquetEncoding(node, file.url), kind: 'parquet', parquetName: name }
}

function encodingOfValue(value: unknown): ColumnEncoding {
  return typeof value === 'string' ? 'hash32' : typeof value === 'boolean' ? 'bool' : 'float32'
}

/**
 * Default encoding from a parquet node alone (plans without a Delta schema), mirroring
 * defaultEncoding: INT32 → int32 (DATE → float32 days), INT64/FLOAT/DOUBLE/decimals/timestamps →
 * float32, BOOLEAN → bool, BYTE_ARRAY → hash32, a LIST of numbers → fixed_list.
 */
export function parquetEncoding(node: SchemaTree, url: string): ColumnEncoding {
  const { element } = node
  if (element.converted_type === 'LIST' || element.logical_type?.type === 'LIST') return 'fixed_list'
  if (node.children.length) {
    throw new TableError(`${url}: column '${element.name}' is nested and has no typed-array encoding`, 'schema', url)
  }
  const annotated = element.converted_type ?? element.logical_type?.type
  switch (element.type) {
    case 'INT32':
      return annotated &&
        annotated !== 'INT_32' &&
        annotated !== 'INT_16' &&
        annotated !== 'INT_8' &&
        annotated !== 'INTEGER'
        ? 'float32'
        : 'int32'
    case 'BOOLEAN':
      return 'bool'
    case 'BYTE_ARRAY':
      return annotated === 'DECIMAL' ? 'float32' : 'hash32'
    case 'FIXED_LEN_BYTE_ARRAY':
      return annotated === 'DECIMAL' ? 'float32' : 'hash32'
    default:
      return 'float32'
  }
}
