/**
 * The public quality tables: CSV files we did not make (bench/data/<name>/<name>.csv.gz, copied
 * byte for byte from their published source; bench/data/SOURCES.md names each origin and
 * licence), turned into Delta tables under bench/tables/quality-public/<name>/ by the sample-table
 * generator's writer, once, when missing or stale. The transformation is the code below and
 * nothing else: drop the listed columns (the row number, leaks of the label, identifiers with more
 * levels than bins), derive a 0/1 integer label, and type every other column by its values — a
 * column whose values all parse as numbers (R's `NA` = null) becomes `integer` (all whole, within
 * int32) or `double`, any other column a Delta `string`. Rows keep the file's order.
 */
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { rowGroupRowsFor } from '../tools/datagen/clicks.ts'
import { DeltaTableWriter } from '../tools/datagen/delta-writer.ts'
import type { ColumnSpec, ColumnValues, Frame } from '../tools/datagen/types.ts'
import { PROJECT_ROOT } from '../src/serve/page-server.ts'

/** Recorded in each table's `_source.json`; bump when the transformation changes. */
const CONVERTER = 'snaptrain quality-data 1'

/** One public table: its committed source file, the label it derives and the columns it drops. */
export interface PublicTable {
  /** Where the CSV was published (Rdatasets path), for the README and SOURCES.md. */
  origin: string
  /** Name of the derived 0/1 label column. */
  label: string
  /** The label of one source row (by column name), 0 or 1. */
  labelOf: (row: (column: string) => string) => number
  /** Source columns left out (besides the label's source column, listed here too). */
  drop: string[]
}

/** Ames sale prices above this (the median of the 2,930 sales) are the positive class. */
const AMES_MEDIAN_PRICE = 160_000
/** US DOT: a flight is late when it arrives more than 15 minutes after its schedule. */
const LATE_MINUTES = 15

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
  const gz = await readFile(join(PROJECT_ROOT, 'bench', 'data', name, `${name}.csv.gz`))
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
  log?.(`${name}: ${frame.numRows} rows, ${specs.length - 1} features, converted from bench/data/${name}/`)
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
  const at = new Map(header.map((h, i) => [h, i]))
  columns[spec.label] = Int32Array.from(records, r => spec.labelOf(column => r[at.get(column)!]))
  specs.push({ name: spec.label, type: 'integer', nullable: false })
  return { specs, frame: { numRows: records.length, columns } }
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
