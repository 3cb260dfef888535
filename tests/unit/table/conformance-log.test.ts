/**
 * Log-level conformance: every table in tests/conformance opens at every version the
 * expectations name (golden/EXPECTED.json, dat expected/v<N> + latest), over the S3-listing path and
 * the probing path; must-refuse tables are refused naming the feature or version. Row-level checks
 * are in the row reader's conformance test.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parquetMetadata } from 'hyparquet'
import { describe, expect, it } from 'vitest'
import { openSnapshot } from '../../../src/table/index.ts'
import { TableError, type Snapshot } from '../../../src/table/types.ts'
import { fileFetch } from '../../support/file-fetch.ts'

const ROOT = join(import.meta.dirname, '../../conformance')
const GOLDEN = join(ROOT, 'golden')
const DAT = join(ROOT, 'dat')

interface Expect {
  version?: number
  rows?: number
  files?: number
  dv_cardinality?: number
}
interface GoldenCase {
  versions: Record<string, Expect>
  latest: Expect | null
  expect_error: boolean
  reader_features?: string[]
  error_contains?: string
}

/** Reader features we refuse; a table listing one must be refused naming it. */
const REFUSED_FEATURES = ['variantType-preview', 'catalogManaged']

/** One check: open `dir` at `version` (undefined = latest) and compare with `expect`. */
interface Case {
  name: string
  dir: string
  version?: number
  expect: Expect
  refuse?: RegExp
}

function goldenCases(): Case[] {
  const expected = JSON.parse(readFileSync(join(GOLDEN, 'EXPECTED.json'), 'utf8')) as Record<string, GoldenCase>
  const cases: Case[] = []
  for (const [name, c] of Object.entries(expected)) {
    if (name.startsWith('_')) continue
    const refused = (c.reader_features ?? []).filter(f => REFUSED_FEATURES.includes(f))
    const refuse =
      c.expect_error || refused.length
        ? new RegExp(refused.length ? refused.join('|') : (c.error_contains ?? 'reader version 99'))
        : undefined
    cases.push({ name, dir: join(GOLDEN, name), expect: c.latest ?? {}, refuse })
    for (const [v, e] of Object.entries(c.versions)) {
      cases.push({
        name: `${name}@v${v}`,
        dir: join(GOLDEN, name),
        version: Number(v),
        expect: { ...e, version: Number(v) },
        refuse,
      })
    }
  }
  return cases
}

function datCases(): Case[] {
  return readdirSync(DAT).flatMap(name => {
    const expected = join(DAT, name, 'expected')
    return readdirSync(expected).map(folder => {
      const meta = JSON.parse(readFileSync(join(expected, folder, 'table_version_metadata.json'), 'utf8')) as {
        version: number
      }
      const rows = countRows(join(expected, folder, 'table_content'))
      const version = folder === 'latest' ? undefined : Number(folder.slice(1))
      return {
        name: `${name}@${folder}`,
        dir: join(DAT, name, 'delta'),
        version,
        expect: { version: meta.version, rows },
      }
    })
  })
}

/** Row count of the expected Spark output: the sum of its parquet footers' num_rows. */
function countRows(dir: string): number {
  return readdirSync(dir)
    .filter(f => f.endsWith('.parquet'))
    .reduce((sum, f) => {
      const bytes = readFileSync(join(dir, f))
      const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
      return sum + Number(parquetMetadata(buffer).num_rows)
    }, 0)
}

function tableUrl(dir: string): string {
  const rel = dir
    .slice(ROOT.length + 1)
    .split('/')
    .map(encodeURIComponent)
    .join('/')
  return `http://table.test/${rel}/`
}

function statsRows(snapshot: Snapshot): number | undefined {
  let total = 0
  for (const f of snapshot.files) {
    if (f.stats?.numRecords === undefined) return undefined
    total += f.stats.numRecords - (f.deletionVector?.cardinality ?? 0)
  }
  return total
}

const cases = [...goldenCases(), ...datCases()]

describe.each([
  { path: 'S3 listing', listing: true },
  { path: 'probing', listing: false },
])('conformance tables over $path', ({ listing }) => {
  const fetch = fileFetch(ROOT, { listing })

  it.each(cases.filter(c => c.refuse))('refuses $name naming the reason', async c => {
    const error = await openSnapshot(tableUrl(c.dir), { fetch, version: c.version }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TableError)
    expect((error as TableError).code).toMatch(/unsupported-feature|catalog-managed/)
    expect((error as TableError).message).toMatch(c.refuse!)
  })

  it.each(cases.filter(c => !c.refuse))('opens $name', async c => {
    const snapshot = await openSnapshot(tableUrl(c.dir), { fetch, version: c.version })
    if (c.expect.version !== undefined) expect(snapshot.version).toBe(c.expect.version)
    if (c.expect.files !== undefined) expect(snapshot.files.length).toBe(c.expect.files)
    if (c.expect.dv_cardinality !== undefined) {
      expect(snapshot.files.map(f => f.deletionVector?.cardinality)).toEqual([c.expect.dv_cardinality])
    }
    const rows = statsRows(snapshot)
    if (c.expect.rows !== undefined && rows !== undefined) expect(rows).toBe(c.expect.rows)
    expect(snapshot.schema.type).toBe('struct')
    // Some golden tables (e.g. 'checkpoint') ship only their log, with made-up data file paths.
    const hasData = readdirSync(c.dir).some(entry => entry !== '_delta_log')
    for (const file of hasData ? snapshot.files : []) {
      const head = await fetch(file.url, { method: 'HEAD' })
      expect(head.status, file.url).toBe(200)
      expect(Number(head.headers.get('Content-Length')), file.url).toBe(file.size)
    }
  })
})

describe('conformance data is present', () => {
  it('has the golden and dat folders', () => {
    expect(existsSync(join(GOLDEN, 'EXPECTED.json'))).toBe(true)
    expect(cases.length).toBeGreaterThan(50)
  })
})
