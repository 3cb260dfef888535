/**
 * The backend the `gbdt` suite trains with: the WebGPU backend (src/models/gbdt/gpu-backend.ts)
 * when that module is present in this build, else the CPU reference backend — and the rows say
 * which. The optional import goes through import.meta.glob, which yields {} for a missing file.
 */
import type { BackendFactory } from '../models/gbdt/backend.ts'
import { createCpuBackend } from '../models/gbdt/cpu-backend.ts'

/** A named backend factory. */
export interface NamedBackend { name: 'gpu' | 'cpu'; factory: BackendFactory }

type GpuModule = { createGpuBackend: (device: GPUDevice) => BackendFactory }

const GPU_MODULES = import.meta.glob<GpuModule>('../models/gbdt/gpu-backend.ts')

/** The GPU backend on `device` when available, else the CPU reference backend. */
export async function gbdtBackend(device: GPUDevice): Promise<NamedBackend> {
  const load = Object.values(GPU_MODULES)[0]
  if (!load) return { name: 'cpu', factory: createCpuBackend }
  const mod = await load()
  return { name: 'gpu', factory: mod.createGpuBackend(device) }
}
