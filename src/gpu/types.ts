/** Shared types of the gpu/ area. */

/** JSON-safe description of a GPUAdapter (from `adapterSummary`). */
export interface AdapterSummary {
  /** GPUAdapterInfo.vendor, e.g. "google" for SwiftShader. */
  vendor: string
  /** GPUAdapterInfo.architecture, e.g. "swiftshader". */
  architecture: string
  /** GPUAdapterInfo.device (often empty for privacy). */
  device: string
  /** GPUAdapterInfo.description (often empty). */
  description: string
  /** True for a software / fallback adapter: timings are CPU timings. */
  isFallbackAdapter: boolean
  /** Supported feature names, sorted. */
  features: string[]
  /** Every supported limit by name (bytes, counts). */
  limits: Record<string, number>
}

/** How a shader binding is declared: `var<uniform>`, `var<storage, read>`, `var<storage, read_write>`. */
export type BindingKind = 'uniform' | 'read-only-storage' | 'storage'

/** One `@group(0) @binding(n)` of a compute shader. */
export interface BindingSpec {
  /** The `@binding(n)` index. */
  binding: number
  /** The WGSL variable name (also the key callers use to pass buffers). */
  name: string
  kind: BindingKind
}

/** What the pipeline cache needs to build a compute pipeline: WGSL, entry point, bindings. */
export interface ComputeProgram {
  /** Kernel name, e.g. "stream_rmw" (also the default entry point). */
  name: string
  /** WGSL source. */
  code: string
  /** Entry-point function name. */
  entryPoint: string
  /** Bindings of group 0, in binding order. */
  bindings: readonly BindingSpec[]
}

/** Pipeline-overridable constants (WGSL `override`), by name. */
export type OverrideConstants = Readonly<Record<string, number>>
