/**
 * The GPU command recorder both model families encode their kernels with. Kernels, clears and
 * copies append to one pending command encoder, and only a read-back submits it: on SwiftShader
 * each submit round trip costs ~2.4 ms. A dispatch's bind group and uniform buffer come from one
 * of two policies:
 * - `run` / `runIndirect`: made for this dispatch and freed after the submit that used it (the
 *   GBDT driver's calls change buffers and sizes node by node);
 * - `encode`: kept per call position across submits (a recommender step issues the same ~30
 *   calls over the same buffers every time, only uniform values change), rewriting a uniform
 *   only when its packed bytes differ. Safe with steps in flight: queue.writeBuffer is ordered
 *   after every earlier submit, so a queued step still reads the values it was encoded with.
 */
import type { KernelCall, PreparedKernel } from '../kernels/runner.ts'
import { mergeConstants, prepareKernel } from '../kernels/runner.ts'
import type { Dispatch } from '../kernels/spec.ts'
import { bufferBindings, packUniforms, workgroupCount } from '../kernels/spec.ts'
import { uploadBuffer } from './buffers.ts'
import type { PipelineCache } from './pipeline-cache.ts'

/** Wall-clock milliseconds per stage, accumulated when profiling. */
export type StageTimes = Record<string, number>

/** Options of a recorder: `label` names its encoders; `profile` times every stage alone into it. */
export interface RecorderOptions {
  label?: string
  profile?: StageTimes
}

/** One cached call position of `encode`: its prepared kernel and the uniform bytes last written. */
interface CachedCall {
  kernel: PreparedKernel
  bytes?: Uint8Array
}

/**
 * Runs `make` inside validation / out-of-memory error scopes; when the GPU reports an error,
 * `undo`es the result and throws naming `what` and the error.
 */
export async function createChecked<T>(
  device: GPUDevice,
  what: string,
  make: () => T,
  undo: (t: T) => void,
): Promise<T> {
  device.pushErrorScope('validation')
  device.pushErrorScope('out-of-memory')
  let made: { value: T } | undefined, thrown: unknown
  try {
    made = { value: make() }
  } catch (e) {
    thrown = e
  }
  const [oom, invalid] = await Promise.all([device.popErrorScope(), device.popErrorScope()])
  if (!made) throw thrown
  const err = oom ?? invalid
  if (err) {
    undo(made.value)
    throw new Error(`GPU backend: ${what} failed (${oom ? 'out of GPU memory' : 'validation error'}): ${err.message}`)
  }
  return made.value
}

/** A pending command encoder with the buffers its commands use, plus the cached call positions. */
export class GpuRecorder {
  private enc?: GPUCommandEncoder
  private pass?: GPUComputePassEncoder
  private garbage: GPUBuffer[] = []
  private freeLater: Array<() => void> = []
  /** True while this recorder's error scopes are pushed (from the first command to the next read). */
  private scoped = false
  private readonly cached = new Map<string, CachedCall>()
  private readonly ids = new WeakMap<GPUBuffer, number>()
  private nextId = 0
  private readonly label: string
  private readonly profile?: StageTimes

  constructor(
    private readonly cache: PipelineCache,
    opts: RecorderOptions = {},
  ) {
    this.label = opts.label ?? 'snaptrain'
    this.profile = opts.profile
  }

  private get device(): GPUDevice {
    return this.cache.device
  }

  /** The open encoder, outside any compute pass (for clears and copies). */
  encoder(): GPUCommandEncoder {
    this.openScope()
    this.pass?.end()
    this.pass = undefined
    this.enc ??= this.device.createCommandEncoder({ label: this.label })
    return this.enc
  }

  /** Encodes `call` into the open compute pass (one pass holds many dispatches). */
  run<S>(call: KernelCall<S>): void {
    const k = this.transient(call)
    k.encode(this.openPass())
  }

  /**
   * Encodes `call` with its workgroup count read from `args` (u32 × 3 at byte `offset`, written
   * by an earlier dispatch in this pass: each dispatch is its own usage scope) instead of
   * `call.spec.dispatchSize`.
   */
  runIndirect<S>(call: KernelCall<S>, args: GPUBuffer, offset = 0): void {
    const k = this.transient(call)
    const pass = this.openPass()
    pass.setPipeline(k.pipeline)
    pass.setBindGroup(0, k.bindGroup)
    pass.dispatchWorkgroupsIndirect(args, offset)
  }

