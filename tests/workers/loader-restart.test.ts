/**
 * A loader worker that dies mid-epoch (killed through the loader's test hook, as a crash would end
 * it) is replaced and its units are read again: the delivered batches — row identities and values,
 * in order — equal the in-process loader's, over the vite-served public/tables/clicks.
 */
import { expect, it } from 'vitest'
import { createLoader } from '../../src/data/loader.ts'
import { planScan } from '../../src/data/plan.ts'
import { openSnapshot } from '../../src/table/index.ts'
import type { Batch } from '../../src/data/types.ts'
import type { FetchLike } from '../../src/table/types.ts'

const COLUMNS = ['user_id', 'dense_2', 'label']

/** Vite answers a missing file with index.html (200); the snapshot reader needs real 404s. */
const devFetch: FetchLike = async (url, init) => {
  const res = await fetch(url, init)
  const html = (res.headers.get('content-type') ?? '').includes('text/html')
  return html ? new Response('Not Found', { status: 404, statusText: 'Not Found' }) : res
}

/** Every batch of one shuffled epoch; `kills` maps a batch index to the worker killed after it. */
async function run(
  workers: number,
  kills: Map<number, number> = new Map(),
): Promise<{ batches: Batch[]; restarts: number }> {
  const tableUrl = new URL('/tables/clicks/', location.href).href
  const snapshot = await openSnapshot(tableUrl, { fetch: devFetch })
  const plan = await planScan(snapshot, { columns: COLUMNS, fetch: devFetch })
  const loader = createLoader(plan, {
    assign: { seed: 3, epoch: 1, worldSize: 1, rank: 0, shuffleBuffer: 4096 },
    batchSize: 8192,
    spec: { user_id: 'hash32' },
    ids: true,
    workers,
    prefetchUnits: 4,
    cache: false, // the units must be read by the (killed) workers
  })
  const batches: Batch[] = []
  try {
    for await (const batch of loader.batches()) {
      batches.push(batch)
      const victim = kills.get(batches.length)
      if (victim !== undefined) loader.killWorker(victim)
    }
    return { batches, restarts: loader.workerRestarts() }
  } finally {
    await loader.close()
  }
}

function digest(batches: Batch[]): Record<string, number[]> {
  const out: Record<string, number[]> = { unit: [], row: [], size: [] }
  for (const b of batches) {
    out.size.push(b.size)
    out.unit.push(...b.ids!.unit)
    out.row.push(...b.ids!.row)
    for (const name of COLUMNS)
      (out[name] ??= []).push(...Array.from(b.columns[name].values, v => (Number.isNaN(v) ? -0.5 : v)))
  }
  return out
}

it('two workers killed mid-epoch are restarted; the delivered rows equal the in-process loader', async () => {
  const reference = await run(0)
  expect(reference.batches.length).toBeGreaterThan(8)
  const killed = await run(
    2,
    new Map([
      [2, 0],
      [5, 1],
      [6, 0],
    ]),
  )
  expect(killed.restarts).toBe(3)
  expect(killed.batches.length).toBe(reference.batches.length)
  expect(digest(killed.batches)).toEqual(digest(reference.batches))
}, 60_000)

it('killWorker on a loader without workers says so', async () => {
  const tableUrl = new URL('/tables/clicks/', location.href).href
  const snapshot = await openSnapshot(tableUrl, { fetch: devFetch })
  const plan = await planScan(snapshot, { columns: ['label'], fetch: devFetch })
  const loader = createLoader(plan, {
    assign: { epoch: 0, worldSize: 1, rank: 0 },
    batchSize: 10,
    workers: 0,
    http: { fetch: devFetch },
  })
  expect(() => loader.killWorker(0)).toThrow(/workers: 0/)
  await loader.close()
})
