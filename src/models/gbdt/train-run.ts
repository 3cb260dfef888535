/**
 * One GBDT training run, page side (window.snaptrain.train, the Train panel, the CLI through
 * the page): config → parameters → dataset (plan + loader) → train with the GPU backend →
 * XGBoost JSON model (categorical dictionaries in its attributes) + run manifest + metrics.
 */
import { version as SNAPTRAIN_VERSION } from '../../../package.json'
import { manifestTable, type RunManifest } from '../manifest.ts'
import type { BackendFactory } from './backend.ts'
import { createCpuBackend } from './cpu-backend.ts'
import { loadDataset, type Dataset } from './dataset.ts'
import { train } from './driver.ts'
import { CATEGORIES_ATTRIBUTE, addAttributes } from './model-attributes.ts'
import { checkFeatureValues } from './feature-values.ts'
import { trainRecovering } from './device-loss.ts'
import { selectFeatures } from './features.ts'
import { checkGbdtMemory, type MemoryBudget } from '../memory-budget.ts'
import { openSnapshot } from '../../table/index.ts'
import { parseParams } from './params.ts'
import type { Booster, GbdtParams } from './types.ts'
import type { HttpOptions } from '../../table/types.ts'
import type { CollectiveStats } from '../../ranks/types.ts'
import { toXGBoostJsonString } from './xgboost-json.ts'

/** What to train (structured-cloneable: it crosses page.evaluate). */
export interface TrainConfig {
  /** Model family: 'gbdt' (this module's runTraining) or 'recsys' (models/recsys/train-run.ts). */
  model?: string
  /** Table root URL (relative URLs are resolved by the caller). */
  table: string
  /** Local folder the CLI served `table` from, for the manifest. */
  tablePath?: string
  version?: number
  label: string
  features?: string[]
  filter?: string
  validTable?: string
  validTablePath?: string
  validVersion?: number
  validFraction?: number
  /** XGBoost parameters as given (validated with parseParams). */
  params?: Record<string, unknown>
  /** Seed of the validation split and, unless params.seed is given, of the booster. */
  seed?: number
  /** 'gpu' (default where WebGPU exists) or 'cpu' (the reference backend). */
  backend?: 'gpu' | 'cpu'
  /** Loader workers (default: the loader's). */
  workers?: number
  /** Data-parallel ranks: R > 1 trains on R rank workers (src/ranks), each with its own device; default 1. */
  ranks?: number
  /** Memory the run may use (memory-budget.ts): refused up front when the estimate exceeds it. */
  memoryBudget?: MemoryBudget
  /**
   * Extra request headers (e.g. `Authorization: Bearer …` from `--token`), sent only to the
   * origin of `table` (httpFor); never written into the manifest, metrics or progress.
   */
  headers?: Record<string, string>
  /** Origins besides each table's own that its files may come from (HttpOptions.allowOrigins); default any. */
  allowOrigins?: string[]
}

/** Progress events: data stages, then one per boosting round. */
export type TrainProgress =
  | { kind: 'stage'; message: string }
  | { kind: 'round'; round: number; rounds: number; metrics: Record<string, number>; elapsedMs: number }

/** The headline numbers (what `snaptrain train --json` prints). */
export interface TrainSummary {
  model: string
  /** Ranks the run used, with per-collective totals (stats.ts combineStats); absent for R = 1. */
  ranks?: number
  collectives?: CollectiveStats[]
  /** How allreduce travelled between ranks: 'shared memory' (SharedArrayBuffer) or 'messages'. */
  collective_transport?: 'shared memory' | 'messages'
  auc: number | null
  logloss: number | null
  rounds: number
  best_iteration: number
  train_seconds: number
  rows_train: number
  rows_valid: number
  rows_per_second: number
  adapter: string
}

/** A finished run. */
export interface TrainResult {
  /** XGBoost JSON model (toXGBoostJsonString + attributes). */
  model: string
  manifest: RunManifest
  /** Per-round validation metrics. */
  metrics: Array<Record<string, number>>
  summary: TrainSummary
}

