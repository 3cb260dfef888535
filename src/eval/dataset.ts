/**
 * Table → dense training data, for every family that trains on dense columns (GBDT, gblinear):
 * plan the scan (features + label, filter), read it in table order through the loader (numeric
 * columns as float32, NaN = null; string columns as utf8, nulls kept, then categoricals →
 * dictionary codes), then split off the validation rows (a seeded per-row split or a second
 * table). N = training rows, V = validation rows, F = features.
 */
import { utf8Strings } from '../data/decode.ts'
import { createLoader } from '../data/loader.ts'
import { noRowsError, planScan } from '../data/plan.ts'
import { rowKeyFields, validMaskOfKeys } from '../data/row-key.ts'
import type { DecodeSpec, ScanPlan } from '../data/types.ts'
import { openSnapshot } from '../table/index.ts'
import type { HttpOptions, Snapshot, StructField } from '../table/types.ts'
import { httpFor } from '../run/config.ts'
import type { RunInput } from '../run/family.ts'
import { buildDictionary, encodeCategorical, selectFeatures, type FeatureSpec, type SkippedColumn } from './features.ts'
import {
  checkRowValues,
  checkWeightSum,
  pickRowValues,
  qidCodes,
  rowColumnNames,
  rowColumnsOf,
  type RowValues,
} from './row-columns.ts'

/** Dense training rows: what a dataset hands a family's trainer. N = rows, F = features. */
export interface TrainData {
  /** F Float32Arrays of N values. */
  columns: Float32Array[]
  /** Float32Array, length N. */
  labels: Float32Array
  /** Row weights, length N (default 1): XGBoost's DMatrix `weight`. */
  weights?: Float32Array
  /**
   * Each row's starting margin, N × K row-major (K = 1: one output per row), in place of the
   * model's base_score: XGBoost's DMatrix `base_margin`.
   */
  baseMargin?: Float32Array
  featureNames?: string[]
  featureTypes?: string[]
  /** Label column name, for error messages. */
  labelName?: string
  /**
   * A string label's classes (multi:*): label k of these rows (and of `valid`) means
   * labelValues[k], sorted; the model stores them (Booster.labelValues).
   */
  labelValues?: string[]
  /**
   * Query groups of a ranking run (--qid): XGBoost's group_ptr, length G + 1 (groups[0] = 0,
   * groups[G] = N); the rows of group g are [groups[g], groups[g + 1]), gathered so by the dataset.
   */
  groups?: Uint32Array
  valid?: {
    columns: Float32Array[]
    labels: Float32Array
    weights?: Float32Array
    baseMargin?: Float32Array
    /** The validation rows' group_ptr (ranking). */
    groups?: Uint32Array
  }
}

/** What to train on. */
export interface DatasetConfig {
  /** Table root URL (absolute, ending in '/'). */
  tableUrl: string
  version?: number
  /** The table already opened at its pinned version (the run opens it once); else opened here. */
  snapshot?: Snapshot
  label: string
  /** Row weight column (--weight): rows/checks in row-columns.ts. */
  weight?: string
  /** Base margin column (--base-margin). */
  baseMargin?: string
  /**
   * Query id column (--qid), ranking: each set's rows are gathered by group (groupRows) and the
   * seeded validation split keeps every group whole (its key is this column).
   */
  qid?: string
  /** Feature columns; default every usable column except the label, weight and base margin. */
  features?: string[]
  /** Dictionaries to code string features with (a continued model's); default built from the training rows. */
  dictionaries?: Record<string, string[]>
  /** The label's values are classes (a multi:* objective): a string label is coded through a sorted dictionary (TrainData.labelValues). */
  classLabels?: boolean
  /** The classes a string label is coded with (a continued model's); default built from the table's rows. */
  labelValues?: string[]
  filter?: string
  /** Validation table (same columns); exclusive with validFraction. */
  validTable?: { url: string; version?: number; http?: HttpOptions; snapshot?: Snapshot }
  /** Share of rows, in (0, 1), held out by their row keys (src/data/row-key.ts). */
  validFraction?: number
  /** Key columns of the split (--split-key); default the label and the features (row-key.ts rowKeyFields). */
  splitKey?: string[]
  seed: number
  /** Loader workers (0 = read on this thread). */
  workers?: number
  http?: HttpOptions
  /**
   * Hears the numeric read's progress: rows read so far and the plan's rows, after each loader
   * batch (0 of N first). Called once per table read (training, then validation table).
   */
  onProgress?: (rowsRead: number, rowsTotal: number) => void
}

