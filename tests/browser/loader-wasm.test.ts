/**
 * The loader bench's parquet-wasm peer in the page: 2 module workers load the WASM, open every
 * file of the 200k-row clicks sample (one worker after another), read every unit by HTTP Range
 * requests through the checked fetch (bench/loader-wasm.worker.ts) and deliver the plan's rows,
 * twice (an epoch on open files); the units' typed columns equal the loader's unit reader's, byte
 * for byte.
 */
import { expect, it } from 'vitest'
import { openSnapshot } from '../../src/table/index.ts'
import { planScan } from '../../src/data/plan.ts'
import { createUnitReader } from '../../src/data/unit-reader.ts'
import type { DecodeSpec } from '../../src/data/types.ts'
import type { FetchLike } from '../../src/table/types.ts'
import { CLICKS_COLUMNS } from '../../bench/loader-rows.ts'
import { createWasmPeer } from '../../bench/loader-wasm.ts'
import type { PeerColumn } from '../../bench/loader-arrow.ts'

const SPEC: DecodeSpec = Object.fromEntries(CLICKS_COLUMNS.map(c => [c.name, c.encoding]))

/** The vite dev server answers a missing file with index.html; the snapshot reader needs a 404. */
const devFetch: FetchLike = async (url, init) => {
  const res = await fetch(url, init)
  return (res.headers.get('content-type') ?? '').includes('text/html')
    ? new Response('Not Found', { status: 404 })
    : res
}

function sameBytes(a: ArrayBufferView, b: ArrayBufferView): boolean {
  const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength)
  const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength)
  return x.length === y.length && x.every((v, i) => v === y[i])
}

it('parquet-wasm workers deliver every row of the plan, each unit equal to the loader unit reader', async () => {
  const snapshot = await openSnapshot(new URL('/tables/clicks/', location.href).href, { fetch: devFetch })
  const plan = await planScan(snapshot, { columns: CLICKS_COLUMNS.map(c => c.name) })
  const peer = createWasmPeer(plan, CLICKS_COLUMNS, 2)
  const got = new Map<number, { rows: number; cols: Record<string, PeerColumn> }>()
  try {
    const epoch = await peer.epoch((id, rows, cols) => got.set(id, { rows, cols }))
    expect(epoch.rows).toBe(plan.stats.rows)
    expect((await peer.epoch()).rows).toBe(plan.stats.rows)
    expect(got.size).toBe(plan.units.length)
    expect(epoch.firstMs).toBeGreaterThan(0)
    expect(epoch.firstMs).toBeLessThanOrEqual(epoch.wallMs)
  } finally {
    peer.close()
  }
  const reader = createUnitReader(plan, SPEC)
  for (const id of [0, plan.units.length - 1]) {
    const ours = await reader.read(id)
    const theirs = got.get(id)!
    expect(theirs.rows).toBe(ours.rows)
    for (const c of CLICKS_COLUMNS)
      expect(sameBytes(theirs.cols[c.name]!, ours.columns[c.name]!.values), c.name).toBe(true)
  }
})
