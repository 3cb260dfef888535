/**
 * The table schema: parse `metaData.schemaString` (PROTOCOL.md "Schema Serialization Format") and
 * read the column mapping settings (PROTOCOL.md "Column Mapping").
 */
import { physicalName } from './column-mapping.ts'
import { TableError, type DeltaType, type Metadata, type StructField, type StructType } from './types.ts'

const PRIMITIVES = new Set([
  'string',
  'long',
  'integer',
  'short',
  'byte',
  'float',
  'double',
  'boolean',
  'binary',
  'date',
  'timestamp',
  'timestamp_ntz',
  'variant',
])
const DECIMAL = /^decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)$/
/**
 * Deepest nesting of struct/array/map types accepted. Real schemas stay far below it; the bound
 * keeps a crafted schema from exhausting the stack of every recursive reader of rows and types.
 */
export const MAX_SCHEMA_DEPTH = 100

/**
 * Parse a schemaString into a StructType; field metadata is kept as is.
 *
 * @param schemaString JSON text of the top-level struct
 * @param where what to name in errors (e.g. the commit URL)
 */
export function parseSchema(schemaString: string, where = 'metaData.schemaString'): StructType {
  let json: unknown
  try {
    json = JSON.parse(schemaString)
  } catch (error) {
    throw new TableError(`${where}: schema is not JSON (${(error as Error).message})`, 'malformed-log')
  }
  const type = toType(json, where, 0)
  if (typeof type !== 'object' || type.type !== 'struct') {
    throw new TableError(`${where}: schema is not a struct`, 'malformed-log')
  }
  return type
}

function toType(json: unknown, path: string, depth: number): DeltaType {
  if (typeof json === 'string') return toPrimitive(json, path)
  if (!json || typeof json !== 'object') throw bad(path, `type ${JSON.stringify(json)}`)
  if (depth >= MAX_SCHEMA_DEPTH) {
    throw new TableError(
      `${path.slice(0, 200)}…: schema nests types more than ${MAX_SCHEMA_DEPTH} levels deep ` +
        '(the limit of this reader)',
      'unsupported-feature',
    )
  }
  const t = json as Record<string, unknown>
  const d = depth + 1
  switch (t.type) {
    case 'struct':
      return { type: 'struct', fields: toFields(t.fields, path, d) }
    case 'array':
      return {
        type: 'array',
        elementType: toType(t.elementType, `${path}.element`, d),
        containsNull: t.containsNull !== false,
      }
    case 'map':
      return {
        type: 'map',
        keyType: toType(t.keyType, `${path}.key`, d),
        valueType: toType(t.valueType, `${path}.value`, d),
        valueContainsNull: t.valueContainsNull !== false,
      }
    default:
      throw bad(path, `type ${JSON.stringify(t.type)}`)
  }
}

function toFields(fields: unknown, path: string, depth: number): StructField[] {
  if (!Array.isArray(fields)) throw bad(path, 'struct without a fields array')
  return fields.map((f: Record<string, unknown>) => {
    if (typeof f?.name !== 'string') throw bad(path, 'field without a name')
    const metadata = (f.metadata && typeof f.metadata === 'object' ? f.metadata : {}) as Record<string, unknown>
    return { name: f.name, type: toType(f.type, `${path}.${f.name}`, depth), nullable: f.nullable !== false, metadata }
  })
}

function toPrimitive(name: string, path: string): DeltaType {
  if (PRIMITIVES.has(name) || DECIMAL.test(name)) return name
  // Spark's NullType: a column with no values (Spark does not even write it to the data files).
  if (name === 'void' || name === 'null') return 'void'
  // Spark writes bare "decimal" for the default precision (10, 0).
  if (name === 'decimal') return 'decimal(10,0)'
  throw new TableError(`${path}: unsupported data type "${name}"`, 'unsupported-feature')
}

function bad(path: string, what: string): TableError {
  return new TableError(`${path}: malformed schema (${what})`, 'malformed-log')
}

/** Precision and scale of a 'decimal(p,s)' type name, or undefined for other types. */
export function decimalParams(type: DeltaType): { precision: number; scale: number } | undefined {
  const m = typeof type === 'string' ? DECIMAL.exec(type) : null
  return m ? { precision: Number(m[1]), scale: Number(m[2]) } : undefined
}

/** The table's column mapping mode from `delta.columnMapping.mode` (default 'none'). */
export function columnMappingMode(metadata: Metadata): 'none' | 'name' | 'id' {
  const mode = metadata.configuration['delta.columnMapping.mode'] ?? 'none'
  if (mode === 'none' || mode === 'name' || mode === 'id') return mode
  throw new TableError(`unsupported column mapping mode "${mode}"`, 'unsupported-feature')
}

/**
 * Rename the keys of a nested object from physical to logical names, following the schema
 * (used for partition values and file statistics, which the log keys by physical name).
 * Keys not found in the schema are kept as they are.
 */
export function toLogicalKeys(
  obj: Record<string, unknown>,
  schema: StructType,
  mode: 'none' | 'name' | 'id',
): Record<string, unknown> {
  if (mode === 'none') return obj
  const byPhysical = new Map(schema.fields.map(f => [physicalName(f, mode), f]))
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(obj)) {
    const field = byPhysical.get(key)
    const nested =
      field &&
      typeof field.type === 'object' &&
      field.type.type === 'struct' &&
      value &&
      typeof value === 'object' &&
      !Array.isArray(value)
    out[field?.name ?? key] = nested
      ? toLogicalKeys(value as Record<string, unknown>, field.type as StructType, mode)
      : value
  }
  return out
}
