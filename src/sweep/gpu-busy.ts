/**
 * GPU busy time of one device, for a sweep's GPU-seconds: the time its queue holds submitted,
 * unfinished work. Every `queue.submit` is followed by an `onSubmittedWorkDone()` watch; the
 * queue runs submissions in order, so the busy time is the union of the intervals
 * [max(submit, previous done), done]. Why not timestamp queries: they time single passes that a
 * backend must opt into (src/gpu/timestamp.ts) and many adapters lack them, while this works on
 * every device and with every backend unchanged. It counts queue occupancy: a done-callback the
 * page's main thread is too busy to run is counted late, so it errs on the high side, equally for
 * every strategy of a comparison. writeBuffer uploads fall inside the next submit's interval.
 */

/** Busy-time accounting of one GPUDevice's queue (wraps queue.submit once). */
export class GpuBusyClock {
  private busyMs = 0
  private lastDone = 0
  private inFlight = 0
  private waiters: Array<() => void> = []

  /** Starts counting `device`'s submits from now on. */
  constructor(readonly device: GPUDevice) {
    const queue = device.queue
    const submit = queue.submit.bind(queue)
    // An own property shadows GPUQueue.prototype.submit for this device only.
    queue.submit = (buffers: Iterable<GPUCommandBuffer>) => {
      submit(buffers)
      this.watch(queue, performance.now())
    }
  }

  /** Busy seconds so far (finished submissions only; await idle() first for an exact figure). */
  seconds(): number {
    return this.busyMs / 1000
  }

  /** Resolves when every submission so far is done (or the device is lost). */
  idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve()
    return new Promise(resolve => this.waiters.push(resolve))
  }

  private watch(queue: GPUQueue, submittedAt: number): void {
    this.inFlight++
    const settle = (): void => {
      const done = performance.now()
      this.busyMs += Math.max(0, done - Math.max(submittedAt, this.lastDone))
      this.lastDone = Math.max(this.lastDone, done)
      if (--this.inFlight === 0) for (const w of this.waiters.splice(0)) w()
    }
    queue.onSubmittedWorkDone().then(settle, settle)
  }
}
