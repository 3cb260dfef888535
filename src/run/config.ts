/**
 * What a training run is given and what it reports, for every model family: the config (table,
 * version, label, features, filter, validation, parameters, seed, backend, ranks), the progress
 * events, the headline summary and the result. Plain data: a config crosses page.evaluate and
 * postMessage (structured clone).
 */
import type { HttpOptions } from '../table/types.ts'
import type { TableAccess } from '../storage/types.ts'
import { tableResolver } from '../sources/index.ts'
import type { CollectiveStats } from '../ranks/types.ts'
import type { MemoryBudget } from '../models/memory-budget.ts'
import type { RunManifest } from './manifest.ts'
import type { UnitCacheSettings } from '../data/unit-cache.ts'

/** A model family's name: one of src/models/registry.ts FAMILY_NAMES (familyOf checks it). */
export type ModelName = string

/** What to train (structured-cloneable: it crosses page.evaluate). */
export interface TrainConfig {
  /** Model family (src/models/registry.ts; default DEFAULT_FAMILY, the GBDT). */
  model?: string
  /** Table root URL (relative URLs are resolved by the caller). */
  table: string
  /**
   * How the user named the table, for the manifest: the absolute path of the folder the CLI
   * served `table` from, or a governed table's `s3://…`, `uc:…`, `<profile>#share.schema.table`.
   */
  tablePath?: string
  /**
   * The table's address for the manifest's `table.url` when `table` is this process's own URL for
   * it (a loopback server's or proxy's, whose port means nothing after the run): a folder's
   * `file:` URL, `s3://…`, `uc:…`, a share's REST URL at its server (manifest.ts).
   */
  tableAddress?: string
  /** Table version; the CLI pins it (its Node precheck opened the snapshot) so every read agrees. */
  version?: number
  label: string
  /**
   * Row weight column (--weight; XGBoost's DMatrix `weight=`): scales each row's gradient and
   * hessian, the weighted quantile sketch and the validation metrics. Numeric, finite, ≥ 0.
   */
  weight?: string
  /**
   * Base margin column (--base-margin; XGBoost's `base_margin=`): each row starts boosting (and
   * evaluation) at this margin instead of the model's base_score. Numeric, finite.
   */
  baseMargin?: string
  /**
   * Query id column (--qid; XGBoost's `qid=`), needed by the rank:* objectives: rows of a query
   * need not be contiguous (they are gathered by group), the validation split keeps each query
   * whole, and the column is never a feature. Integer ids below 2^24.
   */
  qid?: string
  features?: string[]
  /**
   * GBDT: also report every eval_metric on the training rows each round (`train-auc`, … beside
   * the validation names; XGBoost's evals=[(dtrain, 'train'), (dvalid, 'valid')]): the page's
   * default, the CLI's --eval-train. Early stopping and sweeps watch validation only. One rank only.
   */
  evalTrain?: boolean
  filter?: string
  validTable?: string
  validTablePath?: string
  /** `tableAddress` of `validTable`. */
  validTableAddress?: string
  validVersion?: number
  validFraction?: number
  /**
   * Key columns of the seeded validation split (--split-key): a row's key hashes its values in
   * these columns, in this order (src/data/row-key.ts); default the label and the feature columns.
   */
  splitKey?: string[]
  /** The family's parameters as given (validated by the family). */
  params?: Record<string, unknown>
  /**
   * GBDT: the model to continue training from (XGBoost's xgb_model), as its file's contents:
   * XGBoost JSON text (ours or XGBoost's, NaN tokens allowed) or UBJSON bytes. Its trees come
   * first and num_round more are added; the features default to its features.
   */
  initModel?: string | Uint8Array<ArrayBuffer>
  /** GBDT: the model file's encoding, 'json' (default: model.json) or 'ubj' (UBJSON bytes: model.ubj). */
  modelFormat?: 'json' | 'ubj'
  /** Seed of the validation split and, unless params.seed is given, of the model. */
  seed?: number
  /** 'gpu' (default where WebGPU exists) or 'cpu' (the reference backend). */
  backend?: 'gpu' | 'cpu'
  /** Loader workers (default: the loader's). */
  workers?: number
  /** Data-parallel ranks: R > 1 trains on R rank workers (src/run/ranks.ts), each with its own device; default 1. */
  ranks?: number
  /** Set by the rank job: this rank's share of the rows. */
  shard?: { rank: number; worldSize: number }
  /** Memory the run may use (memory-budget.ts): refused up front when the estimate exceeds it. */
  memoryBudget?: MemoryBudget
  /**
   * Extra request headers (e.g. `Authorization: Bearer …` from `--token`), sent only to the
   * origin of `table` (httpFor); never written into the manifest, metrics or progress.
   */
  headers?: Record<string, string>
  /** Origins besides each table's own that its files may come from (HttpOptions.allowOrigins); default any. */
  allowOrigins?: string[]
  /**
   * A governed table's access (a share's profile, S3 credentials, a Unity Catalog token): every
   * request to `table`'s origin passes its resolver (httpFor). Like `headers`, never written into
   * the manifest, metrics, progress or a sweep's store.
   */
  access?: TableAccess
  /** Other HTTP options for every table of the run (timeouts, an injected fetch); headers go in `headers`. */
  http?: Omit<HttpOptions, 'headers' | 'allowOrigins'>
  /**
   * Set by runOnRanks: the page's epoch cache settings (src/data/unit-cache.ts), which each rank
   * worker applies to its own cache (one per realm) before it reads: `--no-cache` reaches the ranks.
   */
  unitCache?: UnitCacheSettings
}

