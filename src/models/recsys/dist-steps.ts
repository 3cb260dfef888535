/**
 * A rank job for checking the recommender across real rank workers (registered as
 * 'recsys-steps' in src/models/rank-jobs.ts): every rank builds a GpuModel on its own device from the
 * same state, takes its contiguous slice of each given global batch (ranks.ts
 * splitBatch) and runs rankStep — gradients, combination over the workers' collectives,
 * update. Rank 0 returns the final state, so a test can compare it with one model trained on
 * the whole global batches. B = per-rank batch.
 */
import type { RankContext, RankJob } from '../../ranks/types.ts'
import type { ModelState } from './backend.ts'
import { rankStep, splitBatch } from './ranks.ts'
import type { ModelBatch, ModelShape, RecsysParams, StepLr } from './types.ts'

/** What every rank gets (structured-cloneable). */
export interface RecsysStepsConfig {
  shape: ModelShape
  params: RecsysParams
  state: ModelState
  /** Global batches, each of up to R × B rows. */
  batches: ModelBatch[]
  /** lr of each step. */
  lrs: StepLr[]
}

/** Rank 0: the final state and the global mean loss of each step; other ranks: losses only. */
export interface RecsysStepsResult {
  state?: ModelState
  losses: number[]
}

async function runSteps(ctx: RankContext, c: RecsysStepsConfig): Promise<RecsysStepsResult> {
  const [{ PipelineCache }, { GpuModel }] = await Promise.all([
    import('../../gpu/pipeline-cache.ts'),
    import('./model-gpu.ts'),
  ])
  const model = await GpuModel.create(new PipelineCache(await ctx.device()), c.shape, c.params, c.state)
  try {
    const losses: number[] = []
    for (const [k, batch] of c.batches.entries()) {
      const mine = splitBatch(batch, ctx.world, c.shape)[ctx.rank]
      losses.push(await rankStep(model, ctx.coll, mine, c.lrs[k]))
    }
    return { state: ctx.rank === 0 ? await model.exportState() : undefined, losses }
  } finally {
    model.destroy()
  }
}

/** The job. */
export const recsysStepsJob: RankJob<RecsysStepsConfig, RecsysStepsResult> = { run: runSteps }
