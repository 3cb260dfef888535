/**
 * The loader suite's wire rows: bytes/s of the byte ranges one epoch of the loader requests, as
 * the loader's workers receive them, as a plain `fetch` of the same ranges gets them in the page
 * (main thread) and in a plain module worker, and as a Node client gets them from the same server
 * (measured by the CLI before the browser starts, bench/cli-loader.ts, handed over in
 * LoaderBenchInput.wire). Every pass requests the same ranges with the same number in flight, so
 * the ratios say where bytes are lost between the server and the loader's decoder.
 */
import { createLoader } from '../src/data/loader.ts'
import type { DecodeSpec, ScanPlan } from '../src/data/types.ts'
import { idleWorkerStats } from '../src/data/unit-source.ts'
import { fetchPass, WIRE_IN_FLIGHT, type WirePass, type WireRange, wireRanges } from './loader-wire-ranges.ts'
import type { LoaderSizes } from './loader-rows.ts'
import { valueRow } from './loader-rows.ts'
import { withPeer } from './rows.ts'
import type { BenchRow, SuiteContext, WireInput } from './types.ts'

/** Loader workers of the wire rows (the loader's default). */
const WIRE_WORKERS = 2

/** A plain pass in a fresh module worker (bench/loader-wire.worker.ts): no loader code, only fetch. */
function workerPass(ranges: readonly WireRange[], cache?: RequestCache): Promise<WirePass> {
  const worker = new Worker(new URL('./loader-wire.worker.ts', import.meta.url), { type: 'module' })
  return new Promise<WirePass>((resolve, reject) => {
    worker.onmessage = (e: MessageEvent<WirePass | { error: string }>) =>
      'error' in e.data ? reject(new Error(e.data.error)) : resolve(e.data)
    worker.onerror = e => reject(new Error(`wire worker: ${e.message}`))
    worker.postMessage({ ranges, inFlight: WIRE_IN_FLIGHT, cache })
  }).finally(() => worker.terminate())
}

/** Length of the union of [start, end] spans, ms. */
export function spanUnion(spans: readonly (readonly [number, number])[]): number {
  const sorted = [...spans].sort((a, b) => a[0] - b[0])
  let total = 0
  let from = -Infinity
  let to = -Infinity
  for (const [start, end] of sorted) {
    if (start > to) {
      if (to > from) total += to - from
      from = start
      to = end
    } else to = Math.max(to, end)
  }
  return to > from ? total + to - from : total
}

/** One loader epoch: bytes its workers fetched, the time any fetch was in flight, and the epoch's wall time. */
async function loaderPass(plan: ScanPlan, spec: DecodeSpec, z: LoaderSizes, epoch: number) {
  const wall = (): number => performance.timeOrigin + performance.now()
  const t0 = wall()
  const loader = createLoader(plan, {
    assign: { seed: 1, epoch, worldSize: 1, rank: 0 },
    batchSize: z.batchSize,
    spec,
    workers: WIRE_WORKERS,
    cache: false, // every epoch over the wire (the epoch cache would serve epoch 2 without a request)
  })
  let bytes = 0
  let decodeMs = 0
  try {
    for await (const _ of loader.batches());
    const totals = loader.stats()
    bytes = totals.bytesFetched
    decodeMs = totals.decodeMs
  } finally {
    await loader.close()
  }
  const t1 = wall()
  // The pooled workers' readers keep their spans across loaders: this epoch's lie inside [t0, t1].
  const stats = await idleWorkerStats()
  const spans = stats.flatMap(s => s.fetchSpans.filter(([a, b]) => a >= t0 && b <= t1))
  const arrived = stats.flatMap(s => s.arrivals.filter(([a, b]) => a >= t0 && b <= t1))
  return {
    bytes,
    decodeMs,
    fetchMs: spanUnion(spans),
    arrivedMs: spanUnion(arrived.map(([a, b]) => [a, b] as const)),
    arrivedBytes: arrived.reduce((sum, [, , n]) => sum + n, 0),
    wallMs: t1 - t0,
  }
}

/** The page's Resource Timing entries of requests to `ranges`' files (the table server sends Timing-Allow-Origin). */
function rangeEntries(ranges: readonly WireRange[]): PerformanceResourceTiming[] {
  const urls = new Set(ranges.map(r => r.url))
  return (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).filter(e => urls.has(e.name))
}

/**
 * The time any of the answers was on its way: the union of their [fetchStart, responseEnd]
 * (the measure src/data/arrivals.ts keeps in the loader workers).
 */
function arrivedMs(entries: readonly PerformanceResourceTiming[]): number {
  return spanUnion(entries.map(e => [e.fetchStart, e.responseEnd] as const))
}

/**
 * Chromium's own account of the last pass's requests: medians of fetch() → request sent → first
 * byte → last byte, in ms, and how many requests opened a connection.
 */
function resourceTiming(entries: readonly PerformanceResourceTiming[]): string {
  const median = (xs: number[]): number => xs.sort((a, b) => a - b)[xs.length >> 1] ?? NaN
  const queued = median(entries.map(e => e.requestStart - e.startTime))
  const whole = median(entries.map(e => e.duration))
  const wait = median(entries.map(e => e.responseStart - e.requestStart))
  const body = median(entries.map(e => e.responseEnd - e.responseStart))
  const connects = entries.filter(e => e.connectEnd > e.connectStart).length
  return (
    `${entries.length} requests, medians: fetch() → request sent ${queued.toFixed(1)} ms, → first byte ` +
    `${wait.toFixed(1)} ms, → last byte ${body.toFixed(1)} ms, whole ${whole.toFixed(1)} ms; ${connects} connects`
  )
}

