/**
 * GBDT across ranks, page side: starts R rank workers (src/ranks), runs the 'gbdt' rank
 * job on each, checks every rank built the same model, and adds the ranks and per-collective
 * totals to the summary and the manifest. R = ranks.
 */
import { runRanks, type RankGroupOptions, type RankRun } from '../../ranks/index.ts'
import { combineStats } from '../../ranks/stats.ts'
import type { CollectiveStats } from '../../ranks/types.ts'
import type { GbdtRankConfig, GbdtRankResult } from './dist-rank.ts'
import type { TrainData } from './driver.ts'
import type { TrainConfig, TrainProgress, TrainResult } from './train-run.ts'

/** runTraining for config.ranks > 1: same result shape, plus summary/manifest `ranks` and `collectives`. */
export async function runDistTraining(config: TrainConfig, onProgress: (p: TrainProgress) => void = () => {}, opts: RankGroupOptions = {}): Promise<TrainResult> {
  const world = config.ranks ?? 1
  onProgress({ kind: 'stage', message: `starting ${world} rank workers` })
  const run = await runRanks<GbdtRankResult, GbdtRankConfig>(world, 'gbdt', { train: { ...config, ranks: undefined } },
    { ...opts, onProgress: (_rank, ev) => onProgress(ev as TrainProgress) })
  checkAgreement(run)
  const res = run.results[0].result
  if (!res) throw new Error('ranks: rank 0 returned no result')
  const collectives = combineStats(run.stats)
  const extra = { ranks: world, collectives, collective_transport: run.transport }
  return { ...res, summary: { ...res.summary, ...extra }, manifest: { ...res.manifest, ...extra } }
}

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
