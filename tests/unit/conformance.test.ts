/**
 * Conformance suite over tests/conformance (README.md there): every DAT case at every
 * expected version, and every golden table with an EXPECTED.json entry. Tables are served by the
 * fake `fileFetch`, so the reader's HTTP path (listing, Range reads, retries) runs as in production.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parquetReadObjects } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'
import { afterAll, describe, expect, test } from 'vitest'
import { readRows } from '../../src/table/rows.ts'
import { openSnapshot } from '../../src/table/snapshot.ts'
import { SUPPORTED_READER_FEATURES } from '../../src/table/protocol.ts'
import { Timestamp } from '../../src/table/timestamp.ts'
import { TableError, type Row, type Snapshot, type StructField } from '../../src/table/types.ts'
import { canonical, canonicalRow } from '../support/canonical.ts'
import { fileFetch } from '../support/file-fetch.ts'

const ROOT = fileURLToPath(new URL('../conformance/', import.meta.url))
const TABLE_URL = 'http://table.test/'
const results = { passed: 0, failed: [] as string[] }

/** Runs a case and records its outcome for the summary line. */
function conformance(name: string, body: () => Promise<void>): void {
  test(name, async () => {
    try {
      await body()
      results.passed++
    } catch (error) {
      results.failed.push(`${name}: ${(error as Error).message.split('\n')[0]}`)
      throw error
    }
  }, 30_000)
}

afterAll(() => {
  const total = results.passed + results.failed.length
  console.log(`conformance: ${results.passed}/${total} passed`)
  for (const line of results.failed) console.log(`  FAIL ${line}`)
})

async function open(dir: string, version?: number): Promise<Snapshot> {
  return openSnapshot(TABLE_URL, { fetch: fileFetch(dir), version, attempts: 1 })
}

async function read(snapshot: Snapshot, dir: string): Promise<Row[]> {
  return readRows(snapshot, { fetch: fileFetch(dir), attempts: 1 })
}

// ---------------------------------------------------------------------------------------------
// DAT: compare with the rows in expected/<v>/table_content/*.parquet as a multiset.

/** Expected timestamps as exact µs (bigint) or ns (Timestamp), not hyparquet's ms Dates. */
const EXACT_TIMESTAMPS = {
  timestampFromMilliseconds: (ms: bigint) => ms * 1000n,
  timestampFromMicroseconds: (us: bigint) => us,
  timestampFromNanoseconds: (ns: bigint) => Timestamp.fromNanos(ns),
}

async function expectedRows(contentDir: string): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = []
  for (const name of readdirSync(contentDir)
    .filter(n => n.endsWith('.parquet'))
    .sort()) {
    const bytes = readFileSync(join(contentDir, name))
    const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
    rows.push(...(await parquetReadObjects({ file, compressors, utf8: false, parsers: EXACT_TIMESTAMPS })))
  }
  return rows
}

function datVersion(caseDir: string, folder: string): number {
  const meta = JSON.parse(readFileSync(join(caseDir, 'expected', folder, 'table_version_metadata.json'), 'utf8'))
  return meta.version
}

describe('DAT', () => {
  const datRoot = join(ROOT, 'dat')
  for (const name of readdirSync(datRoot).sort()) {
    const caseDir = join(datRoot, name)
    for (const folder of readdirSync(join(caseDir, 'expected')).sort()) {
      conformance(`dat/${name}@${folder}`, async () => {
        const tableDir = join(caseDir, 'delta')
        const version = datVersion(caseDir, folder)
        const snapshot = await open(tableDir, folder === 'latest' ? undefined : version)
        expect(snapshot.version).toBe(version)
        const actual = (await read(snapshot, tableDir)).map(r => canonicalRow(r, snapshot.schema.fields))
        const expected = (await expectedRows(join(caseDir, 'expected', folder, 'table_content'))).map(r =>
          canonicalRow(r, snapshot.schema.fields),
        )
        expect(actual.sort()).toEqual(expected.sort())
      })
    }
  }
})

// ---------------------------------------------------------------------------------------------
// Golden tables: facts from EXPECTED.json.

interface Facts {
  version?: number
  rows?: number
  files?: number
  column?: string
  columns?: string[]
  values?: unknown[]
  values_range?: [number, number]
  values_rule?: string
  rows_pattern?: string
  sum?: number
  sum_col1?: number
  rows_exact?: unknown[][]
  rows_exact_micros?: unknown[][]
  rows_exact_micros_utc?: unknown[][]
  dv_cardinality?: number
}

interface Entry {
  versions: Record<string, Facts>
  latest: Facts | null
  expect_error: boolean
  error_contains?: string
  reader_features?: string[]
}

function field(snapshot: Snapshot, name: string): StructField {
  const found = snapshot.schema.fields.find(f => f.name === name)
  if (!found) throw new Error(`no column ${name} in ${snapshot.schema.fields.map(f => f.name).join(', ')}`)
  return found
}

