/**
 * The backend the `gbdt` suite trains with: the product's WebGPU backend
 * (src/models/gbdt/gpu-backend.ts), made as `train` makes it (src/models/gbdt/train-run.ts: default
 * options, so the same histogram kernel choice), on the suite's device and pipeline cache.
 */
import type { BackendFactory } from '../src/models/gbdt/backend.ts'
import { createGpuBackend } from '../src/models/gbdt/gpu-backend.ts'
import type { StageTimes } from '../src/gpu/recorder.ts'
import type { PipelineCache } from '../src/gpu/pipeline-cache.ts'

/** A named backend factory (the name goes into the rows). */
export interface NamedBackend {
  name: 'gpu'
  factory: BackendFactory
}

/**
 * The GPU backend on `cache.device`. With `profile` (the backend's own timing hook), it submits and
 * awaits every stage alone (slower, but each backend call then covers its own GPU work) and adds
 * its own per-stage ms there.
 */
export function gbdtBackend(cache: PipelineCache, profile?: StageTimes): NamedBackend {
  return { name: 'gpu', factory: createGpuBackend(cache.device, cache, profile ? { profile } : {}) }
}
