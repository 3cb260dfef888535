/**
 * Type of `window.snaptrain`, the library API the page exposes: the CLI and the e2e tests drive
 * the page through it, and the app shell (st-app) uses nothing else. Values cross Playwright's
 * `page.evaluate` as structured data (bigint, Date and typed arrays survive; class instances
 * become plain objects). The benchmarks are not part of it: bench.html (dev server only) installs
 * them as `window.snaptrainBench` (bench/page.ts).
 */
import type { AdapterSummary } from './gpu/types.ts'
import type { TableEntry } from './sources/folder/catalog.ts'
import type { CommitInfo, HttpOptions, OpenOptions, ReadOptions, Row, Snapshot } from './table/types.ts'
import type { RunResult, TrainConfig, TrainProgress, TrainSummary } from './run/config.ts'
import type { RunManifest } from './run/manifest.ts'
import type { PredictConfig, PredictProgress, PredictResult } from './models/predict.ts'
import type { ExplainConfig, Explanation } from './models/gbdt/explain-run.ts'
import type { ImportanceType } from './models/gbdt/importance.ts'
import type { RecsysTrainConfig, RecsysTrainResult, RecsysTrainSummary } from './models/recsys/family.ts'
import type { Bracket, SweepConfig, SweepEvent, SweepModel, SweepState, TrialArtifacts } from './tune/types.ts'
import type { SweepApi } from './sweep/api.ts'
import type { ParamImportance } from './tune/importance.ts'
import type { ShareAccess } from './sharing/access.ts'
import type { TableAccess } from './storage/types.ts'
import type { RunFile } from './run/artifacts.ts'
import type { RunUpdate, StoredRun, StoredRunData as StoredRunDataOf } from './run/store-idb.ts'
import type { StoppedMark } from './run/stop.ts'
import type { UnitCacheSettings, UnitCacheUsage } from './data/unit-cache.ts'

/** A GBDT run's result: the XGBoost JSON model, its manifest, metrics per round, the summary. */
export type TrainResult = RunResult<string, TrainSummary, RunManifest>

export type { PredictConfig, PredictResult, RunManifest, TrainConfig, TrainProgress, TrainSummary }
export type { ExplainConfig, Explanation, ImportanceType }
export type { RecsysTrainConfig, RecsysTrainResult, RecsysTrainSummary }
export type { Bracket, SweepConfig, SweepEvent, SweepModel, SweepState, TrialArtifacts, ParamImportance }

export type { AdapterSummary, CommitInfo, HttpOptions, OpenOptions, ReadOptions, Row, Snapshot, TableEntry }
export type { ShareAccess, TableAccess }
export type { RunFile, RunUpdate, StoredRun, StoppedMark }
export type { UnitCacheSettings, UnitCacheUsage }
/** A kept run's large parts, its explanation the GBDT's (api.explain's answer). */
export type StoredRunData = StoredRunDataOf<Explanation>

/** Options of one `train` call in the page (not structured data: they do not cross page.evaluate). */
export interface TrainRunOptions {
  /** Aborted: the run ends after the round (GBDT) or step (recommender) in progress and resolves with what was trained, its manifest marked `stopped`. */
  signal?: AbortSignal
  /** Return the final model's validation scores and labels (`validation`: ROC, PR, confusion). */
  validScores?: boolean
}

/**
 * How a table call reaches a governed table: `access` (a share's, from openProfile) makes every
 * request of the call pass its resolver. Equal accesses (as page.evaluate copies them) share one
 * session per table, so rows read after openSnapshot use the URLs that snapshot was answered with.
 */
export interface AccessOption {
  access?: TableAccess
}

/** Options of `openProfile`. */
export interface OpenProfileOptions {
  /** What errors call the profile, e.g. its file name; default "the chosen profile". */
  source?: string
  /**
   * 'proxy': through the page's own server (`npm start`, the CLI), which keeps the token;
   * 'direct': the page talks to the sharing server itself (it must allow the page's origin, CORS);
   * 'auto' (default): proxy when the page's server has the sharing proxy, else direct.
   */
  mode?: 'auto' | 'proxy' | 'direct'
}

/** A profile opened for this page session: the access to pass to table calls, and how it reaches the server. */
export interface OpenedProfile {
  access: ShareAccess
  mode: 'proxy' | 'direct'
  /** The sharing server the profile names (behind the proxy in proxy mode). */
  endpoint: string
}

/** A shared table as listShares names it; `url` is what openSnapshot, train and sweep take (with the access). */
export interface SharedTableView {
  share: string
  schema: string
  name: string
  url: string
}