/** How a backend is made (the GPU one needs a device); `adapter` names it in the manifest; `lost` is the device's (device-loss.ts). */
export interface BackendChoice { factory: BackendFactory; adapter: string; dispose?: () => void; lost?: Promise<{ reason?: string; message: string }> }

/**
 * Parameters with the run seed applied: --seed sets params.seed unless the params give one.
 * Without an eval_metric, binary:logistic runs report auc and logloss (XGBoost's default
 * metric, logloss, stays last, so early stopping watches the same metric as in XGBoost).
 */
export function runParams(config: Pick<TrainConfig, 'params' | 'seed'>): GbdtParams {
  const raw = { ...(config.params ?? {}) }
  const given = 'seed' in raw || 'random_state' in raw
  if (config.seed !== undefined && !given) raw.seed = config.seed
  const p = parseParams(raw)
  if (raw.eval_metric === undefined && p.objective === 'binary:logistic') p.eval_metric = ['auc', 'logloss']
  return p
}

/** Trains one model; `onProgress` hears stages and rounds. Throws naming the bad input. */
export async function runTraining(config: TrainConfig, onProgress: (p: TrainProgress) => void = () => {},
  chooseBackend: (kind: 'gpu' | 'cpu') => Promise<BackendChoice> = defaultBackend): Promise<TrainResult> {
  if ((config.model ?? 'gbdt') !== 'gbdt') throw new RangeError(`model ${config.model}: runTraining trains GBDT models only (recsys: runRecsysTraining)`)
  if ((config.ranks ?? 1) > 1) return (await import('./dist-run.ts')).runDistTraining(config, onProgress)
  const params = runParams(config)
  const seed = config.seed ?? params.seed
  onProgress({ kind: 'stage', message: `planning and loading ${config.table}` })
  await checkMemoryUpFront(config, params)
  const ds = await loadDataset({
    tableUrl: config.table, version: config.version, label: config.label, features: config.features, filter: config.filter,
    validTable: config.validTable ? { url: config.validTable, version: config.validVersion, http: httpFor(config, config.validTable) } : undefined,
    validFraction: config.validFraction, seed, workers: config.workers, http: httpFor(config, config.table),
  })
  checkFeatureValues(ds.data)
  onProgress({ kind: 'stage', message: `loaded ${ds.rowsTrain} training rows, ${ds.rowsValid} validation rows, ${ds.features.length} features` })
  const t0 = performance.now()
  // A lost GPU device is rebuilt and the (deterministic) boosting rerun: device-loss.ts.
  const { booster, adapter } = await trainRecovering({
    open: () => chooseBackend(config.backend ?? 'gpu'), numRound: params.num_round,
    train: (factory, done) => train(ds.data, params, factory, {
      onRound: (round, metrics) => { done(round); onProgress({ kind: 'round', round, rounds: params.num_round, metrics, elapsedMs: performance.now() - t0 }) },
    }),
    onRecover: (rounds, reason) => onProgress({ kind: 'stage', message: `GPU device lost (${reason}) after ${rounds} rounds; rebuilt it and boosting again from round 0 (deterministic: the same trees)` }),
  })
  const seconds = (performance.now() - t0) / 1000
  return finish(config, ds, booster, params, seed, seconds, adapter)
}

/**
 * HTTP options for reading the table at `url`: `config.headers` only when `url` has the origin of
 * `config.table` (a validation table elsewhere gets none); http.ts then sends them only to that
 * origin, so data files the log names on other hosts never see them either. `allowOrigins`
 * applies to every table of the run.
 */
export function httpFor(
  config: { table: string; headers?: Record<string, string>; allowOrigins?: string[] }, url: string,
): HttpOptions {
  const allow: HttpOptions = config.allowOrigins ? { allowOrigins: config.allowOrigins } : {}
  if (!config.headers) return allow
  try {
    return new URL(url).origin === new URL(config.table).origin ? { ...allow, headers: config.headers } : allow
  } catch {
    return allow
  }
}

