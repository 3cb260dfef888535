/**
 * The table schema: parse `metaData.schemaString` (PROTOCOL.md "Schema Serialization Format") and
 * read the column mapping settings (PROTOCOL.md "Column Mapping").
 */
import { TableError, type DeltaType, type Metadata, type StructField, type StructType } from './types.ts'

const PRIMITIVES = new Set(['string', 'long', 'integer', 'short', 'byte', 'float', 'double', 'boolean',
  'binary', 'date', 'timestamp', 'timestamp_ntz', 'variant'])
const DECIMAL = /^decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)$/

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
  const type = toType(json, where)
  if (typeof type !== 'object' || type.type !== 'struct') {
    throw new TableError(`${where}: schema is not a struct`, 'malformed-log')
  }
  return type
}

function toType(json: unknown, path: string): DeltaType {
  if (typeof json === 'string') return toPrimitive(json, path)
  if (!json || typeof json !== 'object') throw bad(path, `type ${JSON.stringify(json)}`)
  const t = json as Record<string, unknown>
  switch (t.type) {
    case 'struct': return { type: 'struct', fields: toFields(t.fields, path) }
    case 'array': return {
      type: 'array', elementType: toType(t.elementType, `${path}.element`), containsNull: t.containsNull !== false,
    }
    case 'map': return {
      type: 'map', keyType: toType(t.keyType, `${path}.key`), valueType: toType(t.valueType, `${path}.value`),
      valueContainsNull: t.valueContainsNull !== false,
    }
    default: throw bad(path, `type ${JSON.stringify(t.type)}`)
  }
}

function toFields(fields: unknown, path: string): StructField[] {
  if (!Array.isArray(fields)) throw bad(path, 'struct without a fields array')
  return fields.map((f: Record<string, unknown>) => {
    if (typeof f?.name !== 'string') throw bad(path, 'field without a name')
    const metadata = (f.metadata && typeof f.metadata === 'object' ? f.metadata : {}) as Record<string, unknown>
    return { name: f.name, type: toType(f.type, `${path}.${f.name}`), nullable: f.nullable !== false, metadata }
  })
}

function toPrimitive(name: string, path: string): DeltaType {
  if (PRIMITIVES.has(name) || DECIMAL.test(name)) return name
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

/** Physical name of a field under column mapping (falls back to the logical name). */
export function physicalName(field: StructField, mode: 'none' | 'name' | 'id'): string {
  const physical = field.metadata['delta.columnMapping.physicalName']
  return mode !== 'none' && typeof physical === 'string' ? physical : field.name
}

/**
 * Rename the keys of a nested object from physical to logical names, following the schema
 * (used for partition values and file statistics, which the log keys by physical name).
 * Keys not found in the schema are kept as they are.
 */
export function toLogicalKeys(obj: Record<string, unknown>, schema: StructType, mode: 'none' | 'name' | 'id'): Record<string, unknown> {
  if (mode === 'none') return obj
  const byPhysical = new Map(schema.fields.map(f => [physicalName(f, mode), f]))
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(obj)) {
    const field = byPhysical.get(key)
    const nested = field && typeof field.type === 'object' && field.type.type === 'struct'
      && value && typeof value === 'object' && !Array.isArray(value)
    out[field?.name ?? key] = nested
      ? toLogicalKeys(value as Record<string, unknown>, field.type as StructType, mode)
      : value
  }
  return out
}