/** MB/s of a pass. */
const rate = (p: WirePass): number => p.bytes / p.ms / 1e3

/**
 * The wire rows: the loader (2 workers) and plain fetch in the page, in a worker, and with
 * `cache: 'no-store'`, alternating per sample so all see the same machine load, beside the Node
 * client's passes. Rows are MB/s; ratios are loader ÷ in-page fetch and in-page ÷ Node.
 */
export async function wireRows(
  ctx: SuiteContext,
  plan: ScanPlan,
  spec: DecodeSpec,
  z: LoaderSizes,
  node?: WireInput,
): Promise<BenchRow[]> {
  const ranges = wireRanges(plan)
  const total = ranges.reduce((s, r) => s + r.end - r.start, 0)
  ctx.progress(`wire: ${ranges.length} ranges, ${(total / 1e6).toFixed(1)} MB, ${WIRE_IN_FLIGHT} in flight`)
  const loaderFetch: number[] = []
  const loaderEpoch: number[] = []
  const loaderArrived: number[] = []
  const page: number[] = []
  const pageArrived: number[] = []
  const pageCache: number[] = []
  const worker: number[] = []
  for (let i = 0; i < z.warmup + z.repeats; i++) {
    const l = await loaderPass(plan, spec, z, i)
    // Fewer when a worker's reader still holds a row group it fetched last epoch (unit-reader.ts GROUP_CACHE).
    if (l.bytes > total) throw new Error(`wire: the loader fetched ${l.bytes} bytes, the ranges hold ${total}`)
    performance.clearResourceTimings()
    const p = await fetchPass(ranges, WIRE_IN_FLIGHT, 'no-store')
    const entries = rangeEntries(ranges)
    const timing = resourceTiming(entries)
    const pArrived = p.bytes / arrivedMs(entries) / 1e3
    const c = await fetchPass(ranges)
    const w = await workerPass(ranges, 'no-store')
    ctx.progress(
      `wire ${i < z.warmup ? 'warmup' : 'sample'}: loader ${(l.bytes / l.fetchMs / 1e3).toFixed(0)} MB/s ` +
        `(${(l.fetchMs / 1000).toFixed(2)} s fetching of ${(l.wallMs / 1000).toFixed(2)} s; ` +
        `${(l.arrivedBytes / 1e6).toFixed(1)} MB arriving in ${(l.arrivedMs / 1000).toFixed(2)} s by Resource Timing; ` +
        `${(l.decodeMs / 1000).toFixed(2)} s decoding in the workers), ` +
        `page ${rate(p).toFixed(0)} (arriving ${pArrived.toFixed(0)}; ${timing}), page with HTTP cache ${rate(c).toFixed(0)}${c.retried ? ` (${c.retried} short answers asked again)` : ''}, worker ${rate(w).toFixed(0)} MB/s`,
    )
    if (i < z.warmup) continue
    // An epoch whose row groups all stayed in the workers' readers (a tiny table) fetched nothing: no rate.
    if (l.bytes > 0 && l.fetchMs > 0) {
      loaderFetch.push(l.bytes / l.fetchMs / 1e3)
      loaderEpoch.push(l.bytes / l.wallMs / 1e3)
    }
    if (l.arrivedBytes > 0 && l.arrivedMs > 0) loaderArrived.push(l.arrivedBytes / l.arrivedMs / 1e3)
    page.push(rate(p))
    if (Number.isFinite(pArrived)) pageArrived.push(pArrived)
    pageCache.push(rate(c))
    worker.push(rate(w))
  }
  const metric = 'bytes received'
  const row = (workload: string, values: number[]): BenchRow => valueRow(ctx, workload, metric, 'MB/s', values)
  const nodeRow = node && row(`wire: Node client (fetch, ${WIRE_IN_FLIGHT} in flight)`, node.mbps)
  const vsNode = (r: BenchRow): BenchRow => (nodeRow ? withPeer(r, nodeRow) : r)
  const pageRow = vsNode(row(`wire: plain fetch in page (${WIRE_IN_FLIGHT} in flight)`, page))
  const pageArrivedRow =
    pageArrived.length > 0 ? row(`wire: plain fetch in page, arriving (Resource Timing)`, pageArrived) : undefined
  return [
    ...(nodeRow ? [nodeRow] : []),
    pageRow,
    ...(pageArrivedRow ? [pageArrivedRow] : []),
    vsNode(row(`wire: plain fetch in page, HTTP cache allowed (${WIRE_IN_FLIGHT} in flight)`, pageCache)),
    vsNode(row(`wire: plain fetch in worker (${WIRE_IN_FLIGHT} in flight)`, worker)),
    ...(loaderFetch.length > 0
      ? [
          withPeer(row(`wire: loader workers=${WIRE_WORKERS} bytes (while fetching)`, loaderFetch), pageRow),
          withPeer(row(`wire: loader workers=${WIRE_WORKERS} bytes (per epoch)`, loaderEpoch), pageRow),
        ]
      : []),
    ...(loaderArrived.length > 0 && pageArrivedRow
      ? [
          withPeer(
            row(`wire: loader workers=${WIRE_WORKERS} bytes (arriving, Resource Timing)`, loaderArrived),
            pageArrivedRow,
          ),
        ]
      : []),
  ]
}
