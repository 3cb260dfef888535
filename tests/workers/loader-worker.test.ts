/**
 * The loader with real module workers in Chromium, over the vite-served public/tables/clicks:
 * 1 and 2 workers deliver exactly the batches the in-process loader delivers, and so do 2 pooled
 * workers reading the same plan again (their readers kept, not initialised anew).
 */
import { expect, it } from 'vitest'
import { createLoader } from '../../src/data/loader.ts'
import { planScan } from '../../src/data/plan.ts'
import { openSnapshot } from '../../src/table/index.ts'
import type { Batch, LoaderStats, ScanPlan } from '../../src/data/types.ts'
import type { FetchLike } from '../../src/table/types.ts'

const COLUMNS = ['user_id', 'item_id', 'country', 'dense_2', 'emb', 'label']

/**
 * Vite's dev server answers a missing file with index.html (SPA fallback, status 200) and has no
 * S3 listing in the test server; the snapshot reader needs real 404s, so map those answers to 404.
 * Workers fetch only existing parquet files, so they use the plain global fetch.
 */
const devFetch: FetchLike = async (url, init) => {
  const res = await fetch(url, init)
  const html = (res.headers.get('content-type') ?? '').includes('text/html')
  return html ? new Response('Not Found', { status: 404, statusText: 'Not Found' }) : res
}

async function run(
  workers: number,
  given?: ScanPlan,
): Promise<{ batches: Batch[]; stats: LoaderStats; plan: ScanPlan }> {
  const tableUrl = new URL('/tables/clicks/', location.href).href
  const plan =
    given ?? (await planScan(await openSnapshot(tableUrl, { fetch: devFetch }), { columns: COLUMNS, fetch: devFetch }))
  const loader = createLoader(plan, {
    assign: { seed: 11, epoch: 2, worldSize: 1, rank: 0, shuffleBuffer: 8192 },
    batchSize: 4096,
    spec: { user_id: 'hash32', item_id: 'hash32' },
    ids: true,
    workers,
    cache: false, // each run reads through its workers (the epoch cache: unit-cache tests)
  })
  const batches: Batch[] = []
  try {
    for await (const batch of loader.batches()) batches.push(batch)
    return { batches, stats: loader.stats(), plan }
  } finally {
    await loader.close()
  }
}

function digest(batches: Batch[]): Record<string, number[]> {
  const out: Record<string, number[]> = { unit: [], row: [] }
  for (const b of batches) {
    out.unit.push(...b.ids!.unit)
    out.row.push(...b.ids!.row)
    for (const name of COLUMNS)
      (out[name] ??= []).push(...Array.from(b.columns[name].values, v => (Number.isNaN(v) ? -0.5 : v)))
  }
  return out
}

it('1 and 2 module workers deliver the same batches as the in-process loader', async () => {
  const inProcess = await run(0)
  const one = await run(1)
  const two = await run(2)
  // The same plan again: the pooled workers keep the reader they made for it (no second init).
  const again = await run(2, two.plan)
  expect(two.stats.workers).toBe(2)
  expect(two.stats.unitsRead).toBeGreaterThan(2)
  // The generator's own count of the table's live rows (its _generator.json).
  const generated = await (await devFetch(new URL('/tables/clicks/_generator.json', location.href).href)).json()
  expect(inProcess.stats.rowsDelivered).toBe(generated.finalRows)
  expect(two.batches[0].columns.emb).toMatchObject({ encoding: 'fixed_list', length: 8 })
  expect(two.batches[0].columns.emb.values).toBeInstanceOf(Float32Array)
  const want = digest(inProcess.batches)
  for (const other of [one, two, again]) {
    const got = digest(other.batches)
    for (const key of Object.keys(want)) {
      const at = got[key].findIndex((v, i) => v !== want[key][i])
      expect(got[key].length, key).toBe(want[key].length)
      expect(at, `${key}: first differing index`).toBe(-1)
    }
  }
})
