/**
 * The public quality tables: CSV files we did not make (bench/data/<name>/<name>.csv.gz, copied
 * byte for byte from their published source; bench/data/SOURCES.md names each origin and
 * licence), turned into Delta tables under bench/tables/quality-public/<name>/ by the sample-table
 * generator's writer, once, when missing or stale. The transformation is the code below and
 * nothing else: drop the listed columns (the row number, leaks of the label, identifiers with more
 * levels than bins), derive the label (a 0/1 or class-index integer, or a number for regression
 * and counts), and type every other column by its values — a column whose values all parse as
 * numbers (R's `NA` = null) becomes `integer` (all whole, within int32) or `double`, any other
 * column a Delta `string`. Rows keep the file's order. Several tables may derive other labels from
 * one file (`file`). The ranking table (letor_sample, LightGBM's libsvm files with their query
 * files) is read straight into training rows instead (`rankingData`): its groups are the files'.
 */
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { rowGroupRowsFor } from '../tools/datagen/clicks.ts'
import { DeltaTableWriter } from '../tools/datagen/delta-writer.ts'
import type { ColumnSpec, ColumnValues, Frame } from '../tools/datagen/types.ts'
import type { TrainData } from '../src/eval/dataset.ts'
import { PROJECT_ROOT } from '../src/serve/page-server.ts'

/** Recorded in each table's `_source.json`; bump when the transformation changes. */
const CONVERTER = 'snaptrain quality-data 1'

/** One public table: its committed source file, the label it derives and the columns it drops. */
export interface PublicTable {
  /** Where the CSV was published (Rdatasets path), for the README and SOURCES.md. */
  origin: string
  /** The source file bench/data/<file>/<file>.csv.gz; default the table's name. */
  file?: string
  /** Name of the derived label column: an integer (0/1, a class index, a count, dollars, minutes). */
  label: string
  /**
   * The label of one source row (by column name); with `classes`, that column's value's index
   * in the class list instead.
   */
  labelOf?: (row: (column: string) => string) => number
  /**
   * A class-index label: the value of `column` as its index in `order` (the classes in a given
   * order), or, without `order`, in the column's distinct values sorted (JavaScript string order).
   */
  classes?: { column: string; order?: readonly string[] }
  /** Source columns left out (besides the label's source column, listed here too). */
  drop: string[]
}

/** Ames sale prices above this (the median of the 2,930 sales) are the positive class. */
const AMES_MEDIAN_PRICE = 160_000
/** US DOT: a flight is late when it arrives more than 15 minutes after its schedule. */
const LATE_MINUTES = 15
/** GIA clarity grades, worst to best (ggplot2's ordered factor levels of diamonds$clarity). */
export const DIAMOND_CLARITY = ['I1', 'SI2', 'SI1', 'VS2', 'VS1', 'VVS2', 'VVS1', 'IF'] as const
/** What nycflights knows only once the flight has left (times and delays), and tailnum (see nycflights). */
const FLIGHT_AFTER_DEPARTURE = ['dep_time', 'dep_delay', 'arr_time', 'arr_delay', 'air_time']

