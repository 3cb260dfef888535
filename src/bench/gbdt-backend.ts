/**
 * The backend the `gbdt` suite trains with: the WebGPU backend (src/models/gbdt/gpu-backend.ts)
 * when that module is present in this build, else the CPU reference backend — and the rows say
 * which. The optional import goes through import.meta.glob, which yields {} for a missing file.
 */
import type { BackendFactory } from '../models/gbdt/backend.ts'
import { createCpuBackend } from '../models/gbdt/cpu-backend.ts'
import type { PipelineCache } from '../gpu/pipeline-cache.ts'

/** A named backend factory. */
export interface NamedBackend { name: 'gpu' | 'cpu'; factory: BackendFactory }

/** The part of gpu-backend.ts the suite uses (`profile`: submit + await each stage, ms added per stage). */
type GpuModule = { createGpuBackend: (device: GPUDevice, cache?: PipelineCache, opts?: { profile?: Record<string, number> }) => BackendFactory }

const GPU_MODULES = import.meta.glob<GpuModule>('../models/gbdt/gpu-backend.ts')

/**
 * The GPU backend on `cache.device` when available, else the CPU reference backend. With
 * `profile`, the GPU backend submits and awaits every stage alone (slower, but each backend call
 * then covers its own GPU work) and adds its own per-stage ms there.
 */
export async function gbdtBackend(cache: PipelineCache, profile?: Record<string, number>): Promise<NamedBackend> {
  const load = Object.values(GPU_MODULES)[0]
  if (!load) return { name: 'cpu', factory: createCpuBackend }
  const mod = await load()
  return { name: 'gpu', factory: mod.createGpuBackend(cache.device, cache, { profile }) }
}
