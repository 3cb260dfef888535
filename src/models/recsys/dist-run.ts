/**
 * `--ranks R` for the recommender, page side. GPU: R rank workers (src/ranks), each
 * running the recsys rank job (dist-rank.ts) — its own GPUDevice, its own shard of every epoch
 * (the loader's rank assignment), gradients combined every step; rank 0's model and summary come
 * back with the collectives' totals. CPU reference: R RefRanks in this thread on an in-thread
 * group, each step's global batch of R × batch_size rows split between them.
 */
import { combineStats } from '../../ranks/stats.ts'
import { localGroup } from '../../ranks/local-group.ts'
import type { CollectiveStats, RankContext } from '../../ranks/types.ts'
import type { TrainProgress } from '../gbdt/train-run.ts'
import { cloneState, type ModelState } from './backend.ts'
import { RanksBackend } from './dist-backend.ts'
import { RefRank } from './dist-ref.ts'
import type { ModelShape, RecsysParams } from './types.ts'

/** Multi-rank fields of a recsys run's config (structured-cloneable). */
export interface RecsysRankConfig {
  /** R, default 1. */
  ranks?: number
  /** Set by the rank job: read only this rank's share of every epoch. */
  shard?: { rank: number; worldSize: number }
}

/** Summary fields of a multi-rank run. */
export interface RanksSummary { ranks: number; collectives: CollectiveStats[] }

/** R of a config; RangeError unless an integer in [1, 64]. */
export function rankCount(config: RecsysRankConfig): number {
  const r = config.ranks ?? 1
  if (!Number.isInteger(r) || r < 1 || r > 64) throw new RangeError(`ranks must be an integer in [1, 64], got ${r}`)
  return r
}

/**
 * Runs the 'recsys' rank job (dist-rank.ts) on `world` = R rank workers with `config`; resolves
 * to rank 0's result with samples/s summed over the ranks (each rank's rows / its loop time) and
 * the collectives' totals over all ranks (src/ranks/stats.ts). Progress: rank 0's events.
 */
export async function runOnRankWorkers<T extends { summary: { samples_per_second: number; rows_per_second: number } }, C>(
  world: number, config: C, onProgress: (p: TrainProgress) => void,
): Promise<T & { summary: RanksSummary }> {
  const { runRanks } = await import('../../ranks/rank-group.ts')
  const run = await runRanks<T | null, C>(world, 'recsys', config, { onProgress: (rank, e) => { if (rank === 0) onProgress(e as TrainProgress) } })
  const first = run.results[0]
  if (!first) throw new Error('recsys ranks: rank 0 returned no result')
  const perSecond = run.results.reduce((s, r) => s + (r?.summary.samples_per_second ?? 0), 0)
  const summary = { ...first.summary, samples_per_second: perSecond, rows_per_second: perSecond, ranks: world, collectives: combineStats(run.stats) }
  return { ...first, summary }
}

/** What chooses a backend for R > 1 in this thread: the ranks' models behind one RecsysBackend. */
export interface RanksChoice { backend: RanksBackend; adapter: string; dispose?: () => void }

/**
 * The backend of a multi-rank run in this thread: on a rank worker (`rank` given) one GpuModel
 * on the rank's own device talking through the rank's collective; otherwise (CPU reference)
 * R RefRanks on an in-thread group.
 */
export async function ranksBackend(shape: ModelShape, params: RecsysParams, state: ModelState, world: number, rank?: RankContext): Promise<RanksChoice> {
  if (!rank) {
    const group = localGroup(world)
    return { backend: new RanksBackend(group.map(() => new RefRank(shape, params, cloneState(state))), group), adapter: `cpu (reference backend) × ${world} ranks in one thread` }
  }
  const [{ PipelineCache }, { GpuModel }] = await Promise.all([import('../../gpu/pipeline-cache.ts'), import('./model-gpu.ts')])
  const device = await rank.device()
  const model = await GpuModel.create(new PipelineCache(device), shape, params, state)
  return { backend: new RanksBackend([model], [rank.coll]), adapter: `${rank.adapterLabel()} × ${world} rank workers` }
}

/** `result` with `ranks` and rank 0's collective totals in its summary when `ranks` ran it (else as is). */
export function withRanks<T extends { summary: object }>(result: T, ranks?: RanksBackend): T {
  if (!ranks) return result
  return { ...result, summary: { ...result.summary, ranks: ranks.world, collectives: ranks.collectives() } }
}
