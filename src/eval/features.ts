/**
 * Which table columns become dense features, for every family that reads them (GBDT, gblinear),
 * and how: numeric and boolean columns as float32 (NaN = null), strings as codes of a per-column
 * dictionary (categoricals), everything else skipped with the reason (the seeded validation split
 * keys rows by value: src/data/row-key.ts). Pure functions: the CLI validates with them before a
 * browser starts, and the page uses the same ones.
 */
import type { StructField, StructType } from '../table/types.ts'

/** How a column is turned into a feature. */
export type FeatureKind = 'numeric' | 'categorical'

/** One selected feature. */
export interface FeatureSpec {
  name: string
  kind: FeatureKind
  /** XGBoost feature type: 'int' for integers/booleans, 'float' for floats, 'c' for categorical codes. */
  xgbType: 'int' | 'float' | 'c'
  /** Delta type as written in the schema, for the manifest. */
  deltaType: string
}

/** A column that was not used, and why. */
export interface SkippedColumn {
  name: string
  reason: string
}

/** Feature selection result. */
export interface FeatureSelection {
  features: FeatureSpec[]
  skipped: SkippedColumn[]
}

const INTEGER = new Set(['byte', 'short', 'integer', 'long'])
const FLOAT = new Set(['float', 'double'])

/** The feature spec of a Delta field, or the reason it cannot be one. */
export function featureOf(field: StructField): FeatureSpec | string {
  const t = field.type
  if (typeof t !== 'string') return `${t.type} columns are not features (only numeric, boolean and string columns)`
  if (t === 'void') return 'void (NullType) columns hold only nulls and are not features'
  const base = { name: field.name, deltaType: t }
  if (INTEGER.has(t) || t === 'boolean') return { ...base, kind: 'numeric', xgbType: 'int' }
  if (FLOAT.has(t) || t.startsWith('decimal')) return { ...base, kind: 'numeric', xgbType: 'float' }
  if (t === 'string') return { ...base, kind: 'categorical', xgbType: 'c' }
  return `${t} columns are not features (only numeric, boolean and string columns)`
}

/**
 * Columns that give each row something besides its label (XGBoost's DMatrix `weight=` and
 * `base_margin=`): never features, and numeric.
 */
export interface RowColumns {
  /** Row weights (--weight). */
  weight?: string
  /** Per-row starting margins (--base-margin). */
  baseMargin?: string
  /** Query group of each row, for ranking (--qid). */
  qid?: string
}

/** How an error message names a row column: 'weight column w', 'base margin column m'. */
export const ROW_COLUMN_NAMES: Record<keyof RowColumns, string> = {
  weight: 'weight',
  baseMargin: 'base margin',
  qid: 'query id',
}

/**
 * Features of a training run. `requested` (from --features) must name existing, usable columns;
 * the default is every usable column except the label and the `rows` columns (weight, base
 * margin), and the skipped ones are reported. The label must be numeric or boolean, or a string
 * column when `classLabels` (a multi:* objective: its values become classes, dataset.ts).
 * Throws RangeError naming the label or column.
 */
export function selectFeatures(
  schema: StructType,
  label: string,
  requested?: readonly string[],
  rows: RowColumns = {},
  classLabels = false,
): FeatureSelection {
  const names = schema.fields.map(f => f.name)
  const labelField = schema.fields.find(f => f.name === label)
  if (!labelField) throw new RangeError(`label column ${label}: not in the table (columns: ${names.join(', ')})`)
  const lf = featureOf(labelField)
  if (typeof lf === 'string' || (lf.kind !== 'numeric' && !classLabels)) {
    throw new RangeError(
      `label column ${label}: must be numeric or boolean${typeof lf === 'string' ? '' : ' (a string label needs a multi:* objective: its values become the classes)'}, its type is ${JSON.stringify(labelField.type)}`,
    )
  }
  const roles = checkRowColumns(schema, label, rows)
  if (requested && requested.length > 0)
    return { features: requested.map(n => requestedFeature(schema, label, n, roles)), skipped: [] }
  const features: FeatureSpec[] = [],
    skipped: SkippedColumn[] = []
  for (const field of schema.fields) {
    if (field.name === label || roles.has(field.name)) continue
    const f = featureOf(field)
    if (typeof f === 'string') skipped.push({ name: field.name, reason: f })
    else features.push(f)
  }
  if (features.length === 0)
    throw new RangeError(`no feature columns: every column except the label ${label} was skipped`)
  return { features, skipped }
}

/**
 * The row columns checked against the schema (each a numeric column — a query id may be a string
 * one —, not the label, not each other), as a map name → role. Throws RangeError naming the column and its role.
 */
function checkRowColumns(schema: StructType, label: string, rows: RowColumns): Map<string, string> {
  const roles = new Map<string, string>()
  for (const key of Object.keys(ROW_COLUMN_NAMES) as (keyof RowColumns)[]) {
    const name = rows[key]
    if (name === undefined) continue
    const role = ROW_COLUMN_NAMES[key]
    const field = schema.fields.find(f => f.name === name)
    if (!field)
      throw new RangeError(
        `${role} column ${name}: not in the table (columns: ${schema.fields.map(f => f.name).join(', ')})`,
      )
    if (name === label) throw new RangeError(`${role} column ${name}: it is the label column`)
    const other = roles.get(name)
    if (other) throw new RangeError(`${role} column ${name}: it is the ${other} column`)
    const spec = featureOf(field)
    // A query id may be a string column too: its values only name groups (row-columns.ts qidCodes).
    const ok = typeof spec !== 'string' && (spec.kind === 'numeric' || key === 'qid')
    if (!ok)
      throw new RangeError(
        `${role} column ${name}: must be numeric${key === 'qid' ? ' or string' : ''}, its type is ${JSON.stringify(field.type)}`,
      )
    roles.set(name, role)
  }
  return roles
}

function requestedFeature(
  schema: StructType,
  label: string,
  name: string,
  roles: Map<string, string> = new Map(),
): FeatureSpec {
  if (name === label) throw new RangeError(`--features: ${name} is the label column`)
  const role = roles.get(name)
  if (role) throw new RangeError(`--features: ${name} is the ${role} column`)
  const field = schema.fields.find(f => f.name === name)
  if (!field)
    throw new RangeError(
      `--features: no column ${name} in the table (columns: ${schema.fields.map(f => f.name).join(', ')})`,
    )
  const f = featureOf(field)
  if (typeof f === 'string') throw new RangeError(`--features: column ${name}: ${f}`)
  return f
}

/**
 * Dictionary of a categorical column: its distinct non-null training values, sorted by value
 * (UTF-16 code unit order), so the codes do not depend on row order or on the files' layout.
 */
export function buildDictionary(values: ReadonlyArray<string | null>): string[] {
  const distinct = new Set<string>()
  for (const v of values) if (v !== null) distinct.add(v)
  return [...distinct].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
}

/** Codes of `values` in `dictionary` as float32; null and values not in it (unseen) → NaN (missing). */
export function encodeCategorical(values: ReadonlyArray<string | null>, dictionary: readonly string[]): Float32Array {
  const index = new Map(dictionary.map((v, i) => [v, i]))
  const out = new Float32Array(values.length)
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    const code = v === null ? undefined : index.get(v)
    out[i] = code === undefined ? NaN : code
  }
  return out
}