/** The columns of one scanned table, in table order. */
export interface TableColumns {
  plan: ScanPlan
  snapshot: Snapshot
  /** Features (Float32Array of the plan's rows each), in feature order. */
  columns: Float32Array[]
  /** Labels as float32 (NaN = null), when a label was read; a string label's class codes (labelValues). */
  labels?: Float32Array
  /** A string label's classes: code k is labelValues[k] (sorted distinct values, or the training rows' given ones). */
  labelValues?: string[]
  /** The row columns (weight, base margin) as float32 (NaN = null), those that were read. */
  rowValues?: RowValues
  /** File path and file-relative row index of each row (for error messages). */
  paths: string[]
  rows: Uint32Array
  /** Row key of each row (the seeded split), when the read was given key columns. */
  keys?: Uint32Array
}

/** A training set ready for the driver, with what the manifest records. */
export interface Dataset {
  data: TrainData
  features: FeatureSpec[]
  skipped: SkippedColumn[]
  /** Dictionary of each categorical feature (code = index). */
  dictionaries: Record<string, string[]>
  plan: ScanPlan
  validPlan?: ScanPlan
  rowsTrain: number
  rowsValid: number
}

/**
 * The dataset request of a run: its table at the pinned snapshot, label, filter, validation rows
 * (a second table or a seeded fraction), loader workers and progress, with the family's `features`
 * (default every usable column but the label) and `extra` fields (e.g. a continued model's dictionaries).
 */
export function datasetRequest(
  input: RunInput,
  seed: number,
  features: string[] | undefined,
  extra: Partial<DatasetConfig> = {},
): DatasetConfig {
  const { config } = input
  return {
    tableUrl: config.table,
    version: config.version,
    snapshot: input.snapshot,
    label: config.label,
    ...rowColumnsOf(config),
    features,
    filter: config.filter,
    validTable: config.validTable
      ? {
          url: config.validTable,
          version: config.validVersion,
          snapshot: input.validSnapshot,
          http: httpFor(config, config.validTable),
        }
      : undefined,
    validFraction: config.validFraction,
    splitKey: config.splitKey,
    seed,
    workers: config.workers,
    http: httpFor(config, config.table),
    onProgress: input.onRead,
    ...extra,
  }
}

/**
 * What a load of cfg's table starts from, on one rank or many: the snapshot (opened at its version
 * unless given), the feature columns with what was skipped, and the split's row-key fields.
 */
export async function openDataset(cfg: DatasetConfig): Promise<{
  snapshot: Snapshot
  features: FeatureSpec[]
  skipped: SkippedColumn[]
  rowKey: ReturnType<typeof splitKeyFields>
}> {
  const snapshot = cfg.snapshot ?? (await openSnapshot(cfg.tableUrl, { version: cfg.version, ...cfg.http }))
  const { features, skipped } = selectFeatures(
    snapshot.schema,
    cfg.label,
    cfg.features,
    rowColumnsOf(cfg),
    cfg.classLabels,
  )
  return { snapshot, features, skipped, rowKey: splitKeyFields(cfg, snapshot, features) }
}

