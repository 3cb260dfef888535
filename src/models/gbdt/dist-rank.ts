/**
 * The GBDT rank job (registered as 'gbdt' in src/models/rank-jobs.ts): inside one rank worker, get the
 * data, keep this rank's contiguous rows (global row ids kept, so subsampling is per row), train
 * with this rank's own GPU device (or the CPU reference) through trainShard, and return the
 * model's digest — plus, on rank 0, the model or the whole run result.
 * N = training rows, R = ranks.
 */
import type { RankContext, RankJob } from '../../ranks/types.ts'
import type { BackendFactory } from './backend.ts'
import { createCpuBackend } from './cpu-backend.ts'
import { loadRankDataset } from './dist-dataset.ts'
import { checkFeatureValues } from './feature-values.ts'
import type { TrainData } from './driver.ts'
import { shardOf, trainShard } from './dist-train.ts'
import { parseParams } from './params.ts'
import { finish, httpFor, runParams, type TrainConfig, type TrainResult } from './train-run.ts'
import { toXGBoostJsonString } from './xgboost-json.ts'
import { hashString } from '../../util/hash.ts'
import type { HistogramKernel } from '../../kernels/gbdt/histogram_choice.ts'

/** What each rank is given: a table run (every rank reads the table) or in-memory data. */
export interface GbdtRankConfig {
  /** A table run (TrainConfig with absolute URLs). */
  train?: TrainConfig
  /** In-memory data (tests, benches): every rank receives all rows and keeps its share. */
  data?: TrainData
  /** Raw XGBoost parameters of an in-memory run. */
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
  /** Rank 0 of an in-memory run: the XGBoost JSON model. */
  model?: string
  /** Rank 0 of a table run: the full run result. */
  result?: TrainResult
  adapter: string
}

/** The job. */
export const gbdtRankJob: RankJob<GbdtRankConfig, GbdtRankResult> = {
  run: (ctx, config) => (config.train ? tableRank(ctx, config.train) : memoryRank(ctx, config)),
}

/**
 * This rank's backend. The histogram kernel is measured by rank 0 only and broadcast: one
 * measurement instead of R competing for the same cores, and every rank runs the same kernel.
 */
async function backendOf(ctx: RankContext, kind: 'gpu' | 'cpu' | undefined, kernel?: HistogramKernel): Promise<{ factory: BackendFactory; adapter: string }> {
  if (kind === 'cpu') return { factory: createCpuBackend, adapter: 'cpu (reference backend)' }
  const device = await ctx.device()
  const [{ createGpuBackend }, { PipelineCache }, { chooseHistogramKernel }] = await Promise.all([
    import('./gpu-backend.ts'), import('../../gpu/pipeline-cache.ts'), import('../../kernels/gbdt/histogram_choice.ts')])
  const cache = new PipelineCache(device)
  const histogramKernel = kernel ?? await ctx.coll.broadcast(ctx.rank === 0 ? await chooseHistogramKernel(cache) : null, 0) as HistogramKernel
  return { factory: createGpuBackend(device, cache, { histogramKernel }), adapter: ctx.adapterLabel() }
}

async function memoryRank(ctx: RankContext, c: GbdtRankConfig): Promise<GbdtRankResult> {
  if (!c.data) throw new RangeError('gbdt rank job: give either train (a table run) or data')
  const p = parseParams(c.params ?? {})
  const { factory, adapter } = await backendOf(ctx, c.backend, c.histogramKernel)
  const onRound = (round: number, metrics: Record<string, number>): void => {
    if (ctx.rank === 0) ctx.progress({ kind: 'round', round, rounds: p.num_round, metrics, elapsedMs: 0 })
  }
  const booster = await trainShard(shardOf(c.data, ctx.world, ctx.rank), p, ctx.coll, factory, { onRound })
  const model = toXGBoostJsonString(booster)
  return { digest: hashString(model), model: ctx.rank === 0 ? model : undefined, adapter }
}

/**
 * A table run: each rank plans the scan, reads only the units holding its rows (dist-dataset.ts)
 * and trains on its contiguous share of the training rows; rank 0 also holds the validation set.
 */
async function tableRank(ctx: RankContext, config: TrainConfig): Promise<GbdtRankResult> {
  const params = runParams(config)
  const seed = config.seed ?? params.seed
  const say = (message: string): void => { if (ctx.rank === 0) ctx.progress({ kind: 'stage', message }) }
  say(`${ctx.world} ranks: each reading its share of ${config.table}`)
  const { shard, dataset: ds } = await loadRankDataset({
    tableUrl: config.table, version: config.version, label: config.label, features: config.features, filter: config.filter,
    validTable: config.validTable ? { url: config.validTable, version: config.validVersion, http: httpFor(config, config.validTable) } : undefined,
    validFraction: config.validFraction, seed, workers: 0, http: httpFor(config, config.table),
  }, ctx.coll)
  checkFeatureValues(shard.data)
  say(`loaded ${ds.rowsTrain} training rows (${shard.data.labels.length} on rank 0), ${ds.rowsValid} validation rows, ${ds.features.length} features`)
  const { factory, adapter } = await backendOf(ctx, config.backend)
  const t0 = performance.now()
  const onRound = (round: number, metrics: Record<string, number>): void => {
    if (ctx.rank === 0) ctx.progress({ kind: 'round', round, rounds: params.num_round, metrics, elapsedMs: performance.now() - t0 })
  }
  const booster = await trainShard(shard, params, ctx.coll, factory, { onRound })
  const seconds = (performance.now() - t0) / 1000
  const digest = hashString(toXGBoostJsonString(booster))
  return { digest, adapter, result: ctx.rank === 0 ? finish(config, ds, booster, params, seed, seconds, `${adapter} × ${ctx.world} ranks`) : undefined }
}
