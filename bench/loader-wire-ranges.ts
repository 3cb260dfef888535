/**
 * The byte ranges of the wire rows (bench/loader-wire.ts) and one plain pass over them: plain
 * `fetch` only, so the page, a bare module worker (loader-wire.worker.ts) and Node
 * (bench/cli-loader.ts) run the same code.
 */
import type { ScanPlan } from '../src/data/types.ts'
import { resolveColumns } from '../src/data/unit-columns.ts'
import { chunkRanges } from '../src/parquet/unit-bytes.ts'

/** One byte range [start, end) of a file, as the loader's unit reader requests it. */
export interface WireRange {
  url: string
  start: number
  end: number
}

/**
 * Requests in flight in the plain passes: the loader's default prefetch with 2 workers (2 per
 * worker + 2), the most its workers have in flight together.
 */
export const WIRE_IN_FLIGHT = 6

/**
 * The ranges one epoch of the loader fetches: per row group of the plan's units (in plan order,
 * each group once), its needed column chunks coalesced as fetchGroup does (unit-bytes.ts).
 */
export function wireRanges(plan: ScanPlan): WireRange[] {
  const seen = new Set<string>()
  const out: WireRange[] = []
  for (const unit of plan.units) {
    const key = `${unit.fileIndex}:${unit.rowGroup}`
    if (seen.has(key)) continue
    seen.add(key)
    const file = plan.files[unit.fileIndex]
    const names = new Set(resolveColumns(plan, file, {}).flatMap(c => (c.kind === 'parquet' ? [c.parquetName] : [])))
    for (const r of chunkRanges(file.metadata, unit.rowGroup, names)) out.push({ url: file.url, ...r })
  }
  return out
}

/** One plain pass: bytes received and its wall time. */
export interface WirePass {
  bytes: number
  ms: number
  /** Short answers asked again (the HTTP-cache pass only). */
  retried?: number
}

/**
 * Fetches every range, `inFlight` at a time, each body read whole with arrayBuffer() and checked
 * to be exactly its length. `cache` is the request's cache mode where one is given (browsers).
 */
export async function fetchPass(
  ranges: readonly WireRange[],
  inFlight = WIRE_IN_FLIGHT,
  cache?: RequestCache,
): Promise<WirePass> {
  const t0 = performance.now()
  let next = 0
  let bytes = 0
  let retried = 0
  const lane = async (): Promise<void> => {
    while (next < ranges.length) {
      const r = ranges[next++]!
      for (let attempt = 1; ; attempt++) {
        const res = await fetch(r.url, {
          headers: { Range: `bytes=${r.start}-${r.end - 1}` },
          ...(cache ? { cache } : {}),
        })
        const body = await res.arrayBuffer()
        if (res.status === 206 && body.byteLength === r.end - r.start) {
          bytes += body.byteLength
          break
        }
        // Chromium's HTTP cache now and then hands over a 206 body shorter than its Content-Range
        // when ranges of one file overlap (bench/README.md, loader): asked again, as the loader's
        // fetch layer and the parquet-wasm peer do; never with the cache bypassed.
        const short = res.status === 206 && body.byteLength < r.end - r.start && cache !== 'no-store'
        if (!short || attempt === 3)
          throw new Error(`wire: ${r.url} bytes=${r.start}-${r.end - 1}: ${res.status}, ${body.byteLength} bytes`)
        retried++
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(inFlight, ranges.length) }, lane))
  return { bytes, ms: performance.now() - t0, retried }
}
