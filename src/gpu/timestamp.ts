/**
 * GPU timestamps around one compute pass (after webgpu-samples' TimestampQueryManager,
 * STYLE.md §15). Where the device lacks 'timestamp-query' every method is a no-op and `read`
 * yields undefined, so benchmarks still run and report wall time only.
 */

/** Measures the GPU time of compute passes, when the device can. */
export class TimestampQueryManager {
  /** True when the device has 'timestamp-query' enabled. */
  readonly supported: boolean
  private readonly querySet?: GPUQuerySet
  private readonly resolveBuffer?: GPUBuffer
  private readonly resultBuffer?: GPUBuffer
  private pending = false

  constructor(device: GPUDevice) {
    this.supported = device.features.has('timestamp-query')
    if (!this.supported) return
    this.querySet = device.createQuerySet({ type: 'timestamp', count: 2 })
    this.resolveBuffer = device.createBuffer({
      size: 16,
      usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC,
    })
    this.resultBuffer = device.createBuffer({ size: 16, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ })
  }

  /** `desc` with timestampWrites at the pass's start and end added (unchanged when unsupported). */
  addTimestampWrites(desc: GPUComputePassDescriptor = {}): GPUComputePassDescriptor {
    if (!this.querySet) return desc
    return {
      ...desc,
      timestampWrites: { querySet: this.querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 },
    }
  }

  /** Encodes the copy of the pass's timestamps; call after the pass ends, before `finish()`. */
  resolve(encoder: GPUCommandEncoder): void {
    if (!this.querySet || !this.resolveBuffer || !this.resultBuffer) return
    // Copying into a buffer that a previous read still holds mapped is a validation error.
    if (this.resultBuffer.mapState !== 'unmapped') return
    encoder.resolveQuerySet(this.querySet, 0, 2, this.resolveBuffer, 0)
    encoder.copyBufferToBuffer(this.resolveBuffer, 0, this.resultBuffer, 0, 16)
    this.pending = true
  }

  /** GPU nanoseconds between the last resolved pass's start and end; undefined if unavailable. */
  async read(): Promise<number | undefined> {
    if (!this.resultBuffer || !this.pending) return undefined
    this.pending = false
    await this.resultBuffer.mapAsync(GPUMapMode.READ)
    const [start, end] = new BigInt64Array(this.resultBuffer.getMappedRange())
    this.resultBuffer.unmap()
    // Some implementations report 0 or a backwards pair when the pass was not timed.
    const ns = Number(end - start)
    return ns > 0 ? ns : undefined
  }

  /** Frees the query set and buffers. */
  destroy(): void {
    this.querySet?.destroy()
    this.resolveBuffer?.destroy()
    this.resultBuffer?.destroy()
  }
}