/** Loads the training (and validation) data. Throws naming the label, column, filter or table. */
export async function loadDataset(cfg: DatasetConfig): Promise<Dataset> {
  if (cfg.validFraction !== undefined && cfg.validTable)
    throw new RangeError('give either a validation table or a validation fraction, not both')
  if (cfg.validFraction !== undefined && !(cfg.validFraction > 0 && cfg.validFraction < 1)) {
    throw new RangeError(`valid fraction: must be in (0, 1), got ${cfg.validFraction}`)
  }
  const { snapshot, features, skipped, rowKey } = await openDataset(cfg)
  const table = await readTable(snapshot, features, cfg.dictionaries, { ...cfg, rowKey })
  if (table.plan.stats.rows === 0) {
    throw noRowsError(cfg.filter, cfg.tableUrl, snapshot.version)
  }
  const dictionaries = table.dictionaries
  const base = { features, skipped, dictionaries, plan: table.plan }
  if (cfg.validTable) {
    // Why its own HTTP options: credentials for the training table are not the validation table's.
    const http = cfg.validTable.http ?? cfg.http
    const vs =
      cfg.validTable.snapshot ?? (await openSnapshot(cfg.validTable.url, { version: cfg.validTable.version, ...http }))
    const valid = await readTable(vs, features, dictionaries, {
      ...cfg,
      filter: cfg.filter,
      http,
      labelValues: table.labelValues,
    })
    if (valid.plan.stats.rows === 0)
      throw new RangeError(
        `validation table ${cfg.validTable.url} has no rows${cfg.filter ? ` matching "${cfg.filter}"` : ''}`,
      )
    return {
      ...base,
      validPlan: valid.plan,
      data: trainData(cfg, features, table, valid),
      rowsTrain: table.plan.stats.rows,
      rowsValid: valid.plan.stats.rows,
    }
  }
  return splitByFraction(cfg, base, table)
}

/** Training data from all of `train`, plus `valid` when given. */
function trainData(cfg: DatasetConfig, features: FeatureSpec[], train: TableColumns, valid?: TableColumns): TrainData {
  return {
    ...groupRows({
      columns: train.columns,
      labels: requireLabels(cfg.label, train),
      ...checkRowValues(cfg, train, 'training'),
    }),
    labelName: cfg.label,
    ...(train.labelValues ? { labelValues: train.labelValues } : {}),
    featureNames: features.map(f => f.name),
    featureTypes: features.map(f => f.xgbType),
    valid: valid
      ? groupRows({
          columns: valid.columns,
          labels: requireLabels(cfg.label, valid),
          ...checkRowValues(cfg, valid, 'validation'),
        })
      : undefined,
  }
}

/** A set of dense rows with its row columns (RowValues), as split or read. */
type RowSet = { columns: Float32Array[]; labels: Float32Array } & RowValues

/**
 * A ranking set's rows gathered by query group (the qid values): groups in order of first
 * appearance, rows of a group in their order (a stable gather), with XGBoost's group_ptr as
 * `groups`; the qid values themselves are dropped. A set without qid values is returned as is.
 */
export function groupRows(set: RowSet): Omit<RowSet, 'qid'> & { groups?: Uint32Array } {
  const { qid, ...rest } = set
  if (!qid) return rest
  const n = qid.length,
    index = new Map<number, number>(),
    groupOf = new Uint32Array(n)
  for (let i = 0; i < n; i++) {
    let g = index.get(qid[i])
    if (g === undefined) index.set(qid[i], (g = index.size))
    groupOf[i] = g
  }
  const groups = new Uint32Array(index.size + 1)
  for (let i = 0; i < n; i++) groups[groupOf[i] + 1]++
  for (let g = 0; g < index.size; g++) groups[g + 1] += groups[g]
  const next = groups.slice(0, index.size),
    order = new Uint32Array(n)
  for (let i = 0; i < n; i++) order[next[groupOf[i]]++] = i
  const gather = (a: Float32Array): Float32Array => {
    const out = new Float32Array(n)
    for (let k = 0; k < n; k++) out[k] = a[order[k]]
    return out
  }
  return {
    columns: rest.columns.map(gather),
    labels: gather(rest.labels),
    ...(rest.weights ? { weights: gather(rest.weights) } : {}),
    ...(rest.baseMargin ? { baseMargin: gather(rest.baseMargin) } : {}),
    groups,
  }
}

