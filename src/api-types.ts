/**
 * Type of `window.snaptrain`, the library API the page exposes: the CLI and the e2e tests drive
 * the page through it, and the app shell (st-app) uses nothing else. Values cross Playwright's
 * `page.evaluate` as structured data (bigint, Date and typed arrays survive; class instances
 * become plain objects). The benchmarks are not part of it: bench.html (dev server only) installs
 * them as `window.snaptrainBench` (bench/page.ts).
 */
import type { AdapterSummary } from './gpu/types.ts'
import type { TableEntry } from './table/catalog.ts'
import type { CommitInfo, HttpOptions, OpenOptions, ReadOptions, Row, Snapshot } from './table/types.ts'
import type { RunResult, TrainConfig, TrainProgress, TrainSummary } from './run/config.ts'
import type { RunManifest } from './run/manifest.ts'
import type { PredictConfig, PredictResult } from './models/gbdt/predict-run.ts'
import type { RecsysTrainConfig, RecsysTrainResult, RecsysTrainSummary } from './models/recsys/family.ts'
import type { Bracket, SweepConfig, SweepEvent, SweepModel, SweepState, TrialArtifacts } from './tune/types.ts'
import type { SweepApi } from './sweep/api.ts'
import type { ParamImportance } from './tune/importance.ts'

/** A GBDT run's result: the XGBoost JSON model, its manifest, metrics per round, the summary. */
export type TrainResult = RunResult<string, TrainSummary, RunManifest>

export type { PredictConfig, PredictResult, RunManifest, TrainConfig, TrainProgress, TrainSummary }
export type { RecsysTrainConfig, RecsysTrainResult, RecsysTrainSummary }
export type { Bracket, SweepConfig, SweepEvent, SweepModel, SweepState, TrialArtifacts, ParamImportance }

export type { AdapterSummary, CommitInfo, HttpOptions, OpenOptions, ReadOptions, Row, Snapshot, TableEntry }

/** Options of `adapterInfo`. */
export interface AdapterInfoOptions {
  /** Give up on `requestAdapter()` after this many ms (some drivers never answer); default 10 000. */
  timeoutMs?: number
  powerPreference?: GPUPowerPreference
}

/** The library API on `window.snaptrain` (the sweep methods are SweepApi's, src/sweep/api.ts). */
export interface SnaptrainApi extends SweepApi {
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
}

declare global {
  interface Window {
    /** Set by src/main.ts before the components are defined. */
    snaptrain: SnaptrainApi
  }
}
