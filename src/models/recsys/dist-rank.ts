/**
 * The recommender's rank job (registered as 'recsys' in src/models/rank-jobs.ts): one rank of a
 * `--ranks R` run inside a rank worker. It trains exactly as a single-rank run does
 * (train-run.ts) except that it reads its own share of every epoch and combines gradients with
 * the other ranks every step (dist-backend.ts). Rank 0 returns the result; the others return
 * it without the model bytes (the weights are the same on every rank).
 */
import type { RankContext, RankJob } from '../../ranks/types.ts'
import type { TrainProgress } from '../gbdt/train-run.ts'
import { runRecsysTraining, type RecsysTrainConfig, type RecsysTrainResult } from './train-run.ts'

/** Runs one rank; loader workers are off (a rank is already a worker; R ranks share the cores). */
async function runRank(ctx: RankContext, config: RecsysTrainConfig): Promise<RecsysTrainResult> {
  const shard = { rank: ctx.rank, worldSize: ctx.world }
  const result = await runRecsysTraining({ ...config, ranks: ctx.world, shard, workers: 0 }, (p: TrainProgress) => ctx.progress(p), ctx)
  return ctx.rank === 0 ? result : { ...result, model: new Uint8Array(0) }
}

/** The job the rank workers run. */
export const recsysRankJob: RankJob<RecsysTrainConfig, RecsysTrainResult> = { run: runRank }
