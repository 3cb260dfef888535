/**
 * Jobs a rank worker can run, by name: each entry lazily imports a module with a RankJob, so a
 * rank loads only the code of the job it runs. Add a model's rank job here (one line).
 */
import type { RankJob } from './types.ts'

/** Registered rank jobs. */
export const RANK_JOBS: Record<string, () => Promise<RankJob>> = {
  /** Collective self-test (src/dist/selftest.ts): allreduce/allgather/broadcast/barrier on seeded arrays. */
  collectives: async () => (await import('./selftest.ts')).collectivesJob as RankJob,
  /** GBDT across ranks (src/models/gbdt/dist-rank.ts). */
  gbdt: async () => (await import('../models/gbdt/dist-rank.ts')).gbdtRankJob as RankJob,
  /** Recommender across ranks (src/models/recsys/dist-rank.ts). */
  recsys: async () => (await import('../models/recsys/dist-rank.ts')).recsysRankJob as RankJob,
  /** Recommender steps on given batches, for the worker identity test (src/models/recsys/dist-steps.ts). */
  'recsys-steps': async () => (await import('../models/recsys/dist-steps.ts')).recsysStepsJob as RankJob,
}

/** The job named `name`; RangeError listing the known names otherwise. */
export async function loadRankJob(name: string): Promise<RankJob> {
  const load = RANK_JOBS[name]
  if (!load) throw new RangeError(`rank job "${name}": unknown (known: ${Object.keys(RANK_JOBS).join(', ')})`)
  return load()
}
