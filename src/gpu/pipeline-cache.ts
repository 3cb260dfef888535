/**
 * Compute pipelines cached per device by (program, override constants): compiling WGSL is the
 * slow part of a first dispatch, and benches re-run the same kernel with a few workgroup sizes.
 * `prepare` compiles ahead, off the page's thread (a run's pipelines while its table loads,
 * run/pipeline.ts); `get` then finds them compiled.
 */
import { fnv1a } from '../util/hash.ts'
import type { BindingKind, ComputeProgram, OverrideConstants } from './types.ts'

/** A compiled pipeline and the explicit bind group layout of its group 0. */
export interface CachedPipeline {
  pipeline: GPUComputePipeline
  layout: GPUBindGroupLayout
}

/** Cache of compute pipelines for one device. */
export class PipelineCache {
  readonly device: GPUDevice
  private readonly pipelines = new Map<string, CachedPipeline>()
  private readonly modules = new Map<string, GPUShaderModule>()
  /** Compilations `prepare` started that have not ended, by key. */
  private readonly compiling = new Map<string, Promise<void>>()

  constructor(device: GPUDevice) {
    this.device = device
  }

  /** Number of distinct pipelines compiled so far. */
  get size(): number {
    return this.pipelines.size
  }

  /** Keys (pipelineKey) of the pipelines compiled so far, in the order they were. */
  keys(): string[] {
    return [...this.pipelines.keys()]
  }

  /** Number of `prepare` compilations still running. */
  get pending(): number {
    return this.compiling.size
  }

  /** The pipeline for `program` with `constants` (compiled on first use). */
  get(program: ComputeProgram, constants: OverrideConstants = {}): CachedPipeline {
    const key = pipelineKey(program, constants)
    let hit = this.pipelines.get(key)
    if (!hit) {
      const layout = this.bindGroupLayout(program)
      hit = { pipeline: this.device.createComputePipeline(this.descriptor(program, constants, layout)), layout }
      this.pipelines.set(key, hit)
    }
    return hit
  }

  /**
   * Starts compiling the pipeline of `program` with `constants` off the page's thread
   * (createComputePipelineAsync) so a later `get` finds it compiled; resolves once it is (at once
   * when it already is). Never rejects: a failed compilation is forgotten, and `get` compiles it
   * again as it always did, where the device reports the error. A `get` before this resolved
   * compiles a second copy, so callers await it first.
   */
  prepare(program: ComputeProgram, constants: OverrideConstants = {}): Promise<void> {
    const key = pipelineKey(program, constants)
    if (this.pipelines.has(key)) return Promise.resolve()
    let running = this.compiling.get(key)
    if (!running) {
      const layout = this.bindGroupLayout(program)
      running = this.device
        .createComputePipelineAsync(this.descriptor(program, constants, layout))
        .then(
          pipeline => {
            if (!this.pipelines.has(key)) this.pipelines.set(key, { pipeline, layout })
          },
          () => {},
        )
        .finally(() => this.compiling.delete(key))
      this.compiling.set(key, running)
    }
    return running
  }

  private bindGroupLayout(program: ComputeProgram): GPUBindGroupLayout {
    return this.device.createBindGroupLayout({
      label: `${program.name} bindings`,
      entries: program.bindings.map(b => ({
        binding: b.binding,
        visibility: GPUShaderStage.COMPUTE,
        buffer: { type: BUFFER_TYPE[b.kind] },
      })),
    })
  }

  private descriptor(
    program: ComputeProgram,
    constants: OverrideConstants,
    layout: GPUBindGroupLayout,
  ): GPUComputePipelineDescriptor {
    // An explicit layout, not 'auto': 'auto' drops bindings the compiler finds unused, which
    // would make bind groups built from the spec fail validation.
    return {
      label: program.name,
      layout: this.device.createPipelineLayout({ bindGroupLayouts: [layout] }),
      compute: { module: this.module(program), entryPoint: program.entryPoint, constants: { ...constants } },
    }
  }

  private module(program: ComputeProgram): GPUShaderModule {
    const key = `${program.name}#${hashString(program.code)}`
    let m = this.modules.get(key)
    if (!m) {
      m = this.device.createShaderModule({ label: program.name, code: program.code })
      this.modules.set(key, m)
    }
    return m
  }
}

const BUFFER_TYPE: Record<BindingKind, GPUBufferBindingType> = {
  uniform: 'uniform',
  'read-only-storage': 'read-only-storage',
  storage: 'storage',
}

/**
 * Cache key: name, entry point, a hash of the WGSL (templated variants share a name) and the
 * constants sorted by name (so `{a, b}` and `{b, a}` hit the same pipeline).
 */
export function pipelineKey(program: ComputeProgram, constants: OverrideConstants = {}): string {
  const c = Object.keys(constants)
    .sort()
    .map(k => `${k}=${constants[k]}`)
    .join(',')
  return `${program.name}:${program.entryPoint}#${hashString(program.code)}{${c}}`
}

/** FNV-1a 32-bit hash of `s` (util/hash.ts `fnv1a`), as 8 hex digits. */
export function hashString(s: string): string {
  return fnv1a(s).toString(16).padStart(8, '0')
}
