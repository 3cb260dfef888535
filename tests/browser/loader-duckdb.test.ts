/**
 * The loader bench's DuckDB-Wasm peer in the page (bench/loader-duckdb.ts): DuckDB-Wasm 1.28.0 in
 * its worker reads every live file of the 200k-row clicks sample over HTTP into the loader's typed
 * columns; the order-free checksum of its rows equals the loader's (2 workers, a shuffled epoch),
 * for a fresh registration and for the repeated query; one changed value changes the checksum, the
 * files' order does not. With units that drop rows (as a deletion vector does), both deliver the
 * same fewer rows.
 */
import { expect, it } from 'vitest'
import { openSnapshot } from '../../src/table/index.ts'
import { planScan } from '../../src/data/plan.ts'
import { createLoader } from '../../src/data/loader.ts'
import type { DecodeSpec, ScanPlan } from '../../src/data/types.ts'
import type { FetchLike } from '../../src/table/types.ts'
import { addChecksum, CLICKS_COLUMNS, type RowChecksum, rowChecksum } from '../../bench/loader-rows.ts'
import { duckFiles, openDuckPeer } from '../../bench/loader-duckdb.ts'
import type { PeerColumn } from '../../bench/loader-arrow.ts'

const SPEC: DecodeSpec = Object.fromEntries(CLICKS_COLUMNS.map(c => [c.name, c.encoding]))

/** The vite dev server answers a missing file with index.html; the snapshot reader needs a 404. */
const devFetch: FetchLike = async (url, init) => {
  const res = await fetch(url, init)
  return (res.headers.get('content-type') ?? '').includes('text/html')
    ? new Response('Not Found', { status: 404 })
    : res
}

async function loaderChecksum(plan: ScanPlan): Promise<RowChecksum> {
  const sum = rowChecksum()
  const loader = createLoader(plan, {
    assign: { seed: 3, epoch: 1, worldSize: 1, rank: 0 },
    batchSize: 8192,
    spec: SPEC,
    workers: 2,
    cache: false,
  })
  try {
    for await (const b of loader.batches())
      addChecksum(
        sum,
        CLICKS_COLUMNS,
        b.size,
        Object.fromEntries(Object.entries(b.columns).map(([k, c]) => [k, c.values])),
      )
  } finally {
    await loader.close()
  }
  return sum
}

/** `plan` with every other row of unit 0 and the first 100 rows of the last unit dropped, as deletion vectors drop rows. */
function withDeletedRows(plan: ScanPlan): ScanPlan {
  const units = plan.units.map((u, i) => {
    if (i !== 0 && i !== plan.units.length - 1) return u
    const rows = Array.from({ length: u.rowEnd - u.rowStart }, (_, k) => u.rowStart + k)
    const live = Uint32Array.from(i === 0 ? rows.filter(r => r % 2 === 0) : rows.slice(100))
    return { ...u, live, liveRows: live.length }
  })
  const rows = units.reduce((n, u) => n + u.liveRows, 0)
  return { ...plan, units, stats: { ...plan.stats, rows }, digest: `${plan.digest}-deleted` }
}

it('DuckDB-Wasm delivers the loader’s rows: equal order-free checksums, fresh and repeated', async () => {
  const snapshot = await openSnapshot(new URL('/tables/clicks/', location.href).href, { fetch: devFetch })
  const plan = await planScan(snapshot, { columns: CLICKS_COLUMNS.map(c => c.name) })
  const ours = await loaderChecksum(plan)
  expect(ours.rows).toBe(plan.stats.rows)

  const peer = await openDuckPeer(plan, CLICKS_COLUMNS)
  const files: { rows: number; cols: Record<string, PeerColumn> }[] = []
  try {
    expect(peer.label).toMatch(/^duckdb-wasm 1\.28\.0 \(DuckDB v[\d.]+, eh\)$/)
    const fresh = await peer.epoch({
      fresh: true,
      checksum: true,
      onFile: (i, rows, cols) => (files[i] = { rows, cols }),
    })
    expect(fresh.rows).toBe(plan.stats.rows)
    expect(fresh.checksum).toEqual(ours)
    const repeated = await peer.epoch({ fresh: false, checksum: true })
    expect(repeated.checksum).toEqual(ours)
  } finally {
    await peer.close()
  }

  // Order-free: the files summed last to first give the same checksum.
  const reversed = rowChecksum()
  for (const f of [...files].reverse()) addChecksum(reversed, CLICKS_COLUMNS, f.rows, f.cols)
  expect(reversed).toEqual(ours)
  // One value changed (a float of the last file's middle row) changes it.
  const last = files.at(-1)!
  const dense = last.cols.dense_3 as Float32Array
  dense[last.rows >> 1] = dense[last.rows >> 1]! + 1
  const changed = rowChecksum()
  for (const f of files) addChecksum(changed, CLICKS_COLUMNS, f.rows, f.cols)
  expect(changed.rows).toBe(ours.rows)
  expect(changed.sum).not.toBe(ours.sum)
})

it('rows the units drop (deletion vectors) are dropped by DuckDB’s file_row_number too', async () => {
  const snapshot = await openSnapshot(new URL('/tables/clicks/', location.href).href, { fetch: devFetch })
  const plan = withDeletedRows(await planScan(snapshot, { columns: CLICKS_COLUMNS.map(c => c.name) }))
  const dropped = duckFiles(plan).filter(f => f.live)
  expect(dropped.length).toBeGreaterThan(0)
  const ours = await loaderChecksum(plan)
  expect(ours.rows).toBe(plan.stats.rows)
  const peer = await openDuckPeer(plan, CLICKS_COLUMNS)
  try {
    const epoch = await peer.epoch({ fresh: true, checksum: true })
    expect(epoch.checksum).toEqual(ours)
  } finally {
    await peer.close()
  }
})
