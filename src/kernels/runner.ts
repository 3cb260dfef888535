/**
 * Runs a KernelSpec: builds the uniform buffer and bind group from named buffers, then encodes
 * the dispatch. `prepareKernel` splits setup from encoding so benches can encode one prepared
 * kernel many times without re-creating bind groups.
 */
import type { PipelineCache } from '../gpu/pipeline-cache.ts'
import type { OverrideConstants } from '../gpu/types.ts'
import type { Dispatch, KernelSpec } from './spec.ts'
import { bufferBindings, packUniforms, workgroupCount } from './spec.ts'

/** One invocation of a kernel: shape, buffers by binding name, uniform values, overrides. */
export interface KernelCall<Shape> {
  spec: KernelSpec<Shape>
  shape: Shape
  /** GPU buffers by WGSL binding name (all bindings except 'params'). */
  buffers: Readonly<Record<string, GPUBuffer>>
  /** Values of the spec's uniform fields by name. */
  uniforms?: Readonly<Record<string, number>>
  /** Override constants; missing or undefined ones take `spec.overrides`. */
  constants?: Readonly<Record<string, number | undefined>>
}

/** A kernel ready to encode: pipeline, bind group and grid size. */
export interface PreparedKernel {
  name: string
  pipeline: GPUComputePipeline
  bindGroup: GPUBindGroup
  /** Workgroups [x, y, z]; all-zero grids are skipped by `encode`. */
  dispatch: Dispatch
  /** The 'params' uniform buffer (absent when the kernel has no uniforms); owned by this preparation. */
  uniform?: GPUBuffer
  /** Records setPipeline / setBindGroup / dispatch into an open compute pass. */
  encode(pass: GPUComputePassEncoder): void
  /** Frees the uniform buffer this preparation created. */
  destroy(): void
}

/** Builds pipeline (cached), uniform buffer and bind group for `call`. */
export function prepareKernel<Shape>(cache: PipelineCache, call: KernelCall<Shape>): PreparedKernel {
  const { spec } = call
  const device = cache.device
  const constants = mergeConstants(spec.overrides, call.constants)
  const { pipeline, layout } = cache.get(spec, constants)
  const uniform = spec.uniforms.length ? createUniform(device, spec, call.uniforms ?? {}) : undefined
  const entries: GPUBindGroupEntry[] = bufferBindings(spec).map(b => {
    const buffer = call.buffers[b.name]
    if (!buffer) throw new TypeError(`${spec.name}: no buffer passed for binding '${b.name}'`)
    return { binding: b.binding, resource: { buffer } }
  })
  const params = spec.bindings.find(b => b.name === 'params')
  if (params && uniform) entries.push({ binding: params.binding, resource: { buffer: uniform } })
  const bindGroup = device.createBindGroup({ label: spec.name, layout, entries })
  const dispatch = spec.dispatchSize(call.shape, constants)
  return {
    name: spec.name,
    pipeline,
    bindGroup,
    dispatch,
    uniform,
    encode(pass) {
      if (workgroupCount(dispatch) === 0) return
      pass.setPipeline(pipeline)
      pass.setBindGroup(0, bindGroup)
      pass.dispatchWorkgroups(dispatch[0], dispatch[1], dispatch[2])
    },
    destroy() {
      uniform?.destroy()
    },
  }
}

/** Encodes `call`, submits it and waits for the queue; resolves once the GPU is done. */
export async function runKernel<Shape>(cache: PipelineCache, call: KernelCall<Shape>): Promise<void> {
  const k = prepareKernel(cache, call)
  try {
    await submitAndWait(cache.device, k)
  } finally {
    k.destroy()
  }
}

/** Encodes one dispatch of a prepared kernel in its own pass, submits it and waits for the queue. */
export async function submitAndWait(device: GPUDevice, k: PreparedKernel): Promise<void> {
  const enc = device.createCommandEncoder({ label: k.name })
  const pass = enc.beginComputePass({ label: k.name })
  k.encode(pass)
  pass.end()
  device.queue.submit([enc.finish()])
  await device.queue.onSubmittedWorkDone()
}

function createUniform<Shape>(
  device: GPUDevice,
  spec: KernelSpec<Shape>,
  values: Readonly<Record<string, number>>,
): GPUBuffer {
  const bytes = packUniforms(spec.name, spec.uniforms, values)
  const buf = device.createBuffer({
    label: `${spec.name} params`,
    size: bytes.byteLength,
    usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
  })
  device.queue.writeBuffer(buf, 0, bytes)
  return buf
}

/** `defaults` overlaid with the defined entries of `given` (callers pass `{ WG: undefined }` freely). */
export function mergeConstants(
  defaults: OverrideConstants,
  given: Readonly<Record<string, number | undefined>> = {},
): Record<string, number> {
  const out: Record<string, number> = { ...defaults }
  for (const [k, v] of Object.entries(given)) {
    if (v === undefined) continue
    if (!Number.isFinite(v)) throw new RangeError(`override constant ${k} must be a finite number, got ${v}`)
    out[k] = v
  }
  return out
}