function splitByFraction(
  cfg: DatasetConfig,
  base: Omit<Dataset, 'data' | 'rowsTrain' | 'rowsValid'>,
  table: TableColumns & { dictionaries: Record<string, string[]> },
): Dataset {
  const fraction = cfg.validFraction
  if (fraction === undefined)
    return { ...base, data: trainData(cfg, base.features, table), rowsTrain: table.rows.length, rowsValid: 0 }
  const isValid = validMaskOfKeys(table.keys!, cfg.seed, fraction)
  const pick = (want: number) => (a: Float32Array) => a.filter((_, i) => isValid[i] === want)
  const labels = requireLabels(cfg.label, table)
  const rows = checkRowValues(cfg, table)
  const train = groupRows({
    columns: table.columns.map(pick(0)),
    labels: pick(0)(labels),
    ...pickRowValues(rows, pick(0)),
  })
  const valid = groupRows({
    columns: table.columns.map(pick(1)),
    labels: pick(1)(labels),
    ...pickRowValues(rows, pick(1)),
  })
  checkWeightSum(cfg, train.weights)
  if (valid.labels.length > 0) checkWeightSum(cfg, valid.weights, 'validation')
  if (train.labels.length === 0) throw new RangeError(`valid fraction ${fraction} leaves no training rows`)
  return {
    ...base,
    rowsTrain: train.labels.length,
    rowsValid: valid.labels.length,
    data: {
      ...train,
      labelName: cfg.label,
      ...(table.labelValues ? { labelValues: table.labelValues } : {}),
      featureNames: base.features.map(f => f.name),
      featureTypes: base.features.map(f => f.xgbType),
      valid: valid.labels.length > 0 ? valid : undefined,
    },
  }
}

/** Key columns of the run's seeded split (none without a validation fraction). Throws naming a --split-key column. */
export function splitKeyFields(
  cfg: Pick<DatasetConfig, 'validFraction' | 'splitKey' | 'label' | 'qid'>,
  snapshot: Snapshot,
  features: FeatureSpec[],
): StructField[] | undefined {
  if (cfg.validFraction === undefined) return undefined
  // Ranking splits by query group: the key is the qid column alone, so no group is split.
  if (cfg.qid !== undefined && cfg.splitKey && (cfg.splitKey.length !== 1 || cfg.splitKey[0] !== cfg.qid))
    throw new RangeError(
      `--split-key: a ranking run splits by query group (--qid ${cfg.qid}), got --split-key ${cfg.splitKey.join(',')}`,
    )
  const named = cfg.qid !== undefined ? [cfg.qid] : cfg.splitKey
  return rowKeyFields(snapshot.schema, [cfg.label, ...features.map(f => f.name)], named)
}

/** Labels with nulls refused (naming the column, the file and the row). */
export function requireLabels(label: string, t: Pick<TableColumns, 'labels' | 'paths' | 'rows'>): Float32Array {
  const y = t.labels!
  const nullAt = y.findIndex(v => Number.isNaN(v))
  if (nullAt >= 0) throw new RangeError(`label column ${label}: null at ${t.paths[nullAt]} row ${t.rows[nullAt]}`)
  return y
}

/**
 * Reads `features` (and cfg.label) of `snapshot` in table order. Categorical features use
 * `dictionaries` when given (validation / prediction), else dictionaries built from these rows.
 */
