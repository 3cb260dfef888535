/**
 * When the bytes of this realm's fetches arrived, by the runtime's own Resource Timing: for each
 * `fetch` answer, [fetchStart, responseEnd] in wall-clock ms (timeOrigin + the entry's times) and
 * its body size. A loader worker's thread may be busy decoding when an answer completes, so the
 * moment its code sees the bytes (UnitReaderStats.fetchSpans) is later than the moment they came
 * off the wire; this is the latter, the same measure for the loader and for a plain fetch (the
 * bench's wire rows). Where the runtime has no resource entries (Node without them) it stays empty.
 */

/** One answer: wall-clock start and end (ms) and its body bytes (as the code receives them: decodedBodySize). */
export type Arrival = [start: number, end: number, bytes: number]

/** Answers kept (a few epochs of a large table's ranges). */
const KEPT = 4096

const arrivals: Arrival[] = []
let observing = false

/** Starts recording this realm's fetch answers (once; later calls do nothing). */
export function recordArrivals(): void {
  if (observing) return
  observing = true
  const Observer = (globalThis as { PerformanceObserver?: typeof PerformanceObserver }).PerformanceObserver
  if (!Observer?.supportedEntryTypes?.includes('resource')) return
  new Observer(list => {
    for (const entry of list.getEntries() as PerformanceResourceTiming[]) {
      if (entry.initiatorType !== 'fetch' || !(entry.responseEnd > 0)) continue
      arrivals.push([
        performance.timeOrigin + entry.fetchStart,
        performance.timeOrigin + entry.responseEnd,
        entry.decodedBodySize,
      ])
      if (arrivals.length > KEPT) arrivals.shift()
    }
  }).observe({ type: 'resource' })
}

/** The answers recorded so far (a copy). */
export function recordedArrivals(): Arrival[] {
  return arrivals.slice()
}
