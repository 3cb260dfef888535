/**
 * GBDT across ranks, as distributed XGBoost: each rank holds a contiguous slice of the
 * training rows (global rows [lo, lo + n) of N); cuts are sketched per rank and merged exactly
 * (dist-cuts.ts), base_score comes from global label sums, and the backend's reduce hooks make
 * the quantisation scales, root sums and every built node histogram global (exact integers), so
 * every rank evaluates the same splits and grows the tree R = 1 grows. Validation metrics come
 * from rank 0 (which holds the validation set) by broadcast. Worker-free: runs with localGroup.
 * N = rows, F = features, R = ranks.
 */
import type { Collective } from '../../ranks/types.ts'
import type { BackendFactory, BackendReduce } from './backend.ts'
import { train, type TrainData } from './driver.ts'
import { distCuts } from './dist-cuts.ts'
import { isLogistic } from './objective.ts'
import type { Booster, GbdtParams } from './types.ts'

/** One rank's share of the training data. */
export interface Shard {
  /** This rank's rows (F columns, labels, weights) and, on rank 0 only, the validation set. */
  data: TrainData
  /** Global index of the shard's first row. */
  lo: number
  /** N: rows over all ranks. */
  total: number
}

/** Rank `rank`'s rows [lo, hi) of `total` over `world` ranks: contiguous, sizes differing by ≤ 1. */
export function shardRange(total: number, world: number, rank: number): [number, number] {
  return [Math.floor((rank * total) / world), Math.floor(((rank + 1) * total) / world)]
}

/** Rank `rank`'s shard of all the data (rows by global index; validation kept on rank 0). */
export function shardOf(data: TrainData, world: number, rank: number): Shard {
  const total = data.labels.length
  const [lo, hi] = shardRange(total, world, rank)
  const rows = <T extends Float32Array>(a: T): Float32Array => a.slice(lo, hi)
  return {
    lo, total,
    data: { ...data, columns: data.columns.map(rows), labels: rows(data.labels), weights: data.weights && rows(data.weights), valid: rank === 0 ? data.valid : undefined },
  }
}

/** Options of a rank's run. */
export interface ShardOptions {
  onRound?: (round: number, metrics: Record<string, number>) => void
}

/**
 * Trains this rank's part of the booster; every rank resolves to the same Booster (R = 1's for
 * the same data, seed and params). `backend` builds this rank's backend (GPU or CPU).
 */
export async function trainShard(shard: Shard, p: GbdtParams, coll: Collective, backend: BackendFactory, opts: ShardOptions = {}): Promise<Booster> {
  const { data, lo, total } = shard
  if (data.labels.length === 0) throw new RangeError(`rank ${coll.rank} holds no training rows (${total} rows over ${coll.world} ranks): use fewer ranks`)
  if (coll.rank === 0 && p.early_stopping_rounds !== undefined && !data.valid) throw new RangeError('early_stopping_rounds: needs a validation set')
  const cuts = await distCuts(data.columns, data.weights, lo, total, p.max_bin, coll)
  const baseScore = p.base_score ?? await globalBaseScore(p, data, coll)
  const reduce: BackendReduce = { max: v => coll.allreduceMax(v), sum: v => coll.allreduceSum(v) }
  const factory: BackendFactory = setup => backend({ ...setup, rowOffset: lo, reduce })
  return train(data, p, factory, { cuts, baseScore, shareMetrics: m => coll.broadcast(m, 0), onRound: opts.onRound })
}

/**
 * estimateBaseScore (objective.ts) from label sums over ranks: the weighted label mean, clamped
 * into (0, 1) for logistic objectives. Partial sums added in rank order: equal to R = 1's
 * sequential sum whenever the sums are exact (integer labels and weights, e.g. 0/1 labels).
 */
async function globalBaseScore(p: GbdtParams, d: TrainData, coll: Collective): Promise<number> {
  let sw = 0, swy = 0
  for (let i = 0; i < d.labels.length; i++) {
    const w = d.weights ? d.weights[i] : 1
    sw += w
    swy += w * d.labels[i]
  }
  const [SW, SWY] = await coll.allreduceSum(Float64Array.of(sw, swy))
  const mean = SW > 0 ? SWY / SW : isLogistic(p.objective) ? 0.5 : 0
  if (!isLogistic(p.objective)) return mean
  const eps = 1e-6
  return Math.min(1 - eps, Math.max(eps, mean))
}
