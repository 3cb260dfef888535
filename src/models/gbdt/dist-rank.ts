/**
 * The GBDT in-memory rank job (registered as 'gbdt' in src/models/rank-jobs.ts; tests and benches):
 * inside one rank worker, keep this rank's contiguous rows of the given data, train with this
 * rank's own GPU device (or the CPU reference) through trainShard, and return the model's digest
 * — plus, on rank 0, the model. Table runs go through the one training run on every rank
 * (src/run/rank-job.ts). N = training rows, R = ranks.
 */
import type { RankContext, RankJob } from '../../ranks/types.ts'
import type { TrainData } from './driver.ts'
import { shardOf, trainShard } from './dist-train.ts'
import { rankBackend } from './family.ts'
import { parseParams } from './params.ts'
import { toXGBoostJsonString } from './xgboost-json.ts'
import { hashString } from '../../util/hash.ts'
import type { HistogramKernel } from '../../kernels/gbdt/histogram_choice.ts'

/** What each rank is given: the in-memory data (every rank receives all rows and keeps its share). */
export interface GbdtRankConfig {
  data: TrainData
  /** Raw XGBoost parameters. */
  params?: Record<string, unknown>
  /** 'gpu' (default): this rank's own device; 'cpu': the reference backend. */
  backend?: 'gpu' | 'cpu'
  /** GPU histogram kernel; default: measured on rank 0 (histogram_choice.ts) and broadcast. */
  histogramKernel?: HistogramKernel
}

/** What each rank returns. */
export interface GbdtRankResult {
  /** hashString of the XGBoost JSON model: the coordinator checks every rank built the same one. */
  digest: number
  /** Rank 0: the XGBoost JSON model. */
  model?: string
  adapter: string
}

/** The job. */
export const gbdtRankJob: RankJob<GbdtRankConfig, GbdtRankResult> = { run: memoryRank }

async function memoryRank(ctx: RankContext, c: GbdtRankConfig): Promise<GbdtRankResult> {
  if (!c.data) throw new RangeError('gbdt rank job: give the data (table runs use the train job)')
  const p = parseParams(c.params ?? {})
  const { factory, adapter } = await rankBackend(ctx, c.backend, c.histogramKernel)
  const onRound = (round: number, metrics: Record<string, number>): void => {
    if (ctx.rank === 0) ctx.progress({ kind: 'round', round, rounds: p.num_round, metrics, elapsedMs: 0 })
  }
  const booster = await trainShard(shardOf(c.data, ctx.world, ctx.rank), p, ctx.coll, factory, { onRound })
  const model = toXGBoostJsonString(booster)
  return { digest: hashString(model), model: ctx.rank === 0 ? model : undefined, adapter }
}
