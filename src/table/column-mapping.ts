/**
 * Column mapping (Delta PROTOCOL.md "Column Mapping"): with mode 'name' or 'id' a data file's
 * columns carry physical names (`delta.columnMapping.physicalName`) and, in mode 'id', parquet
 * field ids (`delta.columnMapping.id`); the schema in the log carries the logical names users see.
 * This module finds, for a logical field, the parquet schema node that stores it.
 */
import type { SchemaTree } from '../parquet/types.ts'
import { TableError, type DeltaType, type Snapshot, type StructField, type StructType } from './types.ts'

/** The table's column mapping mode. */
export type ColumnMappingMode = Snapshot['columnMapping']

const PHYSICAL_NAME = 'delta.columnMapping.physicalName'
const FIELD_ID = 'delta.columnMapping.id'

/**
 * Physical (in-file) name of a field: the mapped name in modes 'name' and 'id', else the
 * logical name. A field without the metadata key (added before mapping was enabled) keeps its name.
 */
export function physicalName(field: StructField, mode: ColumnMappingMode): string {
  if (mode === 'none') return field.name
  const mapped = field.metadata?.[PHYSICAL_NAME]
  return typeof mapped === 'string' && mapped !== '' ? mapped : field.name
}

/** The parquet field id of a field in mode 'id', else undefined. */
export function fieldId(field: StructField, mode: ColumnMappingMode): number | undefined {
  if (mode !== 'id') return undefined
  const id = field.metadata?.[FIELD_ID]
  return typeof id === 'number' ? id : typeof id === 'string' && id !== '' ? Number(id) : undefined
}

/**
 * Finds the parquet child node (of a struct-like node or the file root) that stores `field`.
 * Mode 'id' matches by parquet field_id first, because files written before a rename keep old
 * names but the same id; then by physical name. Returns undefined when the file lacks the column
 * (schema evolution: the caller reads nulls).
 */
export function findParquetChild(
  children: readonly SchemaTree[],
  field: StructField,
  mode: ColumnMappingMode,
): SchemaTree | undefined {
  const index = childIndex(children)
  const id = fieldId(field, mode)
  const byId = id === undefined ? undefined : index.byId.get(id)
  return byId ?? index.byName.get(physicalName(field, mode))
}

/** Children of a schema node by field id and by name (first wins, as `find` would), built once per node. */
interface ChildIndex {
  byId: Map<number, SchemaTree>
  byName: Map<string, SchemaTree>
}

// A wide file has tens of thousands of children, and every column of a read is looked up in them.
const CHILDREN = new WeakMap<readonly SchemaTree[], ChildIndex>()

function childIndex(children: readonly SchemaTree[]): ChildIndex {
  let index = CHILDREN.get(children)
  if (index) return index
  index = { byId: new Map(), byName: new Map() }
  for (const child of children) {
    const id = child.element.field_id
    if (id !== undefined && !index.byId.has(id)) index.byId.set(id, child)
    if (!index.byName.has(child.element.name)) index.byName.set(child.element.name, child)
  }
  CHILDREN.set(children, index)
  return index
}

/**
 * Maps a logical partition-values record to a value for `field`: Delta writers key
 * `partitionValues` by physical name under column mapping, while the snapshot contract keys them
 * by logical name, so accept either.
 */
export function partitionValueFor(
  values: Record<string, string | null>,
  field: StructField,
  mode: ColumnMappingMode,
): string | null {
  if (field.name in values) return values[field.name]
  const physical = physicalName(field, mode)
  return physical in values ? values[physical] : null
}

/**
 * Refuses a schema in which two columns of one struct share a name (case-insensitively, as Spark
 * resolves names) or, under column mapping, a physical name, or two fields anywhere share a field
 * id: each would make one column's data silently replace another's. Nested structs (also inside
 * arrays and maps) are checked level by level.
 *
 * @param where named in the error (the table URL)
 * @throws TableError 'malformed-log' naming both columns
 */
export function checkDistinctColumns(schema: StructType, mode: ColumnMappingMode, where: string): void {
  const ids = new Map<number, string>()
  const visit = (type: DeltaType, path: string): void => {
    if (typeof type === 'string') return
    if (type.type === 'array') return visit(type.elementType, `${path}[]`)
    if (type.type === 'map') return (visit(type.keyType, `${path}.key`), visit(type.valueType, `${path}.value`))
    const logical = new Map<string, string>()
    const physical = new Map<string, string>()
    for (const field of type.fields) {
      const name = path ? `${path}.${field.name}` : field.name
      const seen = logical.get(field.name.toLowerCase())
      if (seen !== undefined) throw duplicate(where, `columns '${seen}' and '${name}' have the same name`)
      logical.set(field.name.toLowerCase(), name)
      if (mode !== 'none') {
        const key = physicalName(field, mode).toLowerCase()
        const other = physical.get(key)
        if (other !== undefined) {
          throw duplicate(
            where,
            `columns '${other}' and '${name}' map to one physical column '${physicalName(field, mode)}'`,
          )
        }
        physical.set(key, name)
      }
      const id = fieldId(field, mode)
      if (id !== undefined) {
        const other = ids.get(id)
        if (other !== undefined) throw duplicate(where, `columns '${other}' and '${name}' have the same field id ${id}`)
        ids.set(id, name)
      }
      visit(field.type, name)
    }
  }
  visit(schema, '')
}

function duplicate(where: string, what: string): TableError {
  return new TableError(`${where}: invalid schema: ${what}`, 'malformed-log', where)
}
