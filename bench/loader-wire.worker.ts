/** A bare module worker for the wire rows: one plain fetch pass over the ranges it is sent, no loader code. */
import { fetchPass, type WireRange } from './loader-wire-ranges.ts'

self.onmessage = async (e: MessageEvent<{ ranges: WireRange[]; inFlight: number; cache?: RequestCache }>) => {
  try {
    self.postMessage(await fetchPass(e.data.ranges, e.data.inFlight, e.data.cache))
  } catch (error) {
    self.postMessage({ error: error instanceof Error ? error.message : String(error) })
  }
}
