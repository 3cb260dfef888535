/**
 * The model families' rank jobs, registered with the rank layer from above (it imports no model).
 * Imported for its effect by the rank worker's entry, before the rank service starts.
 */
import { registerRankJob } from '../ranks/jobs.ts'
import type { RankJob } from '../ranks/types.ts'

/** GBDT on in-memory data across ranks, for tests and benches (src/models/gbdt/ranks.ts). */
registerRankJob('gbdt', async () => (await import('./gbdt/ranks.ts')).gbdtRankJob as RankJob)
/** Recommender steps on given batches, for the worker identity test (src/models/recsys/dist-steps.ts). */
registerRankJob('recsys-steps', async () => (await import('./recsys/dist-steps.ts')).recsysStepsJob as RankJob)
/** The training run of every family on one rank (src/run/rank-job.ts). */
registerRankJob('train', async () => (await import('../run/rank-job.ts')).trainRankJob as RankJob)
