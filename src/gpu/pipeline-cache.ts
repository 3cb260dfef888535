/**
 * Compute pipelines cached per device by (program, override constants): compiling WGSL is the
 * slow part of a first dispatch, and benches re-run the same kernel with a few workgroup sizes.
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

  constructor(device: GPUDevice) {
    this.device = device
  }

  /** Number of distinct pipelines compiled so far. */
  get size(): number {
    return this.pipelines.size
  }

  /** The pipeline for `program` with `constants` (compiled on first use). */
  get(program: ComputeProgram, constants: OverrideConstants = {}): CachedPipeline {
    const key = pipelineKey(program, constants)
    let hit = this.pipelines.get(key)
    if (!hit) {
      hit = this.create(program, constants)
      this.pipelines.set(key, hit)
    }
    return hit
  }

  private create(program: ComputeProgram, constants: OverrideConstants): CachedPipeline {
    const layout = this.device.createBindGroupLayout({
      label: `${program.name} bindings`,
      entries: program.bindings.map(b => ({
        binding: b.binding,
        visibility: GPUShaderStage.COMPUTE,
        buffer: { type: BUFFER_TYPE[b.kind] },
      })),
    })
    // An explicit layout, not 'auto': 'auto' drops bindings the compiler finds unused, which
    // would make bind groups built from the spec fail validation.
    const pipeline = this.device.createComputePipeline({
      label: program.name,
      layout: this.device.createPipelineLayout({ bindGroupLayouts: [layout] }),
      compute: { module: this.module(program), entryPoint: program.entryPoint, constants: { ...constants } },
    })
    return { pipeline, layout }
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
