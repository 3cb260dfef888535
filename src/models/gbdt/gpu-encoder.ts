/**
 * Batches the GPU backend's work into as few submits as possible: kernels, clears and copies
 * append to one pending command encoder, and only a read-back (split results, margins, root
 * sums) submits it — on SwiftShader each submit round trip costs ~2.4 ms. Per-call buffers
 * (uniforms, node tables) are freed after the submit that used them.
 */
import { uploadBuffer } from '../../gpu/buffers.ts'
import type { PipelineCache } from '../../gpu/pipeline-cache.ts'
import type { KernelCall } from '../../kernels/runner.ts'
import { prepareKernel } from '../../kernels/runner.ts'

/** Wall-clock milliseconds per stage, accumulated when profiling. */
export type StageTimes = Record<string, number>

/**
 * Runs `make` inside validation / out-of-memory error scopes; when the GPU reports an error,
 * `undo`es the result and throws naming `what` and the error.
 */
export async function createChecked<T>(device: GPUDevice, what: string, make: () => T, undo: (t: T) => void): Promise<T> {
  device.pushErrorScope('validation')
  device.pushErrorScope('out-of-memory')
  let made: { value: T } | undefined, thrown: unknown
  try { made = { value: make() } } catch (e) { thrown = e }
  const [oom, invalid] = await Promise.all([device.popErrorScope(), device.popErrorScope()])
  if (!made) throw thrown
  const err = oom ?? invalid
  if (err) {
    undo(made.value)
    throw new Error(`GPU backend: ${what} failed (${oom ? 'out of GPU memory' : 'validation error'}): ${err.message}`)
  }
  return made.value
}

/** A pending command encoder with the buffers its commands use. */
export class GpuEncoder {
  private enc?: GPUCommandEncoder
  private pass?: GPUComputePassEncoder
  private garbage: GPUBuffer[] = []
  private freeLater: Array<() => void> = []
  /** True while this encoder's error scopes are pushed (from the first command to the next read). */
  private scoped = false

  /** `profile`: when given, every stage is submitted and awaited alone and timed into it. */
  constructor(private readonly cache: PipelineCache, private readonly profile?: StageTimes) {}

  private get device(): GPUDevice { return this.cache.device }

  /** The open encoder, outside any compute pass (for clears and copies). */
  encoder(): GPUCommandEncoder {
    this.openScope()
    this.pass?.end()
    this.pass = undefined
    this.enc ??= this.device.createCommandEncoder({ label: 'gbdt' })
    return this.enc
  }

  /** Encodes `call` into the open compute pass (one pass holds many dispatches). */
  run<S>(call: KernelCall<S>): void {
    this.openScope()
    const k = prepareKernel(this.cache, call)
    if (!this.pass) this.pass = this.encoder().beginComputePass({ label: 'gbdt' })
    k.encode(this.pass)
    this.freeLater.push(() => k.destroy())
  }

  /**
   * Encodes `call` with its workgroup count read from `args` (u32 × 3 at byte `offset`, written
   * by an earlier dispatch in this pass: each dispatch is its own usage scope) instead of
   * `call.spec.dispatchSize`.
   */
  runIndirect<S>(call: KernelCall<S>, args: GPUBuffer, offset = 0): void {
    this.openScope()
    const k = prepareKernel(this.cache, call)
    if (!this.pass) this.pass = this.encoder().beginComputePass({ label: 'gbdt' })
    this.pass.setPipeline(k.pipeline)
    this.pass.setBindGroup(0, k.bindGroup)
    this.pass.dispatchWorkgroupsIndirect(args, offset)
    this.freeLater.push(() => k.destroy())
  }

  /** Ends the current compute pass: the next dispatches start a new one (after a clear, say). */
  barrier(): void {
    if (this.pass) this.encoder()
  }

  /** A buffer holding `data`, freed after the next submit. */
  upload(data: ArrayBufferView<ArrayBuffer>): GPUBuffer {
    this.openScope()
    const b = uploadBuffer(this.device, data)
    this.garbage.push(b)
    return b
  }

  /** Frees `b` after the next submit (it may still be used by pending commands). */
  release(b: GPUBuffer): void {
    this.garbage.push(b)
  }

  /** Submits the pending commands (if any) and frees the per-call buffers. */
  submit(): void {
    if (this.enc) {
      this.pass?.end()
      this.device.queue.submit([this.enc.finish()])
    }
    this.enc = undefined
    this.pass = undefined
    this.garbage.forEach(b => b.destroy())
    this.freeLater.forEach(f => f())
    this.garbage = []
    this.freeLater = []
  }

  /**
   * Copies each [buffer, bytes, offset = 0] into one staging buffer, submits everything pending
   * and maps it: one round trip for all reads. Returns one ArrayBuffer per source.
   */
  async read(sources: Array<[GPUBuffer, number] | [GPUBuffer, number, number]>): Promise<ArrayBuffer[]> {
    const total = sources.reduce((s, [, n]) => s + n, 0)
    const staging = this.device.createBuffer({ label: 'gbdt readback', size: Math.max(4, total), usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST })
    let at = 0
    for (const [src, n, from] of sources) {
      if (n > 0) this.encoder().copyBufferToBuffer(src, from ?? 0, staging, at, n)
      at += n
    }
    this.submit()
    try {
      await this.closeScope()
      await staging.mapAsync(GPUMapMode.READ)
      const all = staging.getMappedRange()
      let off = 0
      return sources.map(([, n]) => { const part = all.slice(off, off + n); off += n; return part })
    } finally {
      staging.destroy()
    }
  }

  /**
   * Validation and out-of-memory errors are silent in WebGPU (the GPU just computes garbage), so
   * every batch of commands runs inside error scopes that the next read checks.
   */
  private openScope(): void {
    if (this.scoped) return
    this.device.pushErrorScope('validation')
    this.device.pushErrorScope('out-of-memory')
    this.scoped = true
  }

  /** Pops the scopes; throws the first error they caught. */
  async closeScope(): Promise<void> {
    if (!this.scoped) return
    this.scoped = false
    // Both pops issued at once: another run's scopes cannot slip in between them.
    const [oom, invalid] = await Promise.all([this.device.popErrorScope(), this.device.popErrorScope()])
    const err = oom ?? invalid
    if (err) throw new Error(`GPU backend: ${oom ? 'out of GPU memory' : 'GPU validation error'}: ${err.message}`)
  }

  /** Profiling only: submits and awaits the GPU, adding the elapsed ms to stage `name`. */
  async stage(name: string, t0: number): Promise<void> {
    if (!this.profile) return
    this.submit()
    await this.device.queue.onSubmittedWorkDone()
    this.profile[name] = (this.profile[name] ?? 0) + performance.now() - t0
  }

  /** True when stages are timed. */
  get profiling(): boolean { return this.profile !== undefined }
}
