/**
 * The model families' rank jobs, registered with the rank layer from above (it imports no model).
 * Imported for its effect by the rank worker's entry, before the rank service starts.
 */
import { registerRankJob } from '../ranks/jobs.ts'
import type { RankJob } from '../ranks/types.ts'

/** GBDT across ranks (src/models/gbdt/dist-rank.ts). */
registerRankJob('gbdt', async () => (await import('./gbdt/dist-rank.ts')).gbdtRankJob as RankJob)
/** Recommender across ranks (src/models/recsys/dist-rank.ts). */
registerRankJob('recsys', async () => (await import('./recsys/dist-rank.ts')).recsysRankJob as RankJob)
/** Recommender steps on given batches, for the worker identity test (src/models/recsys/dist-steps.ts). */
registerRankJob('recsys-steps', async () => (await import('./recsys/dist-steps.ts')).recsysStepsJob as RankJob)
