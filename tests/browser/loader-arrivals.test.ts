/**
 * When a loader worker's column-chunk answers came off the wire (src/data/arrivals.ts, the bench's
 * `wire: … arriving` rows): after one epoch with the epoch cache bypassed, the pooled workers'
 * recorded answers inside the epoch hold exactly the bytes the loader counted as fetched, each
 * span ordered and inside the epoch's wall time.
 */
import { beforeAll, expect, it } from 'vitest'
import { createLoader } from '../../src/data/loader.ts'
import { planScan } from '../../src/data/plan.ts'
import { idleWorkerStats } from '../../src/data/unit-source.ts'
import { openSnapshot } from '../../src/table/index.ts'
import type { ScanPlan } from '../../src/data/types.ts'
import type { FetchLike } from '../../src/table/types.ts'

/** Vite answers a missing file with index.html; the snapshot reader needs real 404s. */
const devFetch: FetchLike = async (url, init) => {
  const res = await fetch(url, init)
  const html = (res.headers.get('content-type') ?? '').includes('text/html')
  return html ? new Response('Not Found', { status: 404, statusText: 'Not Found' }) : res
}

let plan: ScanPlan
beforeAll(async () => {
  const tableUrl = new URL('/tables/clicks/', location.href).href
  plan = await planScan(await openSnapshot(tableUrl, { fetch: devFetch }), {
    columns: ['user_id', 'dense_2', 'emb', 'label'],
    fetch: devFetch,
  })
}, 60_000)

it("a loader worker's answers arrive as recorded: the epoch's fetched bytes, inside the epoch", async () => {
  const wall = (): number => performance.timeOrigin + performance.now()
  const t0 = wall()
  const loader = createLoader(plan, {
    assign: { seed: 3, epoch: 0, worldSize: 1, rank: 0 },
    batchSize: 8192,
    spec: { user_id: 'hash32' },
    workers: 2,
    cache: false,
  })
  let fetched = 0
  try {
    for await (const _ of loader.batches());
    fetched = loader.stats().bytesFetched
  } finally {
    await loader.close()
  }
  const t1 = wall()
  expect(fetched).toBeGreaterThan(0)
  const arrivals = (await idleWorkerStats()).flatMap(s => s.arrivals).filter(([a, b]) => a >= t0 && b <= t1)
  expect(arrivals.length).toBeGreaterThan(0)
  for (const [start, end, bytes] of arrivals) {
    expect(end).toBeGreaterThanOrEqual(start)
    expect(bytes).toBeGreaterThan(0)
  }
  expect(arrivals.reduce((sum, [, , bytes]) => sum + bytes, 0)).toBe(fetched)
}, 120_000)
