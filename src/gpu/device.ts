/**
 * Adapter and device acquisition: capability asserts (STYLE.md §15), a device with the
 * adapter's large limits, and a plain-data adapter summary for the page and bench rows.
 * Core library: touches only `navigator.gpu`, never the DOM.
 */
import type { AdapterSummary } from './types.ts'

/** Chromium switches that expose WebGPU on Linux / headless (also in src/cli/browser.ts). */
const FLAGS_HINT = '--enable-unsafe-webgpu --enable-unsafe-swiftshader --use-angle=swiftshader'

/**
 * Limits we ask for at the adapter's maximum: defaults (128 MiB bindings, 16 KiB workgroup
 * memory, 256 invocations) are far below what real GPUs offer and would cap bench sizes.
 */
export const REQUESTED_LIMITS = [
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupSizeY',
  'maxComputeWorkgroupsPerDimension',
  'maxStorageBuffersPerShaderStage',
] as const

/** Throws a message that says how to enable WebGPU when `gpu` (navigator.gpu) is absent. */
export function assertGpu(gpu: GPU | undefined): asserts gpu is GPU {
  if (!gpu) {
    throw new Error(
      'WebGPU unavailable: navigator.gpu is undefined (needs a secure context and a ' +
        `WebGPU browser; on Linux start Chromium with ${FLAGS_HINT})`,
    )
  }
}

/** Throws when `requestAdapter()` returned null (no usable GPU or software adapter). */
export function assertAdapter(a: GPUAdapter | null | undefined): asserts a is GPUAdapter {
  if (!a) {
    throw new Error(
      'WebGPU unavailable: navigator.gpu.requestAdapter() returned no adapter ' +
        `(no GPU driver and no software fallback; on Linux start Chromium with ${FLAGS_HINT})`,
    )
  }
}

/** Options for `requestDevice`. */
export interface DeviceOptions {
  /** Adapter preference passed to `requestAdapter`. */
  powerPreference?: GPUPowerPreference
  /** Optional features to enable when the adapter has them (missing ones are skipped). */
  optionalFeatures?: GPUFeatureName[]
  /** `navigator.gpu` substitute, for tests. */
  gpu?: GPU
}

/** A device plus the adapter it came from. */
export interface DeviceHandle {
  adapter: GPUAdapter
  device: GPUDevice
}

/**
 * Requests an adapter and a device with REQUESTED_LIMITS raised to the adapter's maximum and
 * 'timestamp-query' (plus `optionalFeatures`) enabled where supported.
 */
export async function requestDevice(opts: DeviceOptions = {}): Promise<DeviceHandle> {
  const gpu = opts.gpu ?? (globalThis.navigator as Navigator | undefined)?.gpu
  assertGpu(gpu)
  const adapter = await gpu.requestAdapter({ powerPreference: opts.powerPreference })
  assertAdapter(adapter)
  const wanted: GPUFeatureName[] = ['timestamp-query', ...(opts.optionalFeatures ?? [])]
  const requiredFeatures = wanted.filter(f => adapter.features.has(f))
  const device = await adapter.requestDevice({ requiredFeatures, requiredLimits: maxLimits(adapter) })
  return { adapter, device }
}

/** The adapter's values for REQUESTED_LIMITS (those it reports). */
export function maxLimits(adapter: GPUAdapter): Record<string, number> {
  const out: Record<string, number> = {}
  const limits = adapter.limits as unknown as Record<string, number | undefined>
  for (const name of REQUESTED_LIMITS) {
    const v = limits[name]
    if (typeof v === 'number') out[name] = v
  }
  return out
}

/** Plain-data description of `adapter` (JSON-safe: shown on the page, stored with bench rows). */
export function adapterSummary(adapter: GPUAdapter): AdapterSummary {
  const info = adapter.info
  return {
    vendor: info?.vendor ?? '',
    architecture: info?.architecture ?? '',
    device: info?.device ?? '',
    description: info?.description ?? '',
    isFallbackAdapter: Boolean(
      (info as { isFallbackAdapter?: boolean } | undefined)?.isFallbackAdapter ??
        (adapter as { isFallbackAdapter?: boolean }).isFallbackAdapter,
    ),
    features: [...adapter.features].map(String).sort(),
    limits: allLimits(adapter.limits),
  }
}

/**
 * True for software adapters (SwiftShader, llvmpipe, a fallback adapter), and when nothing is
 * known of the adapter: they run on the CPU's threads, so devices share them and kernels that
 * suit GPUs (workgroup tiling, workgroup atomics) can be slower there than plain ones.
 */
export function isSoftware(
  adapter?: Pick<AdapterSummary, 'vendor' | 'architecture' | 'description' | 'isFallbackAdapter'>,
): boolean {
  return (
    !adapter ||
    adapter.isFallbackAdapter ||
    /swiftshader|llvmpipe|software/i.test(`${adapter.vendor} ${adapter.architecture} ${adapter.description}`)
  )
}

/** Short one-line label of a summary, e.g. "google swiftshader (fallback)". */
export function adapterLabel(s: AdapterSummary): string {
  const name = [s.vendor, s.architecture, s.device].filter(Boolean).join(' ') || s.description || 'unknown adapter'
  return s.isFallbackAdapter ? `${name} (fallback)` : name
}

function allLimits(limits: GPUSupportedLimits): Record<string, number> {
  const out: Record<string, number> = {}
  // GPUSupportedLimits exposes its values as prototype getters, so Object.keys sees nothing.
  for (const key in limits) {
    const v = (limits as unknown as Record<string, unknown>)[key]
    if (typeof v === 'number') out[key] = v
  }
  return out
}