/** The public tables of the quality comparison, by name. */
export const PUBLIC_TABLES: Record<string, PublicTable> = {
  lending_club: {
    origin: 'Rdatasets csv/modeldata/lending_club.csv',
    label: 'bad',
    labelOf: r => (r('Class') === 'bad' ? 1 : 0),
    drop: ['rownames', 'Class'],
  },
  nycflights: {
    origin: 'Rdatasets csv/openintro/nycflights.csv',
    label: 'late',
    labelOf: r => (Number(r('arr_delay')) > LATE_MINUTES ? 1 : 0),
    // What is known only once the flight has left (times and delays) would leak the label;
    // tailnum has 3,490 levels, more than max_bin allows a categorical feature; year is constant.
    drop: ['rownames', 'year', 'dep_time', 'dep_delay', 'arr_time', 'arr_delay', 'air_time', 'tailnum'],
  },
  mlc_churn: {
    origin: 'Rdatasets csv/modeldata/mlc_churn.csv',
    label: 'churned',
    labelOf: r => (r('churn') === 'yes' ? 1 : 0),
    drop: ['rownames', 'churn'],
  },
  ames: {
    origin: 'Rdatasets csv/modeldata/ames.csv',
    label: 'expensive',
    labelOf: r => (Number(r('Sale_Price')) > AMES_MEDIAN_PRICE ? 1 : 0),
    drop: ['rownames', 'Sale_Price'],
  },
  // Tasks beyond binary (issue 29 §3): other labels of the files above, and three more files.
  diamonds_clarity: {
    origin: 'Rdatasets csv/ggplot2/diamonds.csv',
    file: 'diamonds',
    label: 'clarity_grade',
    classes: { column: 'clarity', order: DIAMOND_CLARITY },
    drop: ['rownames', 'clarity'],
  },
  diamonds_price: {
    origin: 'Rdatasets csv/ggplot2/diamonds.csv',
    file: 'diamonds',
    label: 'price',
    labelOf: r => Number(r('price')),
    drop: ['rownames', 'price'],
  },
  ames_neighborhood: {
    origin: 'Rdatasets csv/modeldata/ames.csv',
    file: 'ames',
    label: 'neighborhood',
    classes: { column: 'Neighborhood' },
    // The coordinates locate the house, which names its neighbourhood outright.
    drop: ['rownames', 'Neighborhood', 'Latitude', 'Longitude'],
  },
  ames_price: {
    origin: 'Rdatasets csv/modeldata/ames.csv',
    file: 'ames',
    label: 'sale_price',
    labelOf: r => Number(r('Sale_Price')),
    drop: ['rownames', 'Sale_Price'],
  },
  nycflights_delay: {
    origin: 'Rdatasets csv/openintro/nycflights.csv',
    file: 'nycflights',
    label: 'arrival_delay',
    labelOf: r => Number(r('arr_delay')),
    drop: ['rownames', 'year', ...FLIGHT_AFTER_DEPARTURE, 'tailnum'],
  },
  rwm5yr: {
    origin: 'Rdatasets csv/COUNT/rwm5yr.csv',
    label: 'doctor_visits',
    labelOf: r => Number(r('docvis')),
    // id: the patient (a panel of 5 years); hospvis: the same year's hospital days, an outcome like the label.
    drop: ['rownames', 'docvis', 'id', 'hospvis'],
  },
  nass_cds: {
    origin: 'Rdatasets csv/DAAG/nassCDS.csv',
    label: 'died',
    labelOf: r => (r('dead') === 'dead' ? 1 : 0),
    // injSeverity 4 is "killed" (the label); caseid identifies the vehicle. `weight` (NASS's
    // national inflation factor) stays: the weighted task's --weight, never a feature.
    drop: ['rownames', 'dead', 'injSeverity', 'caseid'],
  },
}

/** Parent folder of the converted tables (git-ignored, like every generated table). */
const OUT_DIR = join(PROJECT_ROOT, 'bench', 'tables', 'quality-public')

/**
 * The Delta table of public table `name`, converted from its committed CSV when missing or made
 * from another file or converter; returns the folder holding `<name>/`.
 */
export async function publicTable(name: string, log?: (s: string) => void): Promise<string> {
  const spec = PUBLIC_TABLES[name]
  if (!spec) throw new RangeError(`quality: unknown public table '${name}' (${Object.keys(PUBLIC_TABLES).join(', ')})`)
  const file = spec.file ?? name
  const gz = await readFile(join(PROJECT_ROOT, 'bench', 'data', file, `${file}.csv.gz`))
  const source = { converter: CONVERTER, sha256: createHash('sha256').update(gz).digest('hex') }
  const dir = join(OUT_DIR, name)
  if (await isCurrent(dir, source)) return OUT_DIR
  const { specs, frame } = convert(name, spec, gunzipSync(gz).toString('utf8'))
  const tmp = join(OUT_DIR, `.${name}.tmp-${process.pid}`)
  await rm(tmp, { recursive: true, force: true })
  try {
    const writer = new DeltaTableWriter(tmp, specs, 0, name, `rows=${frame.numRows}`)
    const file = await writer.writeDataFile(frame, rowGroupRowsFor(frame.numRows))
    await writer.commit(
      {
        operation: 'WRITE',
        operationParameters: { mode: 'Overwrite', partitionBy: '[]' },
        operationMetrics: {
          numFiles: '1',
          numOutputRows: String(frame.numRows),
          numOutputBytes: String(file.add.size),
        },
      },
      [file.add],
      [],
    )
    await writeFile(join(tmp, '_source.json'), JSON.stringify({ ...source, rows: frame.numRows }, null, 2) + '\n')
    await rm(dir, { recursive: true, force: true })
    await rename(tmp, dir)
  } finally {
    await rm(tmp, { recursive: true, force: true })
  }
  log?.(
    `${name}: ${frame.numRows} rows, ${specs.length - 1} columns besides the label, converted from bench/data/${file}/`,
  )
  return OUT_DIR
}

