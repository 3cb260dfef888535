/**
 * `--split-key`: both model families hold out exactly the rows whose key-column values hash below
 * the fraction (src/data/row-key.ts), computed here from the row reader's values with the
 * README's definition; a key of one string column keeps every row of a value on one side.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { serveDirectory, type ServedDirectory } from '../../../src/serve/server.ts'
import { PROJECT_ROOT } from '../../../src/serve/page-server.ts'
import { openSnapshot, readRows } from '../../../src/table/index.ts'
import { loadDataset } from '../../../src/eval/dataset.ts'
import { openRecsysData, planRecsysTable } from '../../../src/models/recsys/data.ts'
import { parseRecsysParams } from '../../../src/models/recsys/params.ts'
import { hashBytes, hashInteger, hashString, mixSeed } from '../../../src/util/hash.ts'

let server: ServedDirectory
let url: string
beforeAll(async () => {
  server = await serveDirectory(join(PROJECT_ROOT, 'public', 'tables'))
  url = `${server.url}marketing/`
})
afterAll(async () => {
  await server?.close()
})

/** The README's rule for a row, written out with the hash primitives (not row-key.ts). */
function heldOut(seed: number, hashes: number[], fraction: number): boolean {
  const bytes = new Uint8Array(4 * hashes.length)
  const view = new DataView(bytes.buffer)
  hashes.forEach((h, i) => view.setUint32(4 * i, h, true))
  const key = hashBytes(bytes)
  return mixSeed(seed, key) / 2 ** 32 < fraction
}

describe('--split-key', () => {
  it('gbdt and recsys hold out the same rows: those whose (job, age) key hashes below the fraction', async () => {
    const snapshot = await openSnapshot(url)
    const rows = await readRows(snapshot, { columns: ['job', 'age'] })
    const expected = rows.filter(r =>
      heldOut(
        5,
        [
          r.job === null ? 0xffffffff : hashString(r.job as string),
          r.age === null ? 0xffffffff : hashInteger(Number(r.age)),
        ],
        0.3,
      ),
    ).length
    expect(expected).toBeGreaterThan(0)
    expect(expected).toBeLessThan(rows.length)
    const ds = await loadDataset({
      tableUrl: url,
      label: 'y',
      validFraction: 0.3,
      splitKey: ['job', 'age'],
      seed: 5,
      workers: 0,
    })
    expect(ds.rowsValid).toBe(expected)
    expect(ds.rowsTrain + ds.rowsValid).toBe(rows.length)
    // The recommender reads other features (its hash32 ids refuse job's nulls); the key is read apart.
    const config = {
      table: url,
      label: 'y',
      features: ['balance', 'day'],
      validFraction: 0.3,
      splitKey: ['job', 'age'],
    }
    const plan = await planRecsysTable(snapshot, url, config)
    const data = await openRecsysData({ ...config, plan, workers: 0 }, parseRecsysParams({ seed: 5, batch_size: 512 }))
    expect(data.valid.n).toBe(expected)
  })

  it('a one-column key keeps every row of a value on one side', async () => {
    const snapshot = await openSnapshot(url)
    const rows = await readRows(snapshot, { columns: ['job'] })
    const sides = new Map<string, boolean>()
    const hash = (job: unknown) => (job === null ? 0xffffffff : hashString(job as string))
    for (const r of rows) sides.set(String(r.job), heldOut(1, [hash(r.job)], 0.5))
    expect(new Set(sides.values()).size).toBe(2)
    const expected = rows.filter(r => sides.get(String(r.job))).length
    const ds = await loadDataset({
      tableUrl: url,
      label: 'y',
      validFraction: 0.5,
      splitKey: ['job'],
      seed: 1,
      workers: 0,
    })
    expect(ds.rowsValid).toBe(expected)
  })

  it('names an unknown or unusable key column', async () => {
    await expect(
      loadDataset({ tableUrl: url, label: 'y', validFraction: 0.2, splitKey: ['nope'], seed: 0, workers: 0 }),
    ).rejects.toThrow(/--split-key: no column nope in the table/)
  })
})