/**
 * Progress events: data stages, then one per evaluation (boosting round, or recsys evaluation).
 * `steps` (the recommender): optimizer steps done of the run's total, the unit a Stop and an
 * estimate count in (evaluations come every eval_every steps).
 */
export type TrainProgress =
  /** `fraction` (0–1): how much of the stage is done, where it knows; such updates repeat its message. */
  | { kind: 'stage'; message: string; fraction?: number }
  | {
      kind: 'round'
      round: number
      rounds: number
      metrics: Record<string, number>
      elapsedMs: number
      steps?: { done: number; total: number }
    }

/** The headline numbers (what `snaptrain train --json` prints); families add their own. */
export interface TrainSummary {
  model: string
  /** Ranks the run used, with per-collective totals (stats.ts combineStats); absent for R = 1. */
  ranks?: number
  collectives?: CollectiveStats[]
  /** How allreduce travelled between ranks: 'shared memory' (SharedArrayBuffer) or 'messages'. */
  collective_transport?: 'shared memory' | 'messages'
  auc: number | null
  logloss: number | null
  /**
   * The last evaluation's validation metrics by name (the GBDT: every eval_metric as XGBoost
   * prints it, e.g. {"mae": …, "error@0.3": …}); absent without a validation set.
   */
  eval?: Record<string, number>
  rounds: number
  best_iteration: number
  train_seconds: number
  rows_train: number
  rows_valid: number
  rows_per_second: number
  adapter: string
}

/** A finished run: the model file, its manifest, one metrics row per evaluation, the summary. */
export interface RunResult<
  M = string | Uint8Array<ArrayBuffer>,
  S extends TrainSummary = TrainSummary,
  F extends RunManifest = RunManifest,
> {
  model: M
  manifest: F
  metrics: Array<Record<string, number>>
  summary: S
  /** The final model's validation predictions and labels, when the run was asked for them (RunOptions.validScores) and has validation rows. */
  validation?: ValidationScores
}

/** A run's validation rows as the page draws its results (ROC, predicted vs actual, the confusion matrix). V = rows. */
export interface ValidationScores {
  /** The V labels (multiclass: the class 0…K−1). */
  labels: Float32Array
  /**
   * The V predictions after the objective's transform (binary: probabilities; regression: the
   * predicted value; ranking: scores); multiclass: V × K probabilities, row-major.
   */
  scores: Float32Array
  /** Multiclass: the label's value of each class (Booster.labelValues) when the label column was not 0…K−1. */
  labelValues?: Array<string | number>
}

/**
 * HTTP options for reading the table at `url`: `config.headers` only when `url` has the origin of
 * `config.table` (a validation table elsewhere gets none); http.ts then sends them only to that
 * origin, so data files the log names on other hosts never see them either; `config.access` gives
 * that origin's tables their resolver (one per table and thread). `allowOrigins`
 * applies to every table of the run.
 */
export function httpFor(
  config: Pick<TrainConfig, 'table' | 'headers' | 'allowOrigins' | 'http' | 'access'>,
  url: string,
): HttpOptions {
  const allow: HttpOptions = { ...config.http, ...(config.allowOrigins ? { allowOrigins: config.allowOrigins } : {}) }
  if (!sameOrigin(url, config.table)) return allow
  const http = config.headers ? { ...allow, headers: config.headers } : allow
  if (!config.access) return http
  const root = url.endsWith('/') ? url : `${url}/`
  return { ...http, resolver: tableResolver(root, config.access, { http: config.http }) }
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin
  } catch {
    return false
  }
}

/** R of a config; RangeError unless an integer in [1, 64]. */
export function rankCount(config: { ranks?: number }): number {
  const r = config.ranks ?? 1
  if (!Number.isInteger(r) || r < 1 || r > 64) throw new RangeError(`ranks must be an integer in [1, 64], got ${r}`)
  return r
}

/** True where this thread has WebGPU (a page or worker of a WebGPU browser; not Node). */
export function hasWebGpu(): boolean {
  return typeof navigator !== 'undefined' && Boolean(navigator.gpu)
}