async function isCurrent(dir: string, source: { converter: string; sha256: string }): Promise<boolean> {
  if (!existsSync(join(dir, '_delta_log'))) return false
  try {
    const s = JSON.parse(await readFile(join(dir, '_source.json'), 'utf8')) as typeof source
    return s.converter === source.converter && s.sha256 === source.sha256
  } catch {
    return false
  }
}

/** The table's columns (schema order: kept source columns, then the label) and values. */
export function convert(name: string, spec: PublicTable, text: string): { specs: ColumnSpec[]; frame: Frame } {
  const lines = text.split(/\r?\n/).filter(l => l !== '')
  if (text.includes('"')) throw new Error(`bench/data/${name}: quoted CSV fields are not supported by this converter`)
  const header = lines[0].split(',')
  const records = lines.slice(1).map((l, i) => {
    const r = l.split(',')
    if (r.length !== header.length)
      throw new Error(`bench/data/${name}: line ${i + 2} has ${r.length} fields, the header ${header.length}`)
    return r
  })
  for (const d of spec.drop)
    if (!header.includes(d)) throw new Error(`bench/data/${name}: no column ${d} to drop (columns: ${header})`)
  const specs: ColumnSpec[] = [],
    columns: Record<string, ColumnValues> = {}
  header.forEach((column, c) => {
    if (spec.drop.includes(column)) return
    const typed = typeColumn(records.map(r => r[c]))
    specs.push({ name: column, type: typed.type, nullable: typed.nullable })
    columns[column] = typed.values
  })
  const labels = labelValues(name, spec, header, records)
  columns[spec.label] = Int32Array.from(labels)
  specs.push({ name: spec.label, type: 'integer', nullable: false })
  return { specs, frame: { numRows: records.length, columns } }
}

/** Each record's label (labelOf or the class index); throws naming the file and line when it is not an integer. */
function labelValues(name: string, spec: PublicTable, header: string[], records: string[][]): number[] {
  const at = new Map(header.map((h, i) => [h, i]))
  const cell = (r: string[], column: string): string => {
    const c = at.get(column)
    if (c === undefined) throw new Error(`bench/data/${name}: no column ${column} for the label (columns: ${header})`)
    return r[c]
  }
  const classes = spec.classes
  let labelOf = spec.labelOf
  if (classes) {
    const order = classes.order ?? [...new Set(records.map(r => cell(r, classes.column)))].sort()
    const index = new Map(order.map((v, k) => [v, k]))
    labelOf = row => index.get(row(classes.column)) ?? NaN
  }
  if (!labelOf) throw new Error(`bench/data/${name}: the table gives neither labelOf nor classes`)
  return records.map((r, i) => {
    const y = labelOf(column => cell(r, column))
    if (!(Number.isInteger(y) && Math.abs(y) < 2 ** 31))
      throw new Error(
        `bench/data/${name}: line ${i + 2}: no integer label ${spec.label} (from ${classes?.column ?? 'its source columns'})`,
      )
    return y
  })
}

/** A column's Delta type and values: numbers when every value parses as one (`NA` = null), else strings. */
function typeColumn(raw: string[]): { type: 'integer' | 'double' | 'string'; nullable: boolean; values: ColumnValues } {
  const nullable = raw.includes('NA')
  const numbers = raw.map(v => (v === 'NA' ? null : v.trim() === '' ? NaN : Number(v)))
  if (numbers.some(v => v !== null && !Number.isFinite(v)))
    return { type: 'string', nullable, values: raw.map(v => (v === 'NA' ? null : v)) }
  if (numbers.every(v => v === null || (Number.isInteger(v) && Math.abs(v) < 2 ** 31)))
    return { type: 'integer', nullable, values: nullable ? numbers : Int32Array.from(numbers as number[]) }
  return { type: 'double', nullable, values: Float64Array.from(numbers, v => (v === null ? NaN : v)) }
}