/** Expected values of `column` from values / values_range / values_rule, or undefined. */
function expectedValues(facts: Facts): number[] | undefined {
  if (facts.values) return facts.values as number[]
  if (facts.values_range) {
    const [from, to] = facts.values_range
    return Array.from({ length: to - from + 1 }, (_, i) => from + i)
  }
  const rule = facts.values_rule && /^(\d+)\.\.(\d+) without multiples of (\d+)$/.exec(facts.values_rule)
  if (rule) {
    const all = Array.from({ length: Number(rule[2]) - Number(rule[1]) + 1 }, (_, i) => Number(rule[1]) + i)
    return all.filter(v => v % Number(rule[3]) !== 0)
  }
  return undefined
}

/** Expected rows (arrays in `columns` order) from the several forms EXPECTED.json uses. */
function expectedExact(facts: Facts): unknown[][] | undefined {
  const exact = facts.rows_exact ?? facts.rows_exact_micros ?? facts.rows_exact_micros_utc
  if (exact) return exact
  const pattern = facts.rows_pattern && /^\(x, "val=x"\) for x in (\d+)\.\.(\d+)$/.exec(facts.rows_pattern)
  if (pattern) {
    return Array.from({ length: Number(pattern[2]) - Number(pattern[1]) + 1 }, (_, i) => [
      Number(pattern[1]) + i,
      `val=${Number(pattern[1]) + i}`,
    ])
  }
  return undefined
}

function sumOf(rows: Row[], column: string): number {
  return rows.reduce((total, row) => total + Number(row[column] ?? 0), 0)
}

function checkFacts(facts: Facts, snapshot: Snapshot, rows: Row[]): void {
  if (facts.version !== undefined) expect(snapshot.version, 'version').toBe(facts.version)
  if (facts.files !== undefined) expect(snapshot.files.length, 'live files').toBe(facts.files)
  if (facts.dv_cardinality !== undefined)
    expect(snapshot.files.map(f => f.deletionVector?.cardinality)).toEqual([facts.dv_cardinality])
  if (facts.rows !== undefined) expect(rows.length, 'row count').toBe(facts.rows)
  const values = expectedValues(facts)
  if (facts.column && values) {
    const type = field(snapshot, facts.column).type
    const actual = rows.map(r => JSON.stringify(canonical(r[facts.column!], type))).sort()
    expect(actual, `values of ${facts.column}`).toEqual(values.map(v => JSON.stringify(canonical(v, type))).sort())
  }
  if (facts.column && facts.sum !== undefined)
    expect(sumOf(rows, facts.column), `sum of ${facts.column}`).toBe(facts.sum)
  if (facts.sum_col1 !== undefined) expect(sumOf(rows, 'col1'), 'sum of col1').toBe(facts.sum_col1)
  const exact = expectedExact(facts)
  if (exact) {
    const columns = (facts.columns ?? snapshot.schema.fields.map(f => f.name)).map(n => field(snapshot, n))
    const actual = rows.map(r => canonicalRow(r, columns)).sort()
    const expected = exact
      .map(cells => canonicalRow(Object.fromEntries(columns.map((c, i) => [c.name, cells[i]])), columns))
      .sort()
    expect(actual, 'rows').toEqual(expected)
  }
}

/** Reader features of the entry this reader does not implement: it must refuse them by name. */
function unsupportedFeatures(entry: Entry): string[] {
  return (entry.reader_features ?? []).filter(f => !SUPPORTED_READER_FEATURES.has(f))
}

async function expectRefusal(dir: string, entry: Entry, version?: number): Promise<void> {
  const error = await open(dir, version)
    .then(s => read(s, dir))
    .then(
      () => undefined,
      e => e,
    )
  expect(error, 'the table must be refused').toBeInstanceOf(TableError)
  const names = entry.error_contains ? [entry.error_contains] : unsupportedFeatures(entry)
  for (const name of names) expect(error.message).toContain(name)
}

describe('golden', () => {
  const goldenRoot = join(ROOT, 'golden')
  const expected = JSON.parse(readFileSync(join(goldenRoot, 'EXPECTED.json'), 'utf8')) as Record<string, Entry>
  for (const [name, entry] of Object.entries(expected)) {
    if (name.startsWith('_') || !existsSync(join(goldenRoot, name))) continue
    const dir = join(goldenRoot, name)
    const refuse = entry.expect_error || unsupportedFeatures(entry).length > 0
    const cases: [string, Facts | null, number | undefined][] = [
      ...Object.entries(entry.versions).map(([v, f]): [string, Facts, number] => [`v${v}`, f, Number(v)]),
      ['latest', entry.latest, undefined],
    ]
    for (const [label, facts, version] of cases) {
      conformance(`golden/${name}@${label}`, async () => {
        if (refuse) return expectRefusal(dir, entry, version)
        const snapshot = await open(dir, version)
        // Some tables (e.g. 'checkpoint') have fake data file paths: only log facts are stated.
        const rowFacts = Object.keys(facts ?? {}).some(
          k => !['version', 'files', 'dv_cardinality', 'basis'].includes(k),
        )
        checkFacts(facts ?? {}, snapshot, rowFacts ? await read(snapshot, dir) : [])
      })
    }
  }
})