export async function readTable(
  snapshot: Snapshot,
  features: FeatureSpec[],
  dictionaries: Record<string, string[]> | undefined,
  cfg: {
    label?: string
    /** The row columns to read too (TableColumns.rowValues). */
    weight?: string
    baseMargin?: string
    qid?: string
    filter?: string
    workers?: number
    http?: HttpOptions
    restrict?: (plan: ScanPlan) => ScanPlan | Promise<ScanPlan>
    onProgress?: DatasetConfig['onProgress']
    /** Key columns: each row's key is read too (TableColumns.keys). */
    rowKey?: StructField[]
    /** A string label is allowed: its values are coded as classes (TableColumns.labelValues). */
    classLabels?: boolean
    /** The classes' values a string label is coded with (the training rows'); default built from these rows. */
    labelValues?: string[]
  },
): Promise<TableColumns & { dictionaries: Record<string, string[]> }> {
  const numeric = features.filter(f => f.kind === 'numeric').map(f => f.name)
  const strings = features.filter(f => f.kind === 'categorical').map(f => f.name)
  const columns = features.map(f => f.name)
  const extra = rowColumnNames(cfg)
  // A string query id is read as text and coded (row-columns.ts qidCodes); the other row columns as float32.
  const stringQid = cfg.qid !== undefined && isStringColumn(snapshot, cfg.qid)
  const qidText = stringQid ? [cfg.qid!] : []
  const stringLabel = cfg.label !== undefined && isStringColumn(snapshot, cfg.label)
  if (stringLabel && !cfg.classLabels)
    throw new RangeError(
      `label column ${cfg.label}: a string label needs a multi:* objective (its values become the classes)`,
    )
  const labelText = stringLabel ? [cfg.label!] : []
  const floats = [
    ...numeric,
    ...(cfg.label && !stringLabel ? [cfg.label] : []),
    ...extra.filter(c => c !== cfg.qid || !stringQid),
  ]
  // Planned on the numeric columns and the label (the plan's digest inputs as before); the loader
  // then reads the same units (same filter, deletion vectors) with the string columns too.
  const scanned = await planScan(snapshot, {
    columns: [...numeric, ...(cfg.label ? [cfg.label] : []), ...extra],
    filter: cfg.filter,
    ...cfg.http,
  })
  const planned = cfg.rowKey ? { ...scanned, rowKey: cfg.rowKey } : scanned
  // A rank (ranks.ts loadRankDataset) reads only some units: the same plan with fewer units.
  const plan = cfg.restrict ? await cfg.restrict(planned) : planned
  const read = await readColumns(
    withColumns(plan, snapshot, [...floats, ...strings, ...labelText, ...qidText]),
    floats,
    [...strings, ...labelText, ...qidText],
    cfg,
  )
  const text = read.strings
  const dicts: Record<string, string[]> = {}
  for (const name of strings) dicts[name] = dictionaries?.[name] ?? buildDictionary(text.get(name)!)
  const out = features.map(f =>
    f.kind === 'numeric' ? read.values.get(f.name)! : encodeCategorical(text.get(f.name)!, dicts[f.name]),
  )
  const classes = stringLabel ? labelClasses(cfg.label!, text.get(cfg.label!)!, cfg.labelValues, read) : undefined
  return {
    plan: withColumns(plan, snapshot, [...columns, ...(cfg.label ? [cfg.label] : []), ...extra]),
    snapshot,
    columns: out,
    labels: classes ? classes.codes : cfg.label ? read.values.get(cfg.label) : undefined,
    ...(classes ? { labelValues: classes.values } : {}),
    ...(extra.length > 0
      ? {
          rowValues: {
            weights: cfg.weight === undefined ? undefined : read.values.get(cfg.weight),
            baseMargin: cfg.baseMargin === undefined ? undefined : read.values.get(cfg.baseMargin),
            qid:
              cfg.qid === undefined ? undefined : stringQid ? qidCodes(text.get(cfg.qid)!) : read.values.get(cfg.qid),
          },
        }
      : {}),
    paths: read.paths,
    rows: read.rows,
    keys: read.keys,
    dictionaries: dicts,
  }
}

/** Whether `name` is a string column of the table. */
export function isStringColumn(snapshot: Snapshot, name: string): boolean {
  return snapshot.schema.fields.find(f => f.name === name)?.type === 'string'
}

