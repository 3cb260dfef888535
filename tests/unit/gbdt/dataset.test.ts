/**
 * Table → training data: feature selection (defaults, skipped columns, errors naming the label or
 * column), categorical dictionaries, the seeded validation split, and values in table order equal
 * to the plain reader's rows (marketing over a loopback server; clicks for skipped array columns).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { serveDirectory, type ServedDirectory } from '../../../src/serve/server.ts'
import { PROJECT_ROOT } from '../../../src/serve/page-server.ts'
import { openSnapshot, readRows } from '../../../src/table/index.ts'
import { loadDataset } from '../../../src/eval/dataset.ts'
import { utf8Strings } from '../../../src/data/decode.ts'
import { readUnit } from '../../../src/data/unit-reader.ts'
import { planScan } from '../../../src/data/plan.ts'
import { buildDictionary, encodeCategorical, selectFeatures } from '../../../src/eval/features.ts'
import { isValidKey } from '../../../src/data/row-key.ts'
import type { StructType } from '../../../src/table/types.ts'

let server: ServedDirectory
let url: string
beforeAll(async () => {
  server = await serveDirectory(join(PROJECT_ROOT, 'public', 'tables'))
  url = `${server.url}marketing/`
})
afterAll(async () => {
  await server?.close()
})

const SCHEMA: StructType = {
  type: 'struct',
  fields: [
    { name: 'n', type: 'long', nullable: true, metadata: {} },
    { name: 's', type: 'string', nullable: true, metadata: {} },
    { name: 'b', type: 'boolean', nullable: true, metadata: {} },
    { name: 'emb', type: { type: 'array', elementType: 'float', containsNull: true }, nullable: true, metadata: {} },
    { name: 'd', type: 'double', nullable: true, metadata: {} },
    { name: 'y', type: 'integer', nullable: false, metadata: {} },
    { name: 'name', type: 'string', nullable: false, metadata: {} },
  ],
}

describe('selectFeatures', () => {
  it('defaults to numeric, boolean and string columns except the label; reports skipped ones', () => {
    const sel = selectFeatures(SCHEMA, 'y')
    expect(sel.features.map(f => `${f.name}:${f.kind}:${f.xgbType}`)).toEqual([
      'n:numeric:int',
      's:categorical:c',
      'b:numeric:int',
      'd:numeric:float',
      'name:categorical:c',
    ])
    expect(sel.skipped.map(s => s.name)).toEqual(['emb'])
    expect(sel.skipped[0].reason).toMatch(/array/)
  })
  it('refuses a missing or non-numeric label, unknown or unusable requested features', () => {
    expect(() => selectFeatures(SCHEMA, 'nope')).toThrow(/label column nope: not in the table/)
    expect(() => selectFeatures(SCHEMA, 'name')).toThrow(/label column name: must be numeric/)
    expect(() => selectFeatures(SCHEMA, 'y', ['n', 'zz'])).toThrow(/--features: no column zz/)
    expect(() => selectFeatures(SCHEMA, 'y', ['emb'])).toThrow(/column emb: array/)
    expect(() => selectFeatures(SCHEMA, 'y', ['y'])).toThrow(/y is the label/)
    expect(selectFeatures(SCHEMA, 'y', ['d', 's']).features.map(f => f.name)).toEqual(['d', 's'])
  })
})

describe('categorical codes and the split', () => {
  it('dictionary: distinct non-null values sorted; unseen and null → NaN', () => {
    const dict = buildDictionary(['b', null, 'a', 'c', 'a'])
    expect(dict).toEqual(['a', 'b', 'c'])
    expect(Array.from(encodeCategorical(['c', 'zz', null, 'a'], dict))).toEqual([2, NaN, NaN, 0])
  })
  it('isValidKey is a pure function of (seed, key) with about the asked share', () => {
    let hits = 0
    for (let k = 0; k < 20_000; k++) hits += isValidKey(3, Math.imul(k, 0x9e3779b1) >>> 0, 0.2) ? 1 : 0
    expect(hits / 20_000).toBeGreaterThan(0.18)
    expect(hits / 20_000).toBeLessThan(0.22)
    expect(isValidKey(3, 17, 0.2)).toBe(isValidKey(3, 17, 0.2))
    const a = Array.from({ length: 200 }, (_, k) => isValidKey(3, k, 0.5))
    const b = Array.from({ length: 200 }, (_, k) => isValidKey(4, k, 0.5))
    expect(a).not.toEqual(b)
  })
})

describe('loadDataset (marketing)', () => {
  it('reads every row in table order: numeric values and category codes match the reader', async () => {
    const ds = await loadDataset({ tableUrl: url, label: 'y', seed: 0, workers: 0 })
    expect(ds.rowsTrain).toBe(45_000)
    expect(ds.data.valid).toBeUndefined()
    const rows = await readRows(await openSnapshot(url), { limit: 2000 })
    const names = ds.features.map(f => f.name)
    const job = names.indexOf('job'),
      age = names.indexOf('age'),
      pdays = names.indexOf('pdays')
    for (let i = 0; i < rows.length; i++) {
      expect(ds.data.labels[i]).toBe(rows[i].y)
      expect(ds.data.columns[age][i]).toBe(rows[i].age)
      expect(Number.isNaN(ds.data.columns[pdays][i])).toBe(rows[i].pdays === null)
      const code = ds.data.columns[job][i]
      expect(Number.isNaN(code) ? null : ds.dictionaries.job[code]).toBe(rows[i].job)
    }
    expect(ds.dictionaries.job).toEqual([...ds.dictionaries.job].sort())
  })
  it('valid fraction: a stable seeded split covering every row once', async () => {
    const a = await loadDataset({
      tableUrl: url,
      label: 'y',
      seed: 7,
      validFraction: 0.2,
      workers: 0,
      features: ['age', 'balance'],
    })
    const b = await loadDataset({
      tableUrl: url,
      label: 'y',
      seed: 7,
      validFraction: 0.2,
      workers: 0,
      features: ['age', 'balance'],
    })
    const c = await loadDataset({
      tableUrl: url,
      label: 'y',
      seed: 8,
      validFraction: 0.2,
      workers: 0,
      features: ['age', 'balance'],
    })
    expect(a.rowsTrain + a.rowsValid).toBe(45_000)
    expect(a.rowsValid / 45_000).toBeGreaterThan(0.18)
    expect(a.rowsValid / 45_000).toBeLessThan(0.22)
    expect(Array.from(b.data.valid!.columns[1])).toEqual(Array.from(a.data.valid!.columns[1]))
    expect(Array.from(c.data.valid!.columns[1])).not.toEqual(Array.from(a.data.valid!.columns[1]))
  })
  it('a validation table uses the training dictionaries; a filter restricts both', async () => {
    const ds = await loadDataset({
      tableUrl: url,
      label: 'y',
      seed: 0,
      workers: 0,
      features: ['age', 'job'],
      filter: 'age < 30',
      validTable: { url },
    })
    expect(ds.rowsTrain).toBe(ds.rowsValid)
    expect(ds.rowsTrain).toBeLessThan(45_000)
    expect(ds.data.columns[0].every(v => v < 30)).toBe(true)
    expect(ds.validPlan?.stats.rows).toBe(ds.rowsValid)
  })
  it('errors name the filter, the label, the fraction', async () => {
    await expect(loadDataset({ tableUrl: url, label: 'y', seed: 0, workers: 0, filter: 'age > 1000' })).rejects.toThrow(
      /filter "age > 1000" selects no rows/,
    )
    await expect(loadDataset({ tableUrl: url, label: 'nope', seed: 0, workers: 0 })).rejects.toThrow(
      /label column nope/,
    )
    await expect(loadDataset({ tableUrl: url, label: 'y', seed: 0, workers: 0, validFraction: 1.5 })).rejects.toThrow(
      /valid fraction/,
    )
  })
})

describe('skipped columns on clicks', () => {
  it('the array columns emb and history are skipped with a reason', async () => {
    const snap = await openSnapshot(`${server.url}clicks/`)
    const sel = selectFeatures(snap.schema, 'label')
    expect(sel.skipped.map(s => s.name)).toEqual(['emb', 'history'])
    for (const s of sel.skipped) expect(s.reason, s.name).toMatch(/array/)
    expect(sel.features.map(f => f.name)).toContain('device')
  })
})

describe('string columns through the loader (utf8)', () => {
  it('deliver the strings readRows reads, and check reads against the validator the planner saw', async () => {
    const snapshot = await openSnapshot(url)
    const plan = await planScan(snapshot, { columns: ['job'] })
    const want = (await readRows(snapshot, { columns: ['job'] })).map(r => r.job)
    const got: (string | null)[] = []
    for (let u = 0; u < plan.units.length; u++)
      got.push(...utf8Strings((await readUnit(plan, u, { job: 'utf8' })).columns.job))
    expect(got).toEqual(want)
    expect(new Set(got).size).toBeGreaterThan(3)
    expect(plan.files[0].validator?.etag).toBeDefined()
    // As if the file had been rewritten after planning: the planner saw another ETag.
    const stale = { ...plan, files: plan.files.map(f => ({ ...f, validator: { ...f.validator, etag: '"stale"' } })) }
    await expect(readUnit(stale, 0, { job: 'utf8' })).rejects.toThrow(
      /marketing\/part-[^ ]+\.parquet: file changed while reading \(ETag was "stale"/,
    )
  })
})
