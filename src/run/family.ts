/**
 * A model family plugs into the one driver (pipeline.ts runTraining; a sweep trial is a call to
 * its inner function, trainPrepared) with MODEL VERBS only: it parses its parameters, checks a
 * table before a browser starts, loads (or, for a sweep, prepares) its rows from the pinned
 * snapshot, says how to fit on a device (FamilyFit: put its model on a device, train there, stop
 * at a checkpoint), and exports its model file, summary and manifest. Which device, how often, and
 * recovery from a lost one are the driver's (session.ts: modes 'rank', 'slot', 'own'), never the
 * family's. Everything else in a model's folder is internal to it.
 * P = parameters, D = loaded data, T = what fitting returns (finish's input), B = the family's
 * model on one device, C = a checkpoint (policy 'resume'), R = what a finished run on a device gives.
 */
import type { Snapshot } from '../table/types.ts'
import type { RankContext } from '../ranks/types.ts'
import type { DeviceLossPolicy, DeviceLostError, DeviceSession, RunPart } from './device-loss.ts'
import type { LostWatch } from '../gpu/device-lost.ts'
import type { FitBackend, SessionDevice } from './session.ts'
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
export interface ModelFamily<P = any, D = any, T = any> {
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
  /**
   * Mode 'own' on a GPU: starts compiling, on the run's first device, the pipelines fitting will
   * use (PipelineCache.prepare), while `load` reads the rows (the driver runs both at once);
   * resolves when they are compiled. Absent: the family compiles as it goes (no GPU, or no gain).
   */
  warm?(device: SessionDevice, params: P, input: Pick<RunInput, 'config' | 'snapshot'>): Promise<void>
  /**
   * How to fit `data`: the family's model on a device and its training there (FamilyFit); the
   * driver's session (session.ts) picks the device and recovers. `onEvaluation` hears every evaluation.
   */
  fit(data: D, params: P, input: TrainInput, onEvaluation?: EvaluationListener): Promise<FamilyFit<any, any, any, T>>
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

/**
 * How a family fits one run's data on a device (made by ModelFamily.fit, run by session.ts).
 * B = the model on one device, C = a checkpoint to resume from, R = a finished run's result,
 * T = what the family's finish takes.
 */
export interface FamilyFit<B = any, C = any, R = any, T = any> {
  /**
   * The model on `device` (undefined: the CPU reference) holding checkpoint `from` (undefined: the
   * start). Modes 'slot' and 'own'; `dispose` destroys the model only (the session owns the device).
   */
  open(device: SessionDevice | undefined, from: C | undefined): Promise<FitBackend<B>>
  /** This rank's model on the rank's own device, with its collective (mode 'rank'; `adapter` says "× R ranks"). */
  openRank(rank: RankContext): Promise<FitBackend<B>>
  /**
   * Trains on `session` from `from`. Under policy 'resume', on a session with `lost` (mode 'own' on
   * a GPU) it may stop at a checkpoint ({ checkpoint }) and is called again from it; `watch` tells it
   * the device is gone. Elsewhere it runs to the end ({ done }).
   */
  run(session: DeviceSession<B>, from: C | undefined, watch: LostWatch): Promise<RunPart<C, R>>
  /** What fitting returns, read off the live session before the driver disposes it (recsys: the weights). */
  result(session: DeviceSession<B>, done: R): Promise<T>
  /** Mode 'own' on a GPU, before fitting's first device is used: the memory check (memory-budget.ts). */
  checkOwnGpu?(): Promise<void>
  /** Device rebuilds allowed in mode 'own' unless the run's hooks say (RunHooks.maxRecoveries). */
  readonly maxRecoveries: number
  /** Told of each rebuild in mode 'own': the checkpoint the run goes on from (undefined: the start). */
  onRecover?(from: C | undefined, reason: string): void
  /** The error once the rebuilds are spent (names what was kept). */
  exhausted(reason: string, losses: number, kept: C | undefined): DeviceLostError
}
