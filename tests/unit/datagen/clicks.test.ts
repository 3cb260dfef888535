import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parquetMetadata } from 'hyparquet'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { generateSampleTables } from '../../../tools/datagen/index.ts'
import type { GeneratorInfo } from '../../../tools/datagen/types.ts'
import { fileBuffer, fileRows, liveFiles, parquetRows, readCommits, type Action } from './log-helpers.ts'

const ROWS = 3000
let out: string
let dir: string
let commits: Action[][]
let info: GeneratorInfo

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'datagen-clicks-'))
  await generateSampleTables({ outDir: out, rows: ROWS, seed: 7, tables: ['clicks'] })
  dir = join(out, 'clicks')
  commits = readCommits(dir)
  info = JSON.parse(readFileSync(join(dir, '_generator.json'), 'utf8')) as GeneratorInfo
})
afterAll(() => rmSync(out, { recursive: true, force: true }))

function statsOf(add: Record<string, unknown>): {
  numRecords: number
  minValues: Record<string, unknown>
  maxValues: Record<string, unknown>
  nullCount: Record<string, number>
} {
  return JSON.parse(add.stats as string)
}

describe('clicks table', () => {
  test('has three versions: WRITE, WRITE (append), DELETE', () => {
    expect(commits).toHaveLength(3)
    const ops = commits.map(c => c.find(a => a.commitInfo)?.commitInfo.operation)
    expect(ops).toEqual(['WRITE', 'WRITE', 'DELETE'])
    expect(commits[0].find(a => a.protocol)?.protocol).toEqual({ minReaderVersion: 1, minWriterVersion: 2 })
    const meta = commits[0].find(a => a.metaData)?.metaData as Record<string, unknown>
    expect(meta.format).toMatchObject({ provider: 'parquet' })
    const schema = JSON.parse(meta.schemaString as string)
    expect(schema.fields.find((f: { name: string }) => f.name === 'emb').type).toEqual({
      type: 'array',
      elementType: 'float',
      containsNull: false,
    })
    expect(schema.fields.map((f: { name: string }) => f.name)).toContain('label')
  })

  test('commit times are fixed (base date + 1 h per version); removes match their adds', () => {
    const times = commits.map(c => c.find(a => a.commitInfo)?.commitInfo.timestamp)
    expect(times).toEqual([0, 1, 2].map(v => Date.UTC(2024, 0, 1) + v * 3_600_000))
    const addsBefore = liveFiles(commits, 1)
    for (const { remove } of commits[2].filter(a => a.remove)) {
      expect(remove.deletionTimestamp).toBe(times[2])
      expect(remove.dataChange).toBe(true)
      expect(remove.size).toBe(addsBefore.get(remove.path as string)?.size)
    }
  })

  test('row counts add up across versions, in stats and in the Parquet footers', () => {
    const count = (v: number) => [...liveFiles(commits, v).values()].reduce((s, a) => s + statsOf(a).numRecords, 0)
    const footer = (v: number) => [...liveFiles(commits, v).keys()].reduce((s, p) => s + parquetRows(dir, p), 0)
    expect(count(0)).toBe(ROWS)
    expect(count(1)).toBe(ROWS + info.rowsAppended)
    expect(info.rowsAppended).toBe(ROWS / 10)
    expect(info.rowsDeleted).toBeGreaterThan(0)
    expect(count(2)).toBe(count(1) - info.rowsDeleted)
    for (const v of [0, 1, 2]) expect(footer(v)).toBe(count(v))
    expect(info.versions.map(r => r.rows)).toEqual([count(0), count(1), count(2)])
    const metrics = commits[2].find(a => a.commitInfo)?.commitInfo.operationMetrics as Record<string, string>
    expect(Number(metrics.numDeletedRows)).toBe(info.rowsDeleted)
  })

  test('the DELETE removes some files, keeps others, and leaves no matching rows', async () => {
    const removes = commits[2].filter(a => a.remove)
    expect(removes.length).toBeGreaterThan(0)
    expect(removes.length).toBeLessThan(liveFiles(commits, 1).size)
    const predicate = info.versions[2].predicate as string
    const country = /country = '(\w+)'/.exec(predicate)?.[1]
    let before = 0
    for (const path of liveFiles(commits, 1).keys())
      before += (await fileRows(dir, path)).filter(r => r.country === country).length
    expect(before).toBe(info.rowsDeleted)
    for (const path of liveFiles(commits, 2).keys()) {
      expect((await fileRows(dir, path)).some(r => r.country === country)).toBe(false)
    }
  })

  test('log stats equal min/max/nullCount computed from each file', async () => {
    for (const [path, add] of liveFiles(commits, 2)) {
      const rows = await fileRows(dir, path)
      const stats = statsOf(add)
      expect(stats.numRecords).toBe(rows.length)
      for (const name of Object.keys(rows[0])) {
        const vals = rows.map(r => r[name]).filter(v => v !== null && v !== undefined)
        expect(stats.nullCount[name], `${path} ${name}`).toBe(rows.length - vals.length)
        if (name === 'emb' || name === 'history') {
          expect(stats.minValues[name]).toBeUndefined()
          continue
        }
        const nums = vals.map(v => (typeof v === 'bigint' ? Number(v) : v)) as (number | string)[]
        // biome-ignore lint/complexity/useMathMinMax: values are numbers or strings; < and > order both
        const min = nums.reduce((a, b) => (b < a ? b : a))
        // biome-ignore lint/complexity/useMathMinMax: as above
        const max = nums.reduce((a, b) => (b > a ? b : a))
        expect(stats.minValues[name], `${path} ${name} min`).toBe(min)
        expect(stats.maxValues[name], `${path} ${name} max`).toBe(max)
      }
      expect(stats.nullCount.dense_0).toBe(0)
    }
    const nulls5 = [...liveFiles(commits, 2).values()].reduce((s, a) => s + statsOf(a).nullCount.dense_5, 0)
    expect(nulls5).toBeGreaterThan(0)
  })

  test('files are snappy Parquet with several row groups and footer statistics', () => {
    for (const [path, add] of liveFiles(commits, 2)) {
      expect(path).toMatch(/^part-\d{5}-[0-9a-f-]{36}\.snappy\.parquet$/)
      const buf = fileBuffer(dir, path)
      expect(buf.byteLength).toBe(add.size)
      const meta = parquetMetadata(buf)
      expect(meta.row_groups.length).toBeGreaterThanOrEqual(2)
      for (const rg of meta.row_groups) {
        for (const col of rg.columns) {
          expect(col.meta_data?.codec).toBe('SNAPPY')
          expect(col.meta_data?.statistics?.null_count).toBeDefined()
          if (col.meta_data?.path_in_schema[0] !== 'emb') expect(col.meta_data?.statistics?.min_value).toBeDefined()
        }
      }
    }
  })

  test('emb reads back as length-8 float arrays; ids are int64', async () => {
    const path = [...liveFiles(commits, 0).keys()][0]
    const rows = await fileRows(dir, path)
    for (const r of rows.slice(0, 50)) {
      expect(Array.isArray(r.emb)).toBe(true)
      expect((r.emb as number[]).length).toBe(8)
      expect((r.emb as number[]).every(x => Number.isFinite(x) && Math.fround(x) === x)).toBe(true)
      expect(typeof r.user_id).toBe('bigint')
      expect([0, 1]).toContain(r.label)
    }
  })

  test('history reads back as lists of 0 … 10 int64 item ids, some rows null', async () => {
    const rows = (await Promise.all([...liveFiles(commits, 2).keys()].map(p => fileRows(dir, p)))).flat()
    const lists = rows.map(r => r.history as bigint[] | null)
    const nulls = lists.filter(h => h === null).length
    expect(nulls).toBeGreaterThan(0)
    expect(nulls).toBeLessThan(0.1 * rows.length)
    for (const h of lists) {
      if (h === null) continue
      expect(h.length).toBeLessThanOrEqual(10)
      expect(h.every(v => typeof v === 'bigint' && v >= 0n)).toBe(true)
    }
    expect(lists.some(h => h?.length === 0)).toBe(true)
    expect(lists.some(h => (h?.length ?? 0) >= 9)).toBe(true)
  })

  test('generator info reports a plausible Bayes AUC and base rate', () => {
    expect(info.bayesAuc).toBeGreaterThan(0.65)
    expect(info.bayesAuc).toBeLessThan(0.99)
    expect(info.finalRows).toBe(ROWS + info.rowsAppended - info.rowsDeleted)
    expect(info.files.every(f => f.rowGroups.reduce((s, n) => s + n, 0) === f.rows)).toBe(true)
  })
})