/** The memory check before any data file is read (memory-budget.ts): the log's row count × the features. */
async function checkMemoryUpFront(config: TrainConfig, params: GbdtParams): Promise<void> {
  const snapshot = await openSnapshot(config.table, { version: config.version, ...httpFor(config, config.table) })
  const { features } = selectFeatures(snapshot.schema, config.label, config.features)
  const gpu = (config.backend ?? 'gpu') === 'gpu' && typeof navigator !== 'undefined' && Boolean(navigator.gpu)
  await checkGbdtMemory(snapshot, features.length, { validFraction: config.validFraction, filtered: config.filter !== undefined }, params, gpu ? 'gpu' : 'cpu', config.memoryBudget)
}

/** The run's model, manifest, metrics and summary (also used by rank 0 of a ranks run, dist-rank.ts). */
export function finish(config: TrainConfig, ds: Dataset, booster: Booster, params: GbdtParams, seed: number, seconds: number, adapter: string): TrainResult {
  const categories: Record<string, string> = Object.keys(ds.dictionaries).length ? { [CATEGORIES_ATTRIBUTE]: JSON.stringify(ds.dictionaries) } : {}
  const model = addAttributes(toXGBoostJsonString(booster), categories)
  const last = booster.history[booster.history.length - 1] ?? {}
  const rounds = booster.trees.length
  const summary: TrainSummary = {
    model: 'gbdt', auc: last.auc ?? null, logloss: last.logloss ?? null, rounds, best_iteration: booster.bestIteration,
    train_seconds: seconds, rows_train: ds.rowsTrain, rows_valid: ds.rowsValid,
    rows_per_second: seconds > 0 ? (ds.rowsTrain * rounds) / seconds : 0, adapter,
  }
  return { model, manifest: buildManifest(config, ds, booster, params, seed, summary), metrics: booster.history, summary }
}

function buildManifest(config: TrainConfig, ds: Dataset, booster: Booster, params: GbdtParams, seed: number, s: TrainSummary): RunManifest {
  const validation: RunManifest['validation'] = ds.validPlan ? { kind: 'table', table: manifestTable(ds.validPlan, config.validTablePath) }
    : config.validFraction !== undefined ? { kind: 'fraction', fraction: config.validFraction, rows: ds.rowsValid } : { kind: 'none' }
  return {
    kind: 'snaptrain-run', model: 'gbdt', snaptrain_version: SNAPTRAIN_VERSION, created: new Date().toISOString(),
    table: manifestTable(ds.plan, config.tablePath), validation, columns: ds.plan.columns, label: config.label,
    features: ds.features.map(f => ({ name: f.name, type: f.xgbType, delta_type: f.deltaType })),
    skipped_columns: ds.skipped,
    categorical: Object.fromEntries(Object.entries(ds.dictionaries).map(([k, v]) => [k, { codes: v.length, encoding: `codes of the sorted training values (model attribute ${CATEGORIES_ATTRIBUTE}); unseen and null → missing` }])),
    filter: config.filter ?? null, seed, params: { ...params }, metrics: booster.history, best_iteration: booster.bestIteration,
    rounds: s.rounds, adapter: s.adapter, rows_train: s.rows_train, rows_valid: s.rows_valid, train_seconds: s.train_seconds,
  }
}

/**
 * The GPU backend on a fresh device, or the CPU reference when asked (or when WebGPU is absent,
 * e.g. in Node). The GPU modules are imported lazily so CPU-only callers never load the kernels.
 */
export async function defaultBackend(kind: 'gpu' | 'cpu'): Promise<BackendChoice> {
  if (kind === 'cpu' || typeof navigator === 'undefined' || !navigator.gpu) return { factory: createCpuBackend, adapter: 'cpu (reference backend)' }
  const [{ requestDevice, adapterSummary, adapterLabel }, { createGpuBackend }] = await Promise.all([import('../../gpu/device.ts'), import('./gpu-backend.ts')])
  const { adapter, device } = await requestDevice()
  return { factory: createGpuBackend(device), adapter: adapterLabel(adapterSummary(adapter)), dispose: () => device.destroy(), lost: device.lost }
}
