/**
 * GBDT on in-memory data across ranks (tests, benches): starts R rank workers (src/ranks), runs
 * the 'gbdt' rank job on each and checks every rank built the same model. Table runs with
 * `--ranks` go through the one run (src/run/ranks.ts). R = ranks.
 */
import { runRanks, type RankGroupOptions, type RankRun } from '../../ranks/index.ts'
import { combineStats } from '../../ranks/stats.ts'
import type { CollectiveStats } from '../../ranks/types.ts'
import type { GbdtRankConfig, GbdtRankResult } from './dist-rank.ts'
import type { TrainData } from './driver.ts'

/**
 * Trains on in-memory `data` over `world` rank workers (tests, benches): rank 0's XGBoost JSON
 * model, the collective totals and the run.
 */
export async function trainOnRanks(data: TrainData, params: Record<string, unknown>, world: number,
  opts: RankGroupOptions & Pick<GbdtRankConfig, 'backend' | 'histogramKernel'> = {}): Promise<{ model: string; collectives: CollectiveStats[]; run: RankRun<GbdtRankResult> }> {
  const { backend, histogramKernel, ...groupOpts } = opts
  const run = await runRanks<GbdtRankResult, GbdtRankConfig>(world, 'gbdt', { data, params, backend, histogramKernel }, groupOpts)
  checkAgreement(run)
  return { model: run.results[0].model!, collectives: combineStats(run.stats), run }
}

/** Throws when a rank's model digest differs from rank 0's (the ranks went out of step). */
export function checkAgreement(run: RankRun<GbdtRankResult>): void {
  const d0 = run.results[0].digest
  run.results.forEach((r, rank) => {
    if (r.digest !== d0) throw new Error(`ranks: rank ${rank}'s model differs from rank 0's (digest ${r.digest} vs ${d0}): the ranks went out of step`)
  })
}
