/**
 * Type of `window.snaptrain`, the library API the page exposes: the CLI and the e2e tests drive
 * the page through it, and the app shell (st-app) uses nothing else. Values cross Playwright's
 * `page.evaluate` as structured data (bigint, Date and typed arrays survive; class instances
 * become plain objects).
 */
import type { AdapterSummary } from './gpu/types.ts'
import type { runBenchSuite } from './bench/index.ts'
import type { TableEntry } from './table/catalog.ts'
import type { CommitInfo, HttpOptions, OpenOptions, ReadOptions, Row, Snapshot } from './table/types.ts'
import type { TrainConfig, TrainProgress, TrainResult } from './models/gbdt/train-run.ts'
import type { PredictConfig, PredictResult } from './models/gbdt/predict-run.ts'
import type { RecsysTrainConfig, RecsysTrainResult, RecsysTrainSummary } from './models/recsys/train-run.ts'
import type { Bracket, SweepConfig, SweepEvent, SweepModel, SweepState, TrialArtifacts } from './tune/types.ts'

export type { PredictConfig, PredictResult, TrainConfig, TrainProgress, TrainResult }
export type { RecsysTrainConfig, RecsysTrainResult, RecsysTrainSummary }
export type { Bracket, SweepConfig, SweepEvent, SweepModel, SweepState, TrialArtifacts }

export type { AdapterSummary, CommitInfo, HttpOptions, OpenOptions, ReadOptions, Row, Snapshot, TableEntry }

/** Options of `adapterInfo`. */
export interface AdapterInfoOptions {
  /** Give up on `requestAdapter()` after this many ms (some drivers never answer); default 10 000. */
  timeoutMs?: number
  powerPreference?: GPUPowerPreference
}

/** The library API on `window.snaptrain`. */
export interface SnaptrainApi {
  /** snaptrain package version (package.json). */
  readonly version: string
  /** The WebGPU adapter as plain data; throws naming the cause when WebGPU is unavailable. */
  adapterInfo(opts?: AdapterInfoOptions): Promise<AdapterSummary>
  /**
   * Folders under `baseUrl` (default: `tables/` next to the page), via S3 ListObjectsV2.
   * Relative URLs resolve against the page.
   */
  listTables(baseUrl?: string, opts?: HttpOptions): Promise<TableEntry[]>
  /** The table at `url` (relative to the page or absolute) at a version / timestamp; default latest. */
  openSnapshot(url: string, opts?: OpenOptions): Promise<Snapshot>
  /** Every committed version still in the log of the table at `url`, oldest first. */
  listCommits(url: string, opts?: HttpOptions): Promise<CommitInfo[]>
  /** Rows of `snapshot` (live rows, after deletion vectors), keyed by logical column name. */
  readRows(snapshot: Snapshot, opts?: ReadOptions): Promise<Row[]>
  /**
   * Runs benchmark suite `name` (src/bench, e.g. 'device') on a fresh device and resolves to its
   * rows; loaded on first call, so the page does not pay for the bench code up front.
   */
  bench?: typeof runBenchSuite
  /**
   * With `model: 'recsys'`: trains the embeddings + MLP recommender (recsys params in `params`) →
   * {model (binary model file, checkpoint layout), manifest, metrics per evaluation, summary with
   * samples_per_second, epochs, steps}; `onProgress` hears the stages and every evaluation.
   */
  train(config: RecsysTrainConfig, onProgress?: (p: TrainProgress) => void): Promise<RecsysTrainResult>
  /**
   * Trains a model (GBDT) on a table: plan + loader → GPU backend → {model (XGBoost JSON string),
   * manifest, metrics per round, summary}. Relative table URLs resolve against the page;
   * `onProgress` hears the data stages and every boosting round. Throws naming the bad input.
   */
  train(config: TrainConfig, onProgress?: (p: TrainProgress) => void): Promise<TrainResult>
  /** Margins and predictions of every live row of `config.table` (table order) with `config.model`. */
  predict(config: PredictConfig): Promise<PredictResult>
  /**
   * Runs a hyperparameter sweep in this page (src/tune): validates the config (RangeError naming
   * the field: space, trials, parallel…) before anything runs, loads the table once, runs the
   * strategy's trials on `parallel` GPU devices (default from the adapter), persists every trial
   * change in IndexedDB and resolves with the final state. `onEvent` hears stages, trials, states.
   */
  sweep(config: SweepConfig, onEvent?: (e: SweepEvent) => void, opts?: { id?: string }): Promise<SweepState>
  /** Resumes a stored sweep: finished trials are kept, unfinished ones run again. */
  resumeSweep(id: string, onEvent?: (e: SweepEvent) => void): Promise<SweepState>
  /** Stops a sweep running in this page (finished trials kept; resolves once it stopped). */
  stopSweep(id: string): Promise<void>
  /** Every stored sweep, oldest first. */
  listSweeps(): Promise<SweepState[]>
  getSweep(id: string): Promise<SweepState | undefined>
  deleteSweep(id: string): Promise<void>
  /** The stored sweep as a JSON document (importSweep reads it back). */
  exportSweep(id: string): Promise<string>
  importSweep(json: string): Promise<SweepState>
  /** A trial's artifacts: model (gbdt: XGBoost JSON; recsys: base64 model file, kept for improving trials) and manifest. */
  sweepArtifacts(id: string, trial: number): Promise<TrialArtifacts | undefined>
  /** The default search space JSON of `model`. */
  defaultSpace(model: SweepModel): Record<string, unknown>
  /** What `config` would run (trials, brackets, resource units vs full budget) and every error in it; runs nothing. */
  planSweep(config: SweepConfig): { errors: string[]; trials: number; brackets: Bracket[]; resourceTotal: number; resourceFullBudget: number }
  /** Python that continues the best configuration at scale: XGBoost on Spark (gbdt) or PyTorch (recsys), same table version. */
  continueSnippet(id: string): Promise<string>
}

declare global {
  interface Window {
    /** Set by src/main.ts before the components are defined. */
    snaptrain: SnaptrainApi
  }
}
