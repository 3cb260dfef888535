/**
 * The CSV side of the loader bench: the exporter (src/cli/export-csv.ts) and the streaming parser
 * into typed batches (bench/loader-csv.ts). Expected values are computed here from the input
 * rows with the shared hash functions, never from the parser itself.
 */
import { describe, expect, it, afterAll } from 'vitest'
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { exportSnapshotCsv, writeCsv } from '../../../src/cli/export-csv.ts'
import { batchBytes, createCsvBatcher, parseRecords, type CsvColumnSpec } from '../../../bench/loader-csv.ts'
import { openSnapshot, readRows } from '../../../src/table/index.ts'
import { hashInt64, hashInteger, hashString } from '../../../src/util/hash.ts'
import type { Batch } from '../../../src/data/types.ts'
import { fileFetch } from '../../support/file-fetch.ts'

const dirs: string[] = []
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'snaptrain-csv-'))
  dirs.push(d)
  return d
}

const ROWS = [
  { id: 7n, name: 'plain', x: 1.5, flag: true, emb: [1, 2, 3] },
  { id: 9007199254740993n, name: 'comma, "quote"\nnewline', x: null, flag: false, emb: [0.25, -1, 1e-3] },
  { id: -3n, name: '', x: -0, flag: true, emb: null },
  { id: 42n, name: 'ünï 🚀', x: 1e30, flag: false, emb: [null, 4, 5] },
]
const SPECS: CsvColumnSpec[] = [
  { name: 'id', encoding: 'hash32', source: 'integer' },
  { name: 'name', encoding: 'hash32', source: 'string' },
  { name: 'x', encoding: 'float32' },
  { name: 'flag', encoding: 'bool' },
  { name: 'emb', encoding: 'fixed_list', length: 3 },
]

function concat(batches: Batch[], name: string): number[] {
  return batches.flatMap(b => Array.from(b.columns[name]!.values))
}

describe('writeCsv', () => {
  it('writes a header and RFC 4180 records atomically (no temp file left)', async () => {
    const dir = await tempDir()
    const path = join(dir, 'out', 't.csv')
    const res = await writeCsv(ROWS, ['id', 'name', 'x', 'flag', 'emb'], path)
    const text = await readFile(path, 'utf8')
    expect(res).toEqual({ rows: 4, bytes: Buffer.byteLength(text) })
    expect(text.split('\n')[0]).toBe('id,name,x,flag,emb')
    expect(text).toContain('"comma, ""quote""\nnewline"')
    expect(text).toContain(',"",') // '' stays distinguishable from null
    expect(await readdir(join(dir, 'out'))).toEqual(['t.csv'])
  })
})

describe('createCsvBatcher', () => {
  it('round-trips exported rows into typed columns, whatever the chunking', async () => {
    const dir = await tempDir()
    const path = join(dir, 't.csv')
    await writeCsv(ROWS, ['id', 'name', 'x', 'flag', 'emb'], path)
    const text = await readFile(path, 'utf8')
    for (const chunk of [1, 2, 3, 7, 1000]) {
      const batcher = createCsvBatcher(SPECS, 3)
      const batches: Batch[] = []
      for (let i = 0; i < text.length; i += chunk) batches.push(...batcher.push(text.slice(i, i + chunk)))
      batches.push(...batcher.end())
      expect(batches.map(b => [b.size, b.position])).toEqual([
        [3, 0],
        [1, 3],
      ])
      expect(concat(batches, 'id')).toEqual([
        hashInteger(7),
        hashInt64(9007199254740993n),
        hashInteger(-3),
        hashInteger(42),
      ])
      expect(concat(batches, 'name')).toEqual(ROWS.map(r => hashString(r.name)))
      expect(concat(batches, 'x')).toEqual([1.5, NaN, 0, Math.fround(1e30)]) // JSON/CSV text of -0 is '0'
      expect(concat(batches, 'flag')).toEqual([1, 0, 1, 0])
      expect(concat(batches, 'emb')).toEqual([1, 2, 3, 0.25, -1, Math.fround(1e-3), NaN, NaN, NaN, NaN, 4, 5])
      expect(batches[0]!.columns.emb!.length).toBe(3)
      expect(batches[0]!.columns.emb!.values).toBeInstanceOf(Float32Array)
      expect(batchBytes(batches[1]!)).toBe(4 + 4 + 4 + 1 + 12)
    }
  })

  it('names a requested column missing from the header, and a null in an integer column', () => {
    expect(() => createCsvBatcher([{ name: 'nope', encoding: 'float32' }], 2).push('a,b\n1,2\n')).toThrow(/'nope'/)
    const b = createCsvBatcher([{ name: 'a', encoding: 'int32' }], 2)
    expect(() => b.push('a\n1\n\n')).toThrow(/null in column 'a'/)
  })

  it('parseRecords keeps an incomplete tail (open quote, CR before LF) for the next chunk', () => {
    const seen: string[][] = []
    const on = (f: string[]) => {
      seen.push(f)
    }
    expect(parseRecords('a,"b\n', on, false)).toBe('a,"b\n')
    expect(parseRecords('a,b\r', on, false)).toBe('a,b\r')
    expect(parseRecords('a,b\r\nc,"d""e"\n', on, false)).toBe('')
    expect(seen).toEqual([
      ['a', 'b'],
      ['c', 'd"e'],
    ])
    expect(() => parseRecords('"open', on, true)).toThrow(/unterminated/)
  })
})

describe('exportSnapshotCsv', () => {
  it('exports every live row of a DV table with deletion vectors applied, and times it', async () => {
    const root = 'tests/conformance/golden'
    const fetch = fileFetch(root)
    const snapshot = await openSnapshot('http://table.test/table-with-dv-small/', { fetch })
    const expected = await readRows(snapshot, { fetch })
    const dir = await tempDir()
    const { scanFile } = await import('../../../src/table/index.ts')
    const read = async function* (columns: string[]) {
      for (const f of snapshot.files) for await (const b of scanFile(snapshot, f, { fetch, columns })) yield* b
    }
    const res = await exportSnapshotCsv(snapshot, read, join(dir, 'dv.csv'))
    expect(res.rows).toBe(expected.length)
    expect(res.ms).toBeGreaterThan(0)
    const lines = (await readFile(res.path, 'utf8')).trim().split('\n')
    expect(lines).toHaveLength(expected.length + 1)
    expect(lines[0]).toBe(snapshot.schema.fields.map(f => f.name).join(','))
  })
})