/** A ranking table: libsvm files (`label index:value …`, 1-based indices) with a query file each (one group size per line). */
export interface RankingTable {
  /** Where the files were published, for the README and SOURCES.md. */
  origin: string
  /** bench/data/<name>/<train>.gz and <train>.query: the training rows. */
  train: string
  /** The validation rows (the publisher's test file), likewise. */
  valid: string
}

/** The ranking tables of the quality comparison, by name. */
export const RANKING_TABLES: Record<string, RankingTable> = {
  letor_sample: {
    origin: 'github.com/microsoft/LightGBM examples/lambdarank',
    train: 'rank.train',
    valid: 'rank.test',
  },
}

/** One libsvm file's rows: labels, the group pointer of its query file and each row's (index, value) entries. */
export interface LibsvmRows {
  labels: Float32Array
  /** XGBoost's group_ptr: group g holds rows [groups[g], groups[g + 1]). */
  groups: Uint32Array
  entries: Array<Array<[number, number]>>
}

/**
 * Parses a libsvm file and its query file (`what` names them in errors). Absent entries are
 * missing values, as XGBoost reads libsvm; the query file's sizes must add up to the rows.
 */
export function parseLibsvm(what: string, text: string, query: string): LibsvmRows {
  const lines = text.split(/\r?\n/).filter(l => l.trim() !== '')
  const labels = new Float32Array(lines.length)
  const entries = lines.map((line, i) => {
    const [label, ...pairs] = line.trim().split(/\s+/)
    labels[i] = Number(label)
    if (!Number.isFinite(labels[i])) throw new Error(`${what}: line ${i + 1}: label '${label}' is not a number`)
    return pairs.map((p): [number, number] => {
      const [index, value] = p.split(':').map(Number)
      if (!(Number.isInteger(index) && index >= 0 && Number.isFinite(value)))
        throw new Error(`${what}: line ${i + 1}: '${p}' is not index:value`)
      return [index, value]
    })
  })
  const sizes = query
    .split(/\r?\n/)
    .filter(l => l.trim() !== '')
    .map(Number)
  const groups = new Uint32Array(sizes.length + 1)
  sizes.forEach((n, g) => {
    if (!(Number.isInteger(n) && n > 0)) throw new Error(`${what}.query: line ${g + 1}: '${n}' is not a group size`)
    groups[g + 1] = groups[g] + n
  })
  if (groups[sizes.length] !== lines.length)
    throw new Error(`${what}.query: the groups hold ${groups[sizes.length]} rows, the file ${lines.length}`)
  return { labels, groups, entries }
}

/** Dense columns (NaN = missing) of `rows` for the feature indices `indices`. */
function denseColumns(rows: LibsvmRows, indices: number[]): Float32Array[] {
  const at = new Map(indices.map((f, c) => [f, c]))
  const columns = indices.map(() => new Float32Array(rows.labels.length).fill(NaN))
  rows.entries.forEach((e, i) => {
    for (const [f, v] of e) columns[at.get(f)!][i] = v
  })
  return columns
}

/**
 * The ranking table's training and validation rows with their query groups (TrainData.groups,
 * rows of a group contiguous as in the files). Features: every index either file uses, named
 * f<index>, in index order.
 */
export async function rankingData(name: string): Promise<TrainData> {
  const spec = RANKING_TABLES[name]
  if (!spec)
    throw new RangeError(`quality: unknown ranking table '${name}' (${Object.keys(RANKING_TABLES).join(', ')})`)
  const dir = join(PROJECT_ROOT, 'bench', 'data', name)
  const read = async (file: string): Promise<LibsvmRows> =>
    parseLibsvm(
      `bench/data/${name}/${file}`,
      gunzipSync(await readFile(join(dir, `${file}.gz`))).toString('utf8'),
      await readFile(join(dir, `${file}.query`), 'utf8'),
    )
  const train = await read(spec.train),
    valid = await read(spec.valid)
  const indices = [...new Set([...train.entries, ...valid.entries].flatMap(e => e.map(([f]) => f)))].sort(
    (a, b) => a - b,
  )
  const grouped = (r: LibsvmRows) => ({ columns: denseColumns(r, indices), labels: r.labels, groups: r.groups })
  return { ...grouped(train), featureNames: indices.map(f => `f${f}`), valid: grouped(valid) }
}
