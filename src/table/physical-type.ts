/**
 * Does a Parquet column's physical type fit the Delta type the log declares for it? A file that
 * stores a `double` column as strings (a writer bug, or a file swapped under the table) must be
 * refused naming the file and column, never decoded into NaNs. Widening that Delta allows
 * (type widening: integer → long/double, float → double, date → timestamp_ntz) is accepted.
 */
import type { SchemaTree } from '../parquet/types.ts'
import { TableError, type DeltaType } from './types.ts'

/** Physical types each primitive Delta type may be stored as (widening included). */
const FITS: Record<string, readonly string[]> = {
  string: ['BYTE_ARRAY', 'FIXED_LEN_BYTE_ARRAY'],
  binary: ['BYTE_ARRAY', 'FIXED_LEN_BYTE_ARRAY'],
  boolean: ['BOOLEAN'],
  byte: ['INT32'],
  short: ['INT32'],
  integer: ['INT32'],
  long: ['INT32', 'INT64'],
  float: ['FLOAT', 'INT32'],
  double: ['DOUBLE', 'FLOAT', 'INT32', 'INT64'],
  date: ['INT32'],
  timestamp: ['INT64', 'INT96'],
  timestamp_ntz: ['INT64', 'INT96', 'INT32'],
}

/** Decimals: any of the physical types the Parquet spec allows for DECIMAL. */
const DECIMAL = ['INT32', 'INT64', 'FIXED_LEN_BYTE_ARRAY', 'BYTE_ARRAY']

/**
 * Throws a 'schema' TableError when `node` (a top-level Parquet column) cannot hold values of
 * `type`. Nested types (struct, array, map) and unknown primitive names are not checked here.
 */
export function checkPhysicalType(fileUrl: string, column: string, type: DeltaType, node: SchemaTree): void {
  if (typeof type !== 'string') return
  const physical = node.element.type
  const allowed = type.startsWith('decimal') ? DECIMAL : FITS[type]
  if (!allowed || physical === undefined || allowed.includes(physical)) return
  throw new TableError(
    `${fileUrl}: column '${column}' is ${type} in the table schema but ${physical} in the parquet file; ` +
      'the file does not match the Delta log (rewrite it, or remove it from the table)',
    'schema',
    fileUrl,
  )
}