/** A share with its schemas and their tables (listShares). */
export interface SharedShareView {
  name: string
  schemas: Array<{ name: string; tables: SharedTableView[] }>
}

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
   * Folders under `baseUrl` (default: `tables/` next to the page), via S3 ListObjectsV2, else the
   * folder's static `index.json`; a `baseUrl` naming that index reads it without listing.
   * Relative URLs resolve against the page.
   */
  listTables(baseUrl?: string, opts?: HttpOptions): Promise<TableEntry[]>
  /**
   * The table at `url` (relative to the page or absolute) at a version / timestamp; default latest.
   * A shared table: its `url` from listShares and `access` from openProfile (`limitHint` then asks
   * the server for just enough files for that many rows: a preview).
   */
  openSnapshot(url: string, opts?: OpenOptions & AccessOption): Promise<Snapshot>
  /**
   * Every committed version still in the log of the table at `url`, oldest first. A shared table
   * (with its `access`) lists its current version only: the protocol has no history call.
   */
  listCommits(url: string, opts?: HttpOptions & AccessOption): Promise<CommitInfo[]>
  /** Rows of `snapshot` (live rows, after deletion vectors), keyed by logical column name; a share's with its `access`. */
  readRows(snapshot: Snapshot, opts?: ReadOptions & AccessOption): Promise<Row[]>
  /**
   * Opens a Delta Sharing profile file's text for this page session. The text is checked here
   * first (not JSON, unknown version, missing fields, expired token: a TableError 'sharing' naming
   * `source`, before anything is sent). In proxy mode it is then handed to the page's own server
   * (POST /__snaptrain/sharing/profiles), which keeps the token: the access holds only the proxy's
   * endpoint. In direct mode the access holds the parsed profile. Either way the access lives in
   * memory only: pass it to the table calls, train and sweep; nothing stores it.
   */
  openProfile(text: string, opts?: OpenProfileOptions): Promise<OpenedProfile>
  /**
   * Every share `access` may read, with its schemas and their tables, in the server's order.
   * Throws a TableError naming the profile, the status and the likely cause (401: token refused).
   */
  listShares(access: ShareAccess, opts?: HttpOptions): Promise<SharedShareView[]>
  /**
   * With `model: 'recsys'`: trains the embeddings + MLP recommender (recsys params in `params`) →
   * {model (binary model file, checkpoint layout), manifest, metrics per evaluation, summary with
   * samples_per_second, epochs, steps}; `onProgress` hears the stages and every evaluation.
   */
  train(
    config: RecsysTrainConfig,
    onProgress?: (p: TrainProgress) => void,
    options?: TrainRunOptions,
  ): Promise<RecsysTrainResult>
  /**
   * Trains a model (GBDT) on a table: plan + loader → GPU backend → {model (XGBoost JSON string),
   * manifest, metrics per round, summary}. Relative table URLs resolve against the page;
   * `onProgress` hears the data stages and every boosting round. Throws naming the bad input.
   */
  train(config: TrainConfig, onProgress?: (p: TrainProgress) => void, options?: TrainRunOptions): Promise<TrainResult>
  /**
   * Stops every run of this page in progress after its current round or step: each resolves with
   * the model and metrics trained so far, its manifest marked `stopped` ({at_round | at_step, reason:
   * 'user'}). Returns how many runs were asked to stop (0: none was running).
   */
  stopTraining(): number
  /**
   * A run's files as `snaptrain train` writes them (src/run/artifacts.ts): the model file (model.json,
   * model.ubj with `modelFormat` 'ubj', model.bin), manifest.json, metrics.csv and the continue
   * bundle's files (`continue/…`), same bytes.
   */
  runFiles(
    run: Pick<TrainResult | RecsysTrainResult, 'model' | 'manifest' | 'metrics'>,
    modelFormat?: 'json' | 'ubj',
  ): Promise<RunFile[]>
  /** The runs kept in this browser (IndexedDB, src/run/store-idb.ts), newest first. */
  listRuns(): Promise<StoredRun[]>
  /** Keeps a run (and its model and validation scores) in the Runs list; resolves once durable. */
  saveRun(run: StoredRun, data: StoredRunData): Promise<void>
  /** A kept run's model and validation scores, or undefined. */
  runData(id: string): Promise<StoredRunData | undefined>
  /** Removes a kept run. */
  deleteRun(id: string): Promise<void>
  /** Renames or retags a kept run, or keeps its explanation; resolves once durable, throws when it is not kept. */
  updateRun(id: string, change: RunUpdate): Promise<void>
  /**
   * Margins and predictions of every live row of `config.table` (table order) with `config.model`:
   * an XGBoost model, or a recommender's model.bin (margins are then its logits). `onProgress`
   * hears its stages and the rows scored of the total.
   */
  predict(config: PredictConfig, onProgress?: (p: PredictProgress) => void): Promise<PredictResult>
  /**
   * Explanations of a finished GBDT run (`config.run`: the config given to train, `config.model`:
   * its model): feature importance of every XGBoost get_score type, and SHAP values of up to
   * `config.rows` (default 2000) of the run's validation rows, evenly spaced; the rows are read
   * again from the table at the run's version. Throws when the run has no validation rows.
   */
  explain(config: ExplainConfig): Promise<Explanation>
  /**
   * Changes this page's epoch cache of decoded units (src/data/unit-cache.ts: on/off, memory and
   * spill budgets in bytes); runs started afterwards use it. RangeError naming a bad field.
   */
  configureUnitCache(settings: Partial<UnitCacheSettings>): void
  /** The epoch cache's settings now. */
  unitCacheSettings(): UnitCacheSettings
  /** What the epoch cache holds (memory and the browser's disk, OPFS) and its hits, misses and evictions. */
  unitCacheUsage(): Promise<UnitCacheUsage>
  /** Empties the epoch cache: memory and its files on the browser's disk (OPFS). */
  clearUnitCache(): Promise<void>
}

declare global {
  interface Window {
    /** Set by src/main.ts before the components are defined. */
    snaptrain: SnaptrainApi
  }
}
