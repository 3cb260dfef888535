/**
 * `--ranks R` for every family, coordinator side: starts R rank workers (src/ranks), each running
 * the same training run (rank-job.ts: src/run/pipeline.ts with its RankContext — its own device,
 * its share of the rows, collectives every step or round), checks the ranks agree, and returns
 * rank 0's result with the ranks and per-collective totals in its summary and manifest.
 */
import { runRanks, type RankGroupOptions } from '../ranks/index.ts'
import { combineStats } from '../ranks/stats.ts'
import { rankCount, type RunResult, type TrainConfig, type TrainProgress } from './config.ts'
import { unitCacheSettings } from '../data/unit-cache.ts'

/** What each rank returns: a digest of its model (ranks that must agree give one) and, on rank 0, the result. */
export interface RankRunResult {
  digest?: number
  result?: RunResult
  /** Rows per second of this rank's loop (summed over the ranks). */
  samplesPerSecond?: number
}

/** The rank job's name (registered from above, src/models/rank-jobs.ts). */
export const TRAIN_RANK_JOB = 'train'

/** Runs `config` on R rank workers; same result shape as one rank, plus `ranks`, `collectives`, `collective_transport`. */
export async function runOnRanks(
  config: TrainConfig,
  onProgress: (p: TrainProgress) => void = () => {},
  opts: RankGroupOptions = {},
): Promise<RunResult> {
  const world = rankCount(config)
  onProgress({ kind: 'stage', message: `starting ${world} rank workers` })
  // A page API credential callback cannot cross to a worker: ranks sign with the carried credentials.
  const cloneable =
    config.access?.kind === 's3' ? { ...config, access: { ...config.access, refresh: undefined } } : config
  const payload = { ...cloneable, unitCache: unitCacheSettings() }
  const run = await runRanks<RankRunResult, TrainConfig>(world, TRAIN_RANK_JOB, payload, {
    ...opts,
    onProgress: (rank, ev) => {
      if (rank === 0) onProgress(ev as TrainProgress)
    },
  })
  const d0 = run.results[0]?.digest
  run.results.forEach((r, rank) => {
    if (r.digest !== d0)
      throw new Error(
        `ranks: rank ${rank}'s model differs from rank 0's (digest ${r.digest} vs ${d0}): the ranks went out of step`,
      )
  })
  const res = run.results[0]?.result
  if (!res) throw new Error('ranks: rank 0 returned no result')
  const extra = { ranks: world, collectives: combineStats(run.stats), collective_transport: run.transport }
  const summary: RunResult['summary'] & { samples_per_second?: number } = { ...res.summary, ...extra }
  if (run.results.every(r => r.samplesPerSecond !== undefined)) {
    const perSecond = run.results.reduce((s, r) => s + r.samplesPerSecond!, 0)
    Object.assign(summary, { samples_per_second: perSecond, rows_per_second: perSecond })
  }
  return { ...res, summary, manifest: { ...res.manifest, ...extra } }
}
