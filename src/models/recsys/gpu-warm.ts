/**
 * The GPU model's pipelines compiled ahead of its first step (PipelineCache.prepare), while the
 * run's rows load (run/pipeline.ts). Which kernels a model runs follows from its structure (sparse
 * and bag features or none, the cross network, the embedding optimizer, the device's matmul
 * variant), not from its sizes, so the calls of one step, one evaluation and the divergence scan
 * (gpu-step.ts, model-gpu.ts) are built over buffers of a one-row model of that structure, and
 * their pipelines prepared; nothing is dispatched. The table's statistics, which size the real
 * model, are not needed.
 */
import type { PipelineCache } from '../../gpu/pipeline-cache.ts'
import { nonfiniteCountCall } from '../../kernels/recsys/nonfinite_count.ts'
import { mergeConstants } from '../../kernels/runner.ts'
import type { ColumnKinds } from './features.ts'
import { createModelBuffers, destroyModelBuffers } from './gpu-buffers.ts'
import { forwardCalls, trainCalls } from './gpu-step.ts'
import { modelShapeOf } from './layout.ts'
import { defaultMatmul } from './model-gpu.ts'
import type { RecsysParams } from './types.ts'

/**
 * Compiles into `cache` the pipelines of a model of `kinds`' features under `params` (the
 * columns classified from the table's schema); resolves when they are compiled.
 */
export async function warmGpuModel(
  cache: PipelineCache,
  kinds: Pick<ColumnKinds, 'sparse' | 'dense' | 'lists' | 'bags'>,
  params: RecsysParams,
): Promise<void> {
  const shape = modelShapeOf(
    {
      sparse: kinds.sparse,
      bags: kinds.bags.map(() => ({ pooling: 'mean' as const })),
      totalRows: Math.max(1, kinds.sparse.length + kinds.bags.length),
      denseInputs: kinds.dense.length + kinds.lists.length,
    },
    params,
  )
  const b = createModelBuffers(cache.device, shape, params, 1)
  const input = b.inputs[0],
    mm = defaultMatmul(cache.device)
  const calls = [
    ...forwardCalls(shape, b, input, 1, mm),
    ...trainCalls(shape, params, b, input, 1, 1, 1, { dense: 0, embedding: 0 }, mm, shape.bags ?? 0),
    nonfiniteCountCall({ inp: b.emb, out: b.loss }, { n: 1, slot: 0 }),
  ]
  const compiled = calls.map(c => cache.prepare(c.spec, mergeConstants(c.spec.overrides, c.constants)))
  destroyModelBuffers(b)
  await Promise.all(compiled)
}
