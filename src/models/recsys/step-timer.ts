/**
 * GPU time of the recommender's training steps by timestamp queries, read back with the losses
 * (never per step). N = loss history slots (params.eval_every, capped): step slot k writes
 * timestamps 2k (pass start) and 2k+1 (pass end) of one query set; a drain resolves the first 2n
 * and reads them in one map. Where the device lacks 'timestamp-query' the timer is not created.
 */

/** Timestamp queries of the compute passes of up to `slots` steps between read-backs. */
export class StepGpuTimer {
  private readonly querySet: GPUQuerySet
  private readonly resolveBuffer: GPUBuffer
  private readonly readBuffer: GPUBuffer
  /** Summed GPU ms of the steps read back so far. */
  totalMs = 0

  private constructor(
    private readonly device: GPUDevice,
    readonly slots: number,
  ) {
    this.querySet = device.createQuerySet({ type: 'timestamp', count: 2 * slots, label: 'recsys step timestamps' })
    const size = 16 * slots
    this.resolveBuffer = device.createBuffer({
      label: 'recsys step timestamps',
      size,
      usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC,
    })
    this.readBuffer = device.createBuffer({
      label: 'recsys step timestamps read-back',
      size,
      usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ,
    })
  }

  /** A timer for `slots` steps, or undefined when the device has no 'timestamp-query'. */
  static create(device: GPUDevice, slots: number): StepGpuTimer | undefined {
    if (!device.features.has('timestamp-query')) return undefined
    if (!(Number.isInteger(slots) && slots >= 1)) throw new RangeError(`StepGpuTimer: slots must be ≥ 1, got ${slots}`)
    return new StepGpuTimer(device, slots)
  }

  /** The timestampWrites of step slot `slot`'s compute pass. */
  writes(slot: number): GPUComputePassTimestampWrites {
    if (!(slot >= 0 && slot < this.slots))
      throw new RangeError(`StepGpuTimer: slot ${slot} outside 0 … ${this.slots - 1}`)
    return { querySet: this.querySet, beginningOfPassWriteIndex: 2 * slot, endOfPassWriteIndex: 2 * slot + 1 }
  }

  /**
   * Resolves and reads the first `n` slots (queued after every submitted step); adds their GPU
   * time to totalMs and returns it per step (ms; 0 where the pair came back empty or backwards).
   */
  async read(n: number): Promise<number[]> {
    if (n === 0) return []
    const enc = this.device.createCommandEncoder({ label: 'recsys step timestamps' })
    enc.resolveQuerySet(this.querySet, 0, 2 * n, this.resolveBuffer, 0)
    enc.copyBufferToBuffer(this.resolveBuffer, 0, this.readBuffer, 0, 16 * n)
    this.device.queue.submit([enc.finish()])
    await this.readBuffer.mapAsync(GPUMapMode.READ, 0, 16 * n)
    const t = new BigInt64Array(this.readBuffer.getMappedRange(0, 16 * n).slice(0))
    this.readBuffer.unmap()
    const ms = Array.from({ length: n }, (_, k) => Math.max(0, Number(t[2 * k + 1] - t[2 * k]) / 1e6))
    this.totalMs += ms.reduce((a, b) => a + b, 0)
    return ms
  }

  destroy(): void {
    this.querySet.destroy()
    this.resolveBuffer.destroy()
    this.readBuffer.destroy()
  }
}
