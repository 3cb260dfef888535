/**
 * The training run inside one rank worker (job 'train', registered in src/models/rank-jobs.ts):
 * the pipeline with this rank's context; loader workers off (a rank is already a worker, and R
 * ranks share the cores). Rank 0 returns the result; every rank returns its model's digest when
 * the family's ranks must agree byte for byte (GBDT), and its loop's rows per second.
 */
import type { RankJob } from '../ranks/types.ts'
import { hashString } from '../util/hash.ts'
import type { TrainConfig } from './config.ts'
import { runTraining } from './pipeline.ts'
import { configureUnitCache } from '../data/unit-cache.ts'
import type { RankRunResult } from './ranks.ts'

export const trainRankJob: RankJob<TrainConfig, RankRunResult> = {
  async run(ctx, config) {
    if (config.unitCache) configureUnitCache(config.unitCache) // this worker's own cache, as the page's
    const result = await runTraining(
      { ...config, shard: { rank: ctx.rank, worldSize: ctx.world }, workers: 0 },
      p => ctx.progress(p),
      // The ranks' agreed stop (stop-vote.ts): each rank's StopRequest fires at the same round or step.
      { rank: ctx, stop: ctx.stop.signal },
    )
    const s = result.summary as { samples_per_second?: number }
    // A recommender checkpoint holds this rank's own cursor: only GBDT models are equal across ranks.
    const digest = typeof result.model === 'string' ? hashString(result.model) : undefined
    return {
      digest,
      samplesPerSecond: s.samples_per_second,
      result: ctx.rank === 0 ? result : undefined,
    }
  },
}
