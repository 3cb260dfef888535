/**
 * A model family plugs into the one training run (pipeline.ts) and the one sweep trial runner
 * (src/sweep/trial-runner.ts): it parses its parameters, checks a table before a browser starts,
 * loads its rows from the pinned snapshot, trains with an evaluation callback that can stop, and
 * exports its model file, summary and manifest. Everything else in a model's folder is internal
 * to it. P = parameters, D = loaded data, T = what training returns, S = a device the caller owns
 * (a sweep slot: training runs on it without the device-loss policy; the sweep reruns the trial).
 */
import type { Snapshot } from '../table/types.ts'
import type { RankContext } from '../ranks/types.ts'
import type { DeviceLossPolicy } from './device-loss.ts'
import type { StopRequest } from './stop.ts'
import type { ModelName, RunResult, TrainConfig, TrainProgress, TrainSummary } from './config.ts'

/** An evaluation's metrics; the callback's 'stop' ends training after it (early stopping by the caller). */
export type EvaluationListener = (index: number, metrics: Record<string, number>) => 'stop' | void

/** Hooks of one run (tests, the sweep). */
export interface RunHooks {
  /** Called with each device the run opens (attempt 0 first, then one per recovery). */
  onDevice?: (device: GPUDevice, attempt: number) => void
  /** Recommender: evaluations between in-memory checkpoints (default: about one per epoch). */
  checkpointEvery?: number
  /** Device rebuilds allowed (default: the family's). */
  maxRecoveries?: number
  /** Hears the tables' reads as RunInput.onRead (the bench splits a run's wait by it). */
  onRead?: (rowsRead: number, rowsTotal: number) => void
}

/** Hears a loading stage: a message and, where known, the fraction done in [0, 1]. */
export type StageListener = (message: string, fraction?: number) => void

/** One sweep trial: the sweep's fixed parameters, the trial's, the resource (rounds or epochs), the seed and metric. */
export interface TrialSpec {
  fixed?: Record<string, unknown>
  config: Record<string, unknown>
  resource: number
  seed?: number
  metric: string
}

/** What training and export see: the config, progress, the rank, the hooks. */
export interface TrainInput {
  config: TrainConfig
  onProgress: (p: TrainProgress) => void
  /** Set inside a rank worker (src/run/ranks.ts). */
  rank?: RankContext
  hooks: RunHooks
  /** A user's Stop (stop.ts): asked after each round or step; 'stop' keeps what was trained. */
  stop?: StopRequest
  /** Set: the result carries the final model's validation scores (RunResult.validation). */
  validScores?: boolean
}

/** What loading sees as well: the snapshots the pipeline opened once, at the run's pinned version. */
export interface RunInput extends TrainInput {
  snapshot: Snapshot
  validSnapshot?: Snapshot
  /** Hears the training table's read: rows read so far and the plan's rows (a sweep shows a bar). */
  onRead?: (rowsRead: number, rowsTotal: number) => void
}

/** What a family does for a run. */
export interface ModelFamily<P = any, D = any, T = any, S = any> {
  readonly name: ModelName
  /** What happens when the device is lost mid-run (src/run/device-loss.ts). */
  readonly deviceLoss: DeviceLossPolicy
  /** Parameter names a sweep space may set. */
  readonly paramNames: readonly string[]
  /** The model file's name in a run's output folder (model.json or model.ubj, model.bin). */
  modelFile(config: TrainConfig): string
  /** Files derived from the model file, written beside it (recsys: model.onnx); none when absent. */
  modelExports?(model: string | Uint8Array<ArrayBuffer>): Promise<Record<string, Uint8Array>>
  /** One line saying what a finished run did (the CLI prints it). */
  describe(summary: TrainSummary): string
  /** Validated parameters with the run seed applied (--seed sets params.seed unless the params give one). Throws naming the parameter. */
  params(config: Pick<TrainConfig, 'params' | 'seed'>): P
  /** True when `--ranks R > 1` runs on R rank workers (else the family runs its ranks in this thread). */
  onRankWorkers(config: TrainConfig): boolean
  /** Checks against the table in Node before a browser starts (label, features, filter; reads the label only). */
  precheck(snapshot: Snapshot, config: TrainConfig, params: P): Promise<void>
  /** The run's rows from the pinned snapshot(s). */
  load(input: RunInput, params: P): Promise<D>
  /** Trains on `data` under the family's device-loss policy; `onEvaluation` hears every evaluation. */
  train(data: D, params: P, input: TrainInput, onEvaluation?: EvaluationListener, slot?: S): Promise<T>
  /**
   * What a sweep's trials share, loaded once per sweep data (src/sweep/data-cache.ts) through the
   * family's load path; `fixed`: the sweep's fixed parameters (raw); `onStage` hears the loading.
   */
  loadShared(input: RunInput, fixed: Record<string, unknown> | undefined, onStage: StageListener): Promise<unknown>
  /** One trial's parameters and rows from the shared data (GBDT: binned per max_bin once; recsys: featurized per layout once). */
  trial(shared: unknown, spec: TrialSpec, onStage?: StageListener): Promise<{ params: P; data: D }>
  /** The model file, metrics, summary and the run's one manifest. */
  finish(data: D, trained: T, params: P, input: TrainInput, seconds: number): RunResult
}

/** Names of the families. */
export const MODEL_NAMES: readonly ModelName[] = ['gbdt', 'recsys']

/** The family `name` (default gbdt), imported lazily; RangeError naming the known ones otherwise. */
export async function loadFamily(name: string = 'gbdt'): Promise<ModelFamily> {
  if (name === 'gbdt') return (await import('../models/gbdt/family.ts')).gbdtFamily as ModelFamily
  if (name === 'recsys') return (await import('../models/recsys/family.ts')).recsysFamily as ModelFamily
  throw new RangeError(`model ${name}: unknown model family (known: ${MODEL_NAMES.join(', ')})`)
}
