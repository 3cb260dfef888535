/**
 * The epoch cache's spill store on the Origin Private File System, in Chromium: entries
 * round-trip, the store keeps its budget, and after a "reload" (memory tier and spill index
 * forgotten by dropUnitCacheMemory) the next epoch comes from OPFS byte for byte with no table
 * byte fetched. Helper tests with a real page reload live in tests/e2e.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createLoader } from '../../src/data/loader.ts'
import { planScan } from '../../src/data/plan.ts'
import {
  clearUnitCache,
  configureUnitCache,
  DEFAULT_UNIT_CACHE,
  dropUnitCacheMemory,
  flushUnitCache,
  opfsStore,
  setSpillStore,
  unitCacheUsage,
  type SpillStore,
} from '../../src/data/unit-cache.ts'
import { openSnapshot } from '../../src/table/index.ts'
import type { Batch, LoaderStats, ScanPlan } from '../../src/data/types.ts'
import type { FetchLike } from '../../src/table/types.ts'

const COLUMNS = ['user_id', 'dense_2', 'emb', 'label']

/** Vite answers a missing file with index.html; the snapshot reader needs real 404s. */
const devFetch: FetchLike = async (url, init) => {
  const res = await fetch(url, init)
  const html = (res.headers.get('content-type') ?? '').includes('text/html')
  return html ? new Response('Not Found', { status: 404, statusText: 'Not Found' }) : res
}

let plan: ScanPlan
let store: SpillStore
beforeAll(async () => {
  const tableUrl = new URL('/tables/clicks/', location.href).href
  plan = await planScan(await openSnapshot(tableUrl, { fetch: devFetch }), { columns: COLUMNS, fetch: devFetch })
  store = opfsStore(navigator.storage, 'snaptrain-units-test')
  setSpillStore(store)
  await clearUnitCache()
}, 60_000)
afterAll(async () => {
  await clearUnitCache()
  configureUnitCache({ ...DEFAULT_UNIT_CACHE })
  setSpillStore(opfsStore(navigator.storage))
})

async function epoch(workers: number): Promise<{ batches: Batch[]; stats: LoaderStats }> {
  const loader = createLoader(plan, {
    assign: { seed: 7, epoch: 1, worldSize: 2, rank: 0, shuffleBuffer: 10_000 },
    batchSize: 4096,
    spec: { user_id: 'hash32' },
    ids: true,
    workers,
  })
  const batches: Batch[] = []
  try {
    for await (const batch of loader.batches()) batches.push(batch)
    return { batches, stats: loader.stats() }
  } finally {
    await loader.close()
  }
}

function bytesOf(batches: Batch[]): Uint8Array[] {
  const out: Uint8Array[] = []
  for (const b of batches) {
    for (const c of Object.values(b.columns))
      out.push(new Uint8Array(c.values.buffer, c.values.byteOffset, c.values.byteLength))
    out.push(new Uint8Array(b.ids!.unit.buffer), new Uint8Array(b.ids!.row.buffer))
  }
  return out
}

function expectIdentical(got: Batch[], want: Batch[]): void {
  const a = bytesOf(got)
  const b = bytesOf(want)
  expect(a.length).toBe(b.length)
  const differs = a.findIndex((x, i) => x.length !== b[i].length || x.some((v, j) => v !== b[i][j]))
  expect(differs, 'first differing array').toBe(-1)
}

it('the OPFS store writes, lists, reads, removes and clears entries', async () => {
  const name = `${'a'.repeat(16)}-${'b'.repeat(16)}.unit`
  const bytes = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7) & 255)
  await store.write(name, bytes)
  expect(await store.read(name)).toEqual(bytes)
  expect(await store.list()).toEqual([expect.objectContaining({ name, bytes: 1000 })])
  await store.remove(name)
  expect(await store.read(name)).toBeUndefined()
  await store.write(name, bytes)
  await store.clear()
  expect(await store.list()).toEqual([])
})

it('after a reload the next epoch comes from OPFS, byte-identical, with 0 table bytes fetched', async () => {
  await clearUnitCache()
  const first = await epoch(1)
  expect(first.stats.cacheMisses).toBe(first.stats.unitsRead)
  await flushUnitCache()
  const spilled = await store.list()
  expect(spilled).toHaveLength(first.stats.unitsRead)
  await dropUnitCacheMemory() // as a page reload: memory empty, OPFS listed again
  expect((await unitCacheUsage()).entries).toBe(0)
  const second = await epoch(1)
  expect(second.stats.cacheHits).toBe(first.stats.unitsRead)
  expect(second.stats.cacheMisses).toBe(0)
  expect(second.stats.bytesFetched).toBe(0)
  expect(second.stats.bytesFromCache).toBeGreaterThan(0)
  expectIdentical(second.batches, first.batches)
}, 60_000)

it('the OPFS spill keeps its budget (least recently used out first)', async () => {
  await clearUnitCache()
  configureUnitCache({ memoryBytes: 0 })
  await epoch(0)
  await flushUnitCache()
  const all = (await store.list()).reduce((n, e) => n + e.bytes, 0)
  const count = (await store.list()).length
  await clearUnitCache()
  const budget = Math.floor(all / 3)
  configureUnitCache({ memoryBytes: 0, spillBytes: budget })
  const run = await epoch(0)
  await flushUnitCache()
  const listed = await store.list()
  const usage = await unitCacheUsage()
  const onDisk = listed.reduce((n, e) => n + e.bytes, 0)
  expect(onDisk).toBeLessThanOrEqual(budget)
  expect(usage.spillBytes).toBe(onDisk)
  expect(listed.length).toBeGreaterThan(0)
  expect(listed.length).toBeLessThan(count)
  expect(usage.evictions).toBe(run.stats.cacheMisses - listed.length)
  configureUnitCache({ ...DEFAULT_UNIT_CACHE })
}, 60_000)
