/**
 * Types of the sample-table generator (tools/datagen): column specs, in-memory column frames,
 * Delta log actions as written, and what a generation run reports.
 */

/** Delta primitive type names the generator writes (subset of the Delta JSON schema names). */
export type GenPrimitive = 'long' | 'integer' | 'float' | 'double' | 'string'

/** One column of a generated table: its Delta type and whether it may hold nulls. */
export interface ColumnSpec {
  name: string
  /** A primitive, or an array of floats (fixed length) or longs (any length), written as a Parquet 3-level LIST. */
  type: GenPrimitive | { type: 'array'; elementType: 'float' | 'long'; containsNull: false }
  nullable: boolean
}

/** Fixed-width float vectors stored flat: row i is `data[i*width .. (i+1)*width)` (no per-row arrays). */
export interface FloatVectors {
  width: number
  data: Float32Array
}

/**
 * Column values in memory, one entry per row. long → BigInt64Array (or bigint[]),
 * integer → Int32Array or (number | null)[], float/double → Float32Array / Float64Array (in a
 * nullable column NaN marks null; the generator never produces NaN values) or (number | null)[],
 * string → (string | null)[], array<float> → FloatVectors, array<long> → (bigint[] | null)[]. Typed and flat forms keep millions of
 * rows out of the garbage collector's way; per-file JS arrays are made only when encoding.
 */
export type ColumnValues =
  | BigInt64Array
  | Int32Array
  | Float32Array
  | Float64Array
  | (number | null)[]
  | (string | null)[]
  | (bigint | null)[]
  | (bigint[] | null)[]
  | FloatVectors

/** Columns by name, all of the same length `numRows`. */
export interface Frame {
  numRows: number
  columns: Record<string, ColumnValues>
}

/** Delta per-file statistics as serialised into an add action's `stats` string. */
export interface DeltaStats {
  numRecords: number
  minValues: Record<string, number | string>
  maxValues: Record<string, number | string>
  nullCount: Record<string, number>
}

/** An `add` action as written to the log. */
export interface AddAction {
  path: string
  partitionValues: Record<string, string | null>
  size: number
  modificationTime: number
  dataChange: boolean
  /** JSON string of DeltaStats. */
  stats: string
}

/** A `remove` action as written to the log. */
export interface RemoveAction {
  path: string
  deletionTimestamp: number
  dataChange: boolean
  extendedFileMetadata: boolean
  partitionValues: Record<string, string | null>
  size: number
}

/** What one generated version did (for `_generator.json` and the summary). */
export interface VersionReport {
  version: number
  operation: 'WRITE' | 'DELETE'
  /** Live rows after this version. */
  rows: number
  addedFiles: number
  removedFiles: number
  /** Rows appended (WRITE) or deleted (DELETE) by this version. */
  changedRows: number
  predicate?: string
}

/** One data file of the final version: name, rows and row-group sizes (rows each). */
export interface FileLayout {
  path: string
  rows: number
  bytes: number
  rowGroups: number[]
}

/** Contents of `<table>/_generator.json`: how the table was made, and its hidden-model facts. */
export interface GeneratorInfo {
  table: string
  generator: string
  seed: number
  /** Rows requested for the initial version (v0). */
  rows: number
  versions: VersionReport[]
  /** Rows appended by later WRITE versions, in total. */
  rowsAppended: number
  /** Rows removed by DELETE versions, in total. */
  rowsDeleted: number
  finalRows: number
  /** Fraction of positive labels in the final version. */
  baseRate: number
  /** AUC of the hidden model's true probabilities against the drawn labels (final version). */
  bayesAuc: number
  /** clicks only: what a model that cannot learn per-user terms could reach (ceiling.ts). */
  learnable?: LearnableCeiling
  labelColumn: string
  /** Distinct values per selected column in the final version (e.g. user_id, item_id). */
  distinct: Record<string, number>
  files: FileLayout[]
}

/** What `generateSampleTables` did for one table. */
export interface TableSummary {
  table: string
  dir: string
  /** True when `ifMissing` found a matching table and nothing was written. */
  skipped: boolean
  info: GeneratorInfo
  /** Wall time in ms spent on this table (0 if skipped). */
  ms: number
}

/** What `generateSampleTables` returns. */
export interface Summary {
  outDir: string
  tables: TableSummary[]
}

/** AUCs of one set of rows against its drawn labels (ceiling.ts). */
export interface CeilingAucs {
  rows: number
  /** True probabilities (= bayesAuc over all rows). */
  bayesAuc: number
  /** Per-user hidden terms (u·v interaction, user bias) replaced by their mean, 0. */
  learnableAuc: number
  /** Per-user terms integrated out: E over u·v ~ N(0, σ_u²·|v|²), bias ~ N(0, σ_b²) of the probability. */
  learnableAucMarginal: number
}

/**
 * The clicks "learnable ceiling": AUCs with the per-user hidden terms removed, over all final rows
 * and over the validation rows of `--valid-fraction f --seed s` splits (the trainers' split by row key, src/data/row-key.ts).
 * Not a strict bound: users are Zipf-distributed, so a model can learn frequent users' terms.
 */
export interface LearnableCeiling extends CeilingAucs {
  splits: Array<CeilingAucs & { seed: number; fraction: number }>
}
