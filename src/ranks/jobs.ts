/**
 * Jobs a rank worker can run, by name. The rank layer knows only its own collective self-test;
 * model families register their jobs from above (src/models/rank-jobs.ts, imported by the rank
 * worker's entry), each as a lazy import, so a rank loads only the code of the job it runs and
 * nothing here imports a model.
 */
import type { RankJob } from './types.ts'

const jobs = new Map<string, () => Promise<RankJob>>([
  /** Collective self-test (src/ranks/selftest.ts): allreduce/allgather/broadcast/barrier on seeded arrays. */
  ['collectives', async () => (await import('./selftest.ts')).collectivesJob as RankJob],
])

/** Registers (or replaces) the job `name`; `load` imports its module when a rank first runs it. */
export function registerRankJob(name: string, load: () => Promise<RankJob>): void {
  jobs.set(name, load)
}

/** The job named `name`; RangeError listing the known names otherwise. */
export async function loadRankJob(name: string): Promise<RankJob> {
  const load = jobs.get(name)
  if (!load) throw new RangeError(`rank job "${name}": unknown (known: ${[...jobs.keys()].join(', ')})`)
  return load()
}