  /**
   * Encodes `calls` in order into `pass` (the caller's). Call i with the same kernel, constants
   * and buffers as a cached call i reuses its bind group; its uniform buffer is rewritten only
   * when the packed bytes changed. Zero-workgroup grids are skipped.
   */
  encode(pass: GPUComputePassEncoder, calls: readonly KernelCall<unknown>[]): void {
    calls.forEach((call, i) => {
      const constants = mergeConstants(call.spec.overrides, call.constants)
      const c = this.cachedCall(i, call, constants)
      if (c.kernel.uniform) this.writeUniform(c, packUniforms(call.spec.name, call.spec.uniforms, call.uniforms ?? {}))
      dispatch(pass, c.kernel, call.spec.dispatchSize(call.shape, constants))
    })
  }

  /** Distinct call positions `encode` has cached (a bound on bind groups / uniform buffers alive). */
  get cachedCalls(): number {
    return this.cached.size
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

  /** Submits the pending commands (if any) and frees the per-dispatch buffers. */
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
    const staging = this.device.createBuffer({
      label: `${this.label} readback`,
      size: Math.max(4, total),
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    })
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
      return sources.map(([, n]) => {
        const part = all.slice(off, off + n)
        off += n
        return part
      })
    } finally {
      staging.destroy()
    }
  }

  /** Pops the error scopes opened since the last read; throws the first error they caught. */
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
  get profiling(): boolean {
    return this.profile !== undefined
  }

  /** Frees the cached calls' uniform buffers (bind groups are garbage-collected). */
  destroy(): void {
    this.cached.forEach(c => c.kernel.destroy())
    this.cached.clear()
  }

  /** A kernel prepared for one dispatch, freed after the next submit. */
  private transient<S>(call: KernelCall<S>): PreparedKernel {
    this.openScope()
    const k = prepareKernel(this.cache, call)
    this.freeLater.push(() => k.destroy())
    return k
  }

  private openPass(): GPUComputePassEncoder {
    this.pass ??= this.encoder().beginComputePass({ label: this.label })
    return this.pass
  }

  private cachedCall(i: number, call: KernelCall<unknown>, constants: Record<string, number>): CachedCall {
    const buffers = bufferBindings(call.spec).map(b => {
      const buf = call.buffers[b.name]
      if (!buf) throw new TypeError(`${call.spec.name}: no buffer passed for binding '${b.name}'`)
      return this.id(buf)
    })
    const key = `${i}|${call.spec.name}|${JSON.stringify(constants)}|${buffers.join(',')}`
    let c = this.cached.get(key)
    if (!c) {
      c = { kernel: prepareKernel(this.cache, { ...call, constants }) }
      this.cached.set(key, c)
    }
    return c
  }

  private writeUniform(c: CachedCall, packed: ArrayBuffer): void {
    const bytes = new Uint8Array(packed)
    if (c.bytes && sameBytes(c.bytes, bytes)) return
    this.device.queue.writeBuffer(c.kernel.uniform!, 0, packed)
    c.bytes = bytes
  }

  private id(b: GPUBuffer): number {
    let id = this.ids.get(b)
    if (id === undefined) this.ids.set(b, (id = this.nextId++))
    return id
  }

  /**
   * Validation and out-of-memory errors are silent in WebGPU (the GPU just computes garbage), so
   * every batch of `run`s runs inside error scopes that the next read checks.
   */
  private openScope(): void {
    if (this.scoped) return
    this.device.pushErrorScope('validation')
    this.device.pushErrorScope('out-of-memory')
    this.scoped = true
  }
}

function dispatch(pass: GPUComputePassEncoder, k: PreparedKernel, d: Dispatch): void {
  if (workgroupCount(d) === 0) return
  pass.setPipeline(k.pipeline)
  pass.setBindGroup(0, k.bindGroup)
  pass.dispatchWorkgroups(d[0], d[1], d[2])
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}