/**
 * A string label's classes (a multi:* objective): each row's code in `given` (the training rows'
 * classes) or, without it, in the sorted distinct values of these rows (buildDictionary, so the
 * codes depend neither on row order nor on file layout); null → NaN, which requireLabels refuses
 * naming its row. Throws naming the column, the value, the file and the row of a value `given`
 * lacks (a validation row of a class the training rows do not have).
 */
export function labelClasses(
  label: string,
  text: ReadonlyArray<string | null>,
  given: readonly string[] | undefined,
  t: Pick<TableColumns, 'paths' | 'rows'>,
): { codes: Float32Array; values: string[] } {
  const values = given ? given.slice() : buildDictionary(text)
  const codes = encodeCategorical(text, values)
  const bad = codes.findIndex((c, i) => Number.isNaN(c) && text[i] !== null)
  if (bad >= 0)
    throw new RangeError(
      `label column ${label}: value ${JSON.stringify(text[bad])} at ${t.paths[bad]} row ${t.rows[bad]} is not one of the training rows' classes (${values.map(v => JSON.stringify(v)).join(', ')})`,
    )
  return { codes, values }
}

/** The same plan (units, files, digest inputs) delivering `columns` instead. */
function withColumns(plan: ScanPlan, snapshot: Snapshot, columns: string[]): ScanPlan {
  const fields = columns.map(n => snapshot.schema.fields.find(f => f.name === n)!)
  return { ...plan, columns, schema: plan.schema && { ...plan.schema, fields } }
}

/**
 * Float32 columns `names` and string columns `strings` (null kept) of the plan, in table order
 * (no shuffle, one rank), with each row's file path and file-relative index. Checks that delivery
 * follows the plan's unit order.
 */
async function readColumns(
  plan: ScanPlan,
  names: string[],
  strings: string[],
  cfg: { workers?: number; http?: HttpOptions; onProgress?: DatasetConfig['onProgress'] },
): Promise<{
  values: Map<string, Float32Array>
  strings: Map<string, (string | null)[]>
  paths: string[]
  rows: Uint32Array
  keys?: Uint32Array
}> {
  const n = plan.stats.rows
  const values = new Map(names.map(name => [name, new Float32Array(n)]))
  const text = new Map(strings.map(name => [name, new Array<string | null>(n)]))
  const paths = new Array<string>(n),
    rows = new Uint32Array(n),
    keys = plan.rowKey ? new Uint32Array(n) : undefined
  cfg.onProgress?.(0, n)
  if (n === 0 || (names.length === 0 && strings.length === 0 && !keys)) {
    cfg.onProgress?.(n, n)
    return { values, strings: text, paths, rows, keys }
  }
  const spec: DecodeSpec = Object.fromEntries([
    ...names.map(name => [name, 'float32' as const]),
    ...strings.map(name => [name, 'utf8' as const]),
  ])
  const loader = createLoader(plan, {
    assign: { epoch: 0, worldSize: 1, rank: 0 },
    batchSize: 65_536,
    spec,
    workers: cfg.workers,
    ids: true,
    http: cfg.http,
  })
  let at = 0,
    lastUnit = 0
  try {
    for await (const batch of loader.batches()) {
      for (const name of names) values.get(name)!.set(batch.columns[name].values as Float32Array, at)
      for (const name of strings) {
        const out = text.get(name)!
        utf8Strings(batch.columns[name]).forEach((v, i) => (out[at + i] = v))
      }
      if (keys) keys.set(batch.keys!, at)
      for (let i = 0; i < batch.size; i++) {
        const unit = batch.ids!.unit[i]
        if (unit < lastUnit)
          throw new Error(`loader delivered unit ${unit} after unit ${lastUnit}: table order expected`)
        lastUnit = unit
        paths[at + i] = plan.files[plan.units[unit].fileIndex].path
        rows[at + i] = batch.ids!.row[i]
      }
      at += batch.size
      cfg.onProgress?.(at, n)
    }
  } finally {
    await loader.close()
  }
  if (at !== n) throw new Error(`loader delivered ${at} rows, the plan has ${n}`)
  return { values, strings: text, paths, rows, keys }
}
