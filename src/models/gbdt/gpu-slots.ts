/**
 * Histogram slots of the GPU backend: node id → slot in one hist buffer (u32 × S·B·4, layout in
 * types.ts), freed slots reused, the buffer grown (by copy, on the GPU) when a tree needs more
 * slots than planned. B = total bins, S = slots.
 */
import { createBuffer } from '../../gpu/buffers.ts'
import type { GpuRecorder } from '../../gpu/recorder.ts'

/** Bytes of one slot's histogram per bin: [gLo, gHi, hLo, hHi]. */
const BIN_BYTES = 16

/** Slot allocation plus the hist buffer it indexes. */
export class HistogramSlots {
  /** The current hist buffer (replaced when it grows). */
  hist: GPUBuffer
  private capacity: number
  private readonly slotOf = new Map<number, number>()
  private free: number[] = []
  private next = 0

  /** `initial` slots of B = `bins` bins; never more than `maxBytes` in one buffer. */
  constructor(
    private readonly device: GPUDevice,
    private readonly bins: number,
    initial: number,
    private readonly maxBytes: number,
  ) {
    this.capacity = Math.max(1, Math.min(initial, this.maxSlots()))
    this.hist = createBuffer(device, this.capacity * bins * BIN_BYTES)
  }

  private maxSlots(): number {
    return Math.max(1, Math.floor(this.maxBytes / (this.bins * BIN_BYTES)))
  }

  /** Forgets every node (start of a tree). */
  reset(): void {
    this.slotOf.clear()
    this.free = []
    this.next = 0
  }

  /** Slot of `nid`, allocated (and the buffer grown, encoded into `e`) on first use. */
  slot(nid: number, e: GpuRecorder): number {
    let s = this.slotOf.get(nid)
    if (s !== undefined) return s
    s = this.free.pop() ?? this.next++
    if (s >= this.capacity) this.grow(s + 1, e)
    this.slotOf.set(nid, s)
    return s
  }

  /** Encodes zeroing `nid`'s slot (before a build accumulates into it). */
  clear(nid: number, e: GpuRecorder): void {
    const s = this.slot(nid, e),
      bytes = this.bins * BIN_BYTES
    e.encoder().clearBuffer(this.hist, s * bytes, bytes)
  }

  /** Frees the slots of `nids` (unknown ids are ignored). */
  release(nids: number[]): void {
    for (const nid of nids) {
      const s = this.slotOf.get(nid)
      if (s === undefined) continue
      this.slotOf.delete(nid)
      this.free.push(s)
    }
  }

  private grow(need: number, e: GpuRecorder): void {
    const max = this.maxSlots()
    if (need > max) {
      throw new RangeError(
        `GPU backend: a tree needs ${need} histogram slots of ${this.bins} bins, but one buffer holds ${max} ` +
          `(${this.maxBytes} bytes); lower max_depth / max_leaves or max_bin`,
      )
    }
    const capacity = Math.min(max, Math.max(need, 2 * this.capacity))
    const next = createBuffer(this.device, capacity * this.bins * BIN_BYTES)
    e.encoder().copyBufferToBuffer(this.hist, 0, next, 0, this.capacity * this.bins * BIN_BYTES)
    e.release(this.hist)
    this.hist = next
    this.capacity = capacity
  }

  /** Frees the buffer. */
  destroy(): void {
    this.hist.destroy()
  }
}
