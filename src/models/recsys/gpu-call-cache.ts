/**
 * Bind groups and uniform buffers of the recommender's step, kept across steps. A training
 * step issues the same ~30 kernel calls over the same buffers every time;
 * only uniform values (n, U, lr, Adam's t) change. So each call position keeps its pipeline,
 * bind group and uniform buffer, and a step only rewrites the uniform bytes that differ.
 * Safe with steps in flight: queue.writeBuffer is ordered after every earlier submit, so a
 * queued step still reads the values it was encoded with.
 */
import type { PipelineCache } from '../../gpu/pipeline-cache.ts'
import type { KernelCall } from '../../kernels/runner.ts'
import { mergeConstants } from '../../kernels/runner.ts'
import { bufferBindings, packUniforms, workgroupCount } from '../../kernels/spec.ts'

/** One cached call position: everything but the grid size and the uniform values. */
interface Entry {
  pipeline: GPUComputePipeline
  bindGroup: GPUBindGroup
  uniform?: GPUBuffer
  /** Bytes last written to `uniform`. */
  bytes?: Uint8Array
}

/** Kernel calls → encoded dispatches, reusing bind groups and uniform buffers. */
export class GpuCallCache {
  private readonly entries = new Map<string, Entry>()
  private readonly ids = new WeakMap<GPUBuffer, number>()
  private nextId = 0

  constructor(private readonly cache: PipelineCache) {}

  /** Distinct call positions cached so far (a bound on bind groups / uniform buffers alive). */
  get size(): number {
    return this.entries.size
  }

  /**
   * Encodes `calls` in order into `pass`. Call i with the same kernel, constants and buffers
   * as a cached call i reuses its bind group; its uniform buffer is rewritten only when the
   * packed bytes changed. Zero-workgroup grids are skipped (as runner.ts's encode does).
   */
  encode(pass: GPUComputePassEncoder, calls: readonly KernelCall<unknown>[]): void {
    calls.forEach((call, i) => {
      const constants = mergeConstants(call.spec.overrides, call.constants)
      const e = this.entry(i, call, constants)
      if (e.uniform) this.writeUniform(e, packUniforms(call.spec.name, call.spec.uniforms, call.uniforms ?? {}))
      const d = call.spec.dispatchSize(call.shape, constants)
      if (workgroupCount(d) === 0) return
      pass.setPipeline(e.pipeline)
      pass.setBindGroup(0, e.bindGroup)
      pass.dispatchWorkgroups(d[0], d[1], d[2])
    })
  }

  /** Frees every uniform buffer (bind groups are garbage-collected). */
  destroy(): void {
    this.entries.forEach(e => e.uniform?.destroy())
    this.entries.clear()
  }

  private entry(i: number, call: KernelCall<unknown>, constants: Record<string, number>): Entry {
    const buffers = bufferBindings(call.spec).map(b => {
      const buf = call.buffers[b.name]
      if (!buf) throw new TypeError(`${call.spec.name}: no buffer passed for binding '${b.name}'`)
      return buf
    })
    const key = `${i}|${call.spec.name}|${JSON.stringify(constants)}|${buffers.map(b => this.id(b)).join(',')}`
    let e = this.entries.get(key)
    if (!e) {
      e = this.create(call, constants, buffers)
      this.entries.set(key, e)
    }
    return e
  }

  private create(call: KernelCall<unknown>, constants: Record<string, number>, buffers: GPUBuffer[]): Entry {
    const { spec } = call
    const device = this.cache.device
    const { pipeline, layout } = this.cache.get(spec, constants)
    const entries: GPUBindGroupEntry[] = bufferBindings(spec).map((b, k) => ({ binding: b.binding, resource: { buffer: buffers[k] } }))
    const params = spec.bindings.find(b => b.name === 'params')
    let uniform: GPUBuffer | undefined
    if (params && spec.uniforms.length) {
      const size = Math.max(16, Math.ceil((spec.uniforms.length * 4) / 16) * 16)
      uniform = device.createBuffer({ label: `${spec.name} params (cached)`, size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST })
      entries.push({ binding: params.binding, resource: { buffer: uniform } })
    }
    return { pipeline, bindGroup: device.createBindGroup({ label: spec.name, layout, entries }), uniform }
  }

  private writeUniform(e: Entry, packed: ArrayBuffer): void {
    const bytes = new Uint8Array(packed)
    if (e.bytes && sameBytes(e.bytes, bytes)) return
    this.cache.device.queue.writeBuffer(e.uniform!, 0, packed)
    e.bytes = bytes
  }

  private id(b: GPUBuffer): number {
    let id = this.ids.get(b)
    if (id === undefined) this.ids.set(b, id = this.nextId++)
    return id
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}
