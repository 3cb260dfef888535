/**
 * The one training run, for every model family (window.snaptrain.train, the Train panel, the
 * CLI through the page, each rank of a `--ranks` run): parameters → (R > 1: the same run on R rank
 * workers, ranks.ts) → the snapshot opened once at the pinned version → the family loads its rows
 * → trains under its device-loss policy → model file, metrics, summary and one manifest.
 */
import { openSnapshot } from '../table/index.ts'
import type { Snapshot } from '../table/types.ts'
import type { RankContext } from '../ranks/types.ts'
import { httpFor, rankCount, type RunResult, type TrainConfig, type TrainProgress } from './config.ts'
import { loadFamily, type RunHooks, type RunInput } from './family.ts'
import type { RunManifest } from './manifest.ts'
import { StopRequest } from './stop.ts'
import type { TrainSummary } from './config.ts'
import type { RecsysTrainResult } from '../models/recsys/family.ts'

/** A GBDT run's result: the XGBoost JSON model (UBJSON bytes when the config's modelFormat is 'ubj'). */
export type GbdtTrainResult = RunResult<string, TrainSummary, RunManifest>
/** A GBDT run's result with modelFormat 'ubj': the model as UBJSON bytes. */
export type GbdtUbjTrainResult = RunResult<Uint8Array<ArrayBuffer>, TrainSummary, RunManifest>

/** Options of one run: inside a rank worker, the rank; test hooks; a user's Stop; validation scores. */
export interface RunOptions {
  rank?: RankContext
  hooks?: RunHooks
  /** Aborted: the run ends after the round or step in progress, keeping what was trained (stop.ts). */
  stop?: AbortSignal
  /** Return the final model's validation scores with the result (RunResult.validation: ROC, PR). */
  validScores?: boolean
}

/** Trains one model; `onProgress` hears the data stages and every evaluation. Throws naming the bad input. */
export async function runTraining(
  config: TrainConfig & { model: 'recsys' },
  onProgress?: (p: TrainProgress) => void,
  options?: RunOptions,
): Promise<RecsysTrainResult>
export async function runTraining(
  config: TrainConfig & { model?: 'gbdt'; modelFormat: 'ubj' },
  onProgress?: (p: TrainProgress) => void,
  options?: RunOptions,
): Promise<GbdtUbjTrainResult>
export async function runTraining(
  config: TrainConfig & { model?: 'gbdt' },
  onProgress?: (p: TrainProgress) => void,
  options?: RunOptions,
): Promise<GbdtTrainResult>
export async function runTraining(
  config: TrainConfig,
  onProgress?: (p: TrainProgress) => void,
  options?: RunOptions,
): Promise<RunResult>
export async function runTraining(
  config: TrainConfig,
  onProgress: (p: TrainProgress) => void = () => {},
  options: RunOptions = {},
): Promise<RunResult> {
  const family = await loadFamily(config.model)
  const params = family.params(config)
  if (rankCount(config) > 1 && !options.rank && family.onRankWorkers(config)) {
    return (await import('./ranks.ts')).runOnRanks(config, onProgress, { stop: options.stop })
  }
  const loading = `planning and loading ${config.table}`
  onProgress({ kind: 'stage', message: loading })
  const input: RunInput = {
    config,
    onProgress,
    rank: options.rank,
    hooks: options.hooks ?? {},
    ...(options.stop ? { stop: new StopRequest(options.stop) } : {}),
    ...(options.validScores ? { validScores: true } : {}),
    // The share of rows read so far, as the loading stage's fraction (a terminal's progress line).
    onRead: (done, total) => {
      options.hooks?.onRead?.(done, total)
      if (total > 0 && done < total) onProgress({ kind: 'stage', message: loading, fraction: done / total })
    },
    ...(await openTables(config)),
  }
  const data = await family.load(input, params)
  const t0 = performance.now()
  const trained = await family.train(data, params, input)
  const result = family.finish(data, trained, params, input, (performance.now() - t0) / 1000)
  const stopped = input.stop?.mark()
  return stopped ? { ...result, manifest: { ...result.manifest, stopped } } : result
}

/** The run's snapshots, each opened once: the training table and the validation table, if any. */
export async function openTables(config: TrainConfig): Promise<{ snapshot: Snapshot; validSnapshot?: Snapshot }> {
  if (config.validTable && config.validFraction !== undefined)
    throw new RangeError('validTable and validFraction: give at most one')
  if (config.validFraction !== undefined && !(config.validFraction > 0 && config.validFraction < 1)) {
    throw new RangeError(`valid fraction: must be in (0, 1), got ${config.validFraction}`)
  }
  const snapshot = await openSnapshot(config.table, {
    version: config.version,
    ...(config.filter ? { filterHint: config.filter } : {}),
    ...httpFor(config, config.table),
  })
  if (!config.validTable) return { snapshot }
  const validSnapshot = await openSnapshot(config.validTable, {
    version: config.validVersion,
    ...httpFor(config, config.validTable),
  })
  return { snapshot, validSnapshot }
}
