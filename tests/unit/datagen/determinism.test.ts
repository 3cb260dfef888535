import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { generateSampleTables } from '../../../tools/datagen/index.ts'
import { allFiles } from './log-helpers.ts'

const dirs: string[] = []
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'datagen-det-'))
  dirs.push(d)
  return d
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

const small = { rows: 1200, marketingRows: 800 }

describe('determinism', () => {
  test('same seed writes byte-identical tables; another seed writes different data', async () => {
    const [a, b, c] = [tempDir(), tempDir(), tempDir()]
    await generateSampleTables({ outDir: a, seed: 11, ...small })
    await generateSampleTables({ outDir: b, seed: 11, ...small })
    await generateSampleTables({ outDir: c, seed: 12, ...small })
    const fa = allFiles(a)
    const fb = allFiles(b)
    expect([...fa.keys()].sort()).toEqual([...fb.keys()].sort())
    expect(fa.size).toBeGreaterThan(8)
    for (const [k, v] of fa) expect(v.equals(fb.get(k) as Buffer), k).toBe(true)
    const fc = allFiles(c)
    const parquetA = [...fa.entries()].filter(([k]) => k.endsWith('.parquet'))
    const parquetC = [...fc.entries()].filter(([k]) => k.endsWith('.parquet'))
    expect(parquetC.length).toBeGreaterThan(0)
    // A different seed changes names and contents of every data file.
    for (const [k, v] of parquetC) expect(parquetA.some(([ka, va]) => ka === k || va.equals(v))).toBe(false)
  })

  test('ifMissing skips a matching table and regenerates on another generator, seed or row count', async () => {
    const d = tempDir()
    const first = await generateSampleTables({ outDir: d, seed: 3, ...small, tables: ['marketing'] })
    expect(first.tables[0].skipped).toBe(false)
    const log = join(d, 'marketing', '_delta_log', '00000000000000000000.json')
    const inode = statSync(log).ino
    const again = await generateSampleTables({ outDir: d, seed: 3, ...small, tables: ['marketing'], ifMissing: true })
    expect(again.tables[0].skipped).toBe(true)
    expect(statSync(log).ino).toBe(inode)
    const infoFile = join(d, 'marketing', '_generator.json')
    writeFileSync(infoFile, readFileSync(infoFile, 'utf8').replace(/"generator": "[^"]*"/, '"generator": "older"'))
    const regenerated = await generateSampleTables({
      outDir: d,
      seed: 3,
      ...small,
      tables: ['marketing'],
      ifMissing: true,
    })
    expect(regenerated.tables[0].skipped).toBe(false)
    const reseeded = await generateSampleTables({
      outDir: d,
      seed: 4,
      ...small,
      tables: ['marketing'],
      ifMissing: true,
    })
    expect(reseeded.tables[0].skipped).toBe(false)
    expect(reseeded.tables[0].info.seed).toBe(4)
    const resized = await generateSampleTables({
      outDir: d,
      seed: 4,
      rows: 1200,
      marketingRows: 900,
      tables: ['marketing'],
      ifMissing: true,
    })
    expect(resized.tables[0].skipped).toBe(false)
    expect(resized.tables[0].info.finalRows).toBe(900)
    // Other contents never reuse a file name (no stale HTTP cache hits).
    const names = (s: typeof resized) => s.tables[0].info.files.map(f => f.path)
    expect(names(resized).some(n => names(reseeded).includes(n))).toBe(false)
    expect(readdirSync(d)).toEqual(['marketing'])
  })

  test('bad options name the parameter', async () => {
    const d = tempDir()
    await expect(generateSampleTables({ outDir: d, tables: ['nope'] })).rejects.toThrow(/unknown table 'nope'/)
    await expect(generateSampleTables({ outDir: d, rows: 10, tables: ['clicks'] })).rejects.toThrow(
      /rows must be an integer ≥ 100, got 10/,
    )
  })
})
