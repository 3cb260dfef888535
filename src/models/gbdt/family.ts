/**
 * GBDT as a model family of the one run (src/run/pipeline.ts) and the one sweep trial runner:
 * parameters (XGBoost's, with the run seed) → the dataset from the pinned snapshot (plan + loader;
 * on a rank, this rank's rows) → boosting under the 'rerun' device-loss policy → XGBoost JSON model
 * (categorical dictionaries in its attributes) + the run manifest + per-round metrics.
 */
import type { BackendFactory } from './backend.ts'
import { createCpuBackend } from './cpu-backend.ts'
import { loadDataset, readTable, requireLabels, type Dataset, type DatasetConfig } from './dataset.ts'
import { loadRankDataset, rankBackend, trainShard, type Shard } from './ranks.ts'
import { categoricalOf, train, type TrainData } from './driver.ts'
import { CATEGORIES_ATTRIBUTE, withAttributes } from './model-attributes.ts'
import { readInitModel, type InitModel } from './init-model.ts'
import { encodeModel, modelFileName } from './model-file.ts'
import { modelFeatures } from './predict-run.ts'
import { checkFeatureValues } from './feature-values.ts'
import { trainRecovering, type LosableBackend } from './device-loss.ts'
import { categoricalFlags, selectFeatures } from './features.ts'
import type { CategoricalFeatures } from './cuts.ts'
import { checkLabels } from './objective.ts'
import { DEFAULT_PARAMS, PARAM_ALIASES, parseParams } from './params.ts'
import type { BinnedMatrix, Booster, Cuts, GbdtParams } from './types.ts'
import { toXGBoostJson } from './xgboost-json.ts'
import { checkGbdtMemory } from '../memory-budget.ts'
import { noRowsError } from '../../data/plan.ts'
import type { Snapshot } from '../../table/types.ts'
import type { PipelineCache } from '../../gpu/pipeline-cache.ts'
import type { HistogramKernel } from '../../kernels/gbdt/histogram_choice.ts'
import { hasWebGpu, httpFor, type RunResult, type TrainConfig, type TrainSummary } from '../../run/config.ts'
import { runManifest, type RunManifest } from '../../run/manifest.ts'
import type { ModelFamily, RunInput, StageListener, TrialSpec } from '../../run/family.ts'
import { binColumns } from './bin-progress.ts'
import { BIN_WORKERS, binOffThread, canBinOffThread } from './bin-workers.ts'
import { rowKeyFields } from '../../data/row-key.ts'

/** GBDT parameter names a space may set: XGBoost's canonical names and the accepted aliases. */
export const GBDT_PARAM_NAMES: readonly string[] = [
  ...Object.keys(DEFAULT_PARAMS),
  'base_score',
  'early_stopping_rounds',
  ...Object.keys(PARAM_ALIASES),
]

/** The loaded rows: the dataset (on a rank: with this rank's shard), and cuts + binned matrix when already made (a sweep's cache). */
export interface GbdtData {
  dataset: Dataset
  shard?: Shard
  binned?: { cuts: Cuts; binned: BinnedMatrix }
  /** The model training continues from (config.initModel), read once. */
  init?: InitModel
}

/** A device the caller owns (a sweep slot): training runs on it without recovery (the caller reruns the trial). */
export interface GbdtSlot {
  cache?: PipelineCache
  kernel?: HistogramKernel
  backend?: BackendFactory
}

/** What training returns. */
export interface GbdtTrained {
  booster: Booster
  adapter: string
  /** The last round's validation predictions (V), when the run asked for them (TrainInput.validScores). */
  validScores?: Float32Array
}

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

/**
 * The label column of the filtered table (read in Node, label only): throws when the filter
 * leaves no rows or a label is null, naming the filter or the file and row.
 */
export async function readLabels(snapshot: Snapshot, config: TrainConfig): Promise<Float32Array> {
  const t = await readTable(snapshot, [], undefined, {
    label: config.label,
    filter: config.filter,
    workers: 0,
    http: httpFor(config, config.table),
  })
  if (t.plan.stats.rows === 0) throw noRowsError(config.filter, config.table, snapshot.version)
  return requireLabels(config.label, t)
}

/** The dataset's config for a run's input. */
function datasetConfig(input: RunInput, seed: number, init?: InitModel): DatasetConfig {
  const { config } = input
  return {
    tableUrl: config.table,
    version: config.version,
    snapshot: input.snapshot,
    label: config.label,
    // Continuing a model: its features by default, its strings coded with its dictionaries.
    features: config.features ?? init?.booster.featureNames,
    dictionaries: init?.categories,
    filter: config.filter,
    validTable: config.validTable
      ? {
          url: config.validTable,
          version: config.validVersion,
          snapshot: input.validSnapshot,
          http: httpFor(config, config.validTable),
        }
      : undefined,
    validFraction: config.validFraction,
    splitKey: config.splitKey,
    seed,
    workers: config.workers,
    http: httpFor(config, config.table),
    onProgress: input.onRead,
  }
}

/** A sweep's shared GBDT rows: the dataset and, per max_bin, the cuts and binned matrix (made on first use, then shared). */
export interface GbdtShared {
  dataset: Dataset
  /** `categorical`: the features a trial splits as categories (their cuts differ), default none. */
  binned(
    maxBin: number,
    onStage?: StageListener,
    categorical?: CategoricalFeatures,
  ): Promise<{ cuts: Cuts; binned: BinnedMatrix }>
}

/** The dataset with a per-max_bin binning cache; a failed binning is not kept (the next trial tries again). */
function sharedBins(dataset: Dataset): GbdtShared {
  const byBin = new Map<string, Promise<{ cuts: Cuts; binned: BinnedMatrix }>>()
  return {
    dataset,
    binned(maxBin, say = () => {}, categorical) {
      const key = `${maxBin}:${categorical?.flags.join('') ?? ''}`
      let hit = byBin.get(key)
      if (!hit) {
        const F = dataset.features.length
        // In the page a sweep quantises in loader workers as a run does; elsewhere here, feature by feature.
        if (canBinOffThread()) {
          const stage = `quantising ${F} features (max_bin ${maxBin}) in ${BIN_WORKERS} loader workers`
          say(stage, 0)
          hit = binOffThread(dataset.data.columns, maxBin, dataset.data.weights, categorical).then(r => {
            say(stage, 1)
            return r
          })
        } else {
          hit = binColumns(
            dataset.data.columns,
            maxBin,
            dataset.data.weights,
            f => say(`binning ${F} features (max_bin ${maxBin}): ${Math.round(f * F)} done`, f),
            undefined,
            categorical,
          )
        }
        hit.catch(() => byBin.delete(key))
        byBin.set(key, hit)
      }
      return hit
    },
  }
}

/**
 * A trial's parameters: the sweep's fixed ones, then the trial's, with num_round = the requested
 * resource (the resource is the round budget, whatever the space says) and the sweep's metric
 * among eval_metric.
 */
export function gbdtTrialParams(spec: TrialSpec): GbdtParams {
  const p = runParams({ params: { ...spec.fixed, ...spec.config, num_round: spec.resource }, seed: spec.seed })
  const metric = spec.metric as GbdtParams['eval_metric'][number]
  if (!p.eval_metric.includes(metric)) p.eval_metric = [...p.eval_metric, metric]
  return p
}

/** The family. */
export const gbdtFamily: ModelFamily<GbdtParams, GbdtData, GbdtTrained, GbdtSlot> = {
  name: 'gbdt',
  deviceLoss: 'rerun',
  paramNames: GBDT_PARAM_NAMES,
  modelFile: config => modelFileName(config.modelFormat),
  describe: s =>
    `${s.rounds} rounds in ${s.train_seconds.toFixed(1)} s on ${s.adapter}; auc ${s.auc ?? '-'} logloss ${s.logloss ?? '-'}`,
  params: runParams,
  onRankWorkers: () => true,

  async precheck(snapshot, config, params) {
    if (config.initModel !== undefined) checkInitModel(readInitModel(config.initModel), snapshot, config, params)
    const { features } = selectFeatures(snapshot.schema, config.label, config.features)
    if (config.splitKey) rowKeyFields(snapshot.schema, [], config.splitKey) // names the bad --split-key column
    categoricalFlags(
      features.map(f => f.name),
      features.map(f => f.xgbType),
      params,
    )
    checkLabels(params.objective, await readLabels(snapshot, config), config.label)
  },

  async load(input, params) {
    const { config, rank } = input
    const seed = config.seed ?? params.seed
    const init = config.initModel === undefined ? undefined : readInitModel(config.initModel)
    if (rank) {
      if (init) throw new RangeError(INIT_RANKS)
      if (rank.rank === 0)
        input.onProgress({ kind: 'stage', message: `${rank.world} ranks: each reading its share of ${config.table}` })
      const { shard, dataset } = await loadRankDataset({ ...datasetConfig(input, seed), workers: 0 }, rank.coll)
      checkFeatureValues(shard.data)
      if (rank.rank === 0)
        input.onProgress({
          kind: 'stage',
          message: `loaded ${dataset.rowsTrain} training rows (${shard.data.labels.length} on rank 0), ${dataset.rowsValid} validation rows, ${dataset.features.length} features`,
        })
      return { dataset, shard }
    }
    // The memory check before any data file is read (memory-budget.ts): the log's row count × the features.
    const { features } = selectFeatures(
      input.snapshot.schema,
      config.label,
      config.features ?? init?.booster.featureNames,
    )
    const gpu = (config.backend ?? 'gpu') === 'gpu' && hasWebGpu()
    await checkGbdtMemory(
      input.snapshot,
      features.length,
      { validFraction: config.validFraction, filtered: config.filter !== undefined },
      params,
      gpu ? 'gpu' : 'cpu',
      config.memoryBudget,
    )
    const dataset = await loadDataset(datasetConfig(input, seed, init))
    checkFeatureValues(dataset.data)
    input.onProgress({
      kind: 'stage',
      message: `loaded ${dataset.rowsTrain} training rows, ${dataset.rowsValid} validation rows, ${dataset.features.length} features${init ? `; continuing a model of ${init.booster.trees.length} trees` : ''}`,
    })
    return { dataset, init }
  },

  async train(data, params, input, onEvaluation, slot) {
    const t0 = performance.now()
    const onRound = (round: number, metrics: Record<string, number>): 'stop' | undefined => {
      if (!input.rank || input.rank.rank === 0)
        input.onProgress({ kind: 'round', round, rounds: params.num_round, metrics, elapsedMs: performance.now() - t0 })
      if (input.stop?.obey(round + 1, 'round')) return 'stop'
      return onEvaluation?.(round, metrics) === 'stop' ? 'stop' : undefined
    }
    // The last round's validation predictions, kept only when the run asked (the page's ROC).
    let scores: Float32Array | undefined
    const onValidScores = input.validScores
      ? (pred: Float32Array) => {
          scores = pred
        }
      : undefined
    const withScores = (t: GbdtTrained): GbdtTrained => (scores ? { ...t, validScores: scores } : t)
    if (input.rank) {
      const { factory, adapter } = await rankBackend(input.rank, input.config.backend)
      const booster = await trainShard(data.shard!, params, input.rank.coll, factory, {
        onRound,
        stop: input.rank.stop,
      })
      return { booster, adapter: `${adapter} × ${input.rank.world} ranks` }
    }
    if (slot) {
      const factory =
        slot.backend ??
        (slot.cache
          ? (await import('./gpu-backend.ts')).createGpuBackend(slot.cache.device, slot.cache, {
              histogramKernel: slot.kernel,
            })
          : createCpuBackend)
      const booster = await train(data.dataset.data, params, factory, {
        ...data.binned,
        onRound,
        initModel: data.init?.booster,
        onValidScores,
      })
      return withScores({ booster, adapter: slot.cache ? 'sweep slot' : 'cpu (reference backend)' })
    }
    // In the page, cuts and binned matrix are made in loader workers, off this thread (bin-workers.ts).
    const binned = data.binned ?? (await quantiseOffThread(data.dataset.data, params, input))
    // A lost GPU device is rebuilt and the (deterministic) boosting rerun: device-loss.ts.
    const trained = await trainRecovering({
      open: () => defaultBackend(input.config.backend ?? 'gpu'),
      numRound: params.num_round,
      maxRecoveries: input.hooks.maxRecoveries,
      train: (factory, done) =>
        train(data.dataset.data, params, factory, {
          ...binned,
          initModel: data.init?.booster,
          onValidScores,
          onRound: (round, m) => {
            done(round)
            return onRound(round, m)
          },
        }),
      onRecover: (rounds, reason) =>
        input.onProgress({
          kind: 'stage',
          message: `GPU device lost (${reason}) after ${rounds} rounds; rebuilt it and boosting again from round 0 (deterministic: the same trees)`,
        }),
    })
    return withScores(trained)
  },

  async loadShared(input, fixed, onStage) {
    const { config } = input
    const what = `loading ${config.table}${config.version !== undefined ? ` version ${config.version}` : ''}`
    onStage(what)
    const params = runParams({ params: fixed, seed: config.seed })
    const { dataset } = await this.load(
      {
        ...input,
        onProgress: () => {},
        onRead: (done, total) => onStage(`${what}: ${done} of ${total} rows`, total > 0 ? done / total : 1),
      },
      params,
    )
    if (!dataset.data.valid)
      throw new RangeError(
        `sweep: no validation rows (validFraction ${config.validFraction} of ${dataset.rowsTrain} rows); the metric needs some`,
      )
    onStage(
      `loaded ${dataset.rowsTrain} training rows, ${dataset.rowsValid} validation rows, ${dataset.features.length} features`,
    )
    return sharedBins(dataset)
  },

  async trial(shared, spec, onStage) {
    const s = shared as GbdtShared
    const params = gbdtTrialParams(spec)
    const categorical = categoricalOf(s.dataset.data, params)
    return { params, data: { dataset: s.dataset, binned: await s.binned(params.max_bin, onStage, categorical) } }
  },

  finish(data, trained, params, input, seconds) {
    const run = finishGbdt(data.dataset, trained, params, input.config, seconds)
    const labels = data.dataset.data.valid?.labels
    return trained.validScores && labels ? { ...run, validation: { labels, scores: trained.validScores } } : run
  },
}

const INIT_RANKS =
  'init model: continued training runs on one rank (--ranks 1): the ranks build dictionaries of their own'

/**
 * A model to continue from checked against the table in Node, before a browser starts: one rank,
 * the parameters' objective, every model feature a column of the table (strings with the model's
 * dictionary). The driver checks names and types against the loaded data again (init-model.ts).
 */
function checkInitModel(init: InitModel, snapshot: Snapshot, config: TrainConfig, params: GbdtParams): void {
  if ((config.ranks ?? 1) > 1) throw new RangeError(INIT_RANKS)
  const objective = init.booster.params.objective
  if (objective !== params.objective)
    throw new RangeError(`init model: objective ${objective}, the parameters say ${params.objective} (set "objective")`)
  modelFeatures(init.booster, snapshot.schema, init.categories, config.table)
}

/** The run's model, manifest, metrics and summary. */
export function finishGbdt(
  ds: Dataset,
  { booster, adapter }: GbdtTrained,
  params: GbdtParams,
  config: TrainConfig,
  seconds: number,
): RunResult<string | Uint8Array<ArrayBuffer>, TrainSummary, RunManifest> {
  const categories: Record<string, string> = Object.keys(ds.dictionaries).length
    ? { [CATEGORIES_ATTRIBUTE]: JSON.stringify(ds.dictionaries) }
    : {}
  const model = encodeModel(withAttributes(toXGBoostJson(booster), categories), config.modelFormat ?? 'json')
  const last = booster.history[booster.history.length - 1] ?? {}
  const rounds = booster.trees.length
  const summary: TrainSummary = {
    model: 'gbdt',
    auc: last.auc ?? null,
    logloss: last.logloss ?? null,
    rounds,
    best_iteration: booster.bestIteration,
    train_seconds: seconds,
    rows_train: ds.rowsTrain,
    rows_valid: ds.rowsValid,
    rows_per_second: seconds > 0 ? (ds.rowsTrain * rounds) / seconds : 0,
    adapter,
  }
  const manifest = runManifest(
    config,
    {
      model: 'gbdt',
      plan: ds.plan,
      validPlan: ds.validPlan,
      seed: config.seed ?? params.seed,
      params,
      metrics: booster.history,
      features: ds.features.map(f => ({ name: f.name, type: f.xgbType, delta_type: f.deltaType })),
      skipped: ds.skipped,
      categorical: Object.fromEntries(
        Object.entries(ds.dictionaries).map(([k, v]) => [
          k,
          {
            codes: v.length,
            encoding: `codes of the sorted training values (model attribute ${CATEGORIES_ATTRIBUTE}); unseen and null → missing`,
          },
        ]),
      ),
    },
    summary,
  )
  return { model, manifest, metrics: booster.history, summary }
}

/**
 * A run's cuts and binned matrix from loader workers (equal to the driver's buildCuts +
 * binMatrix), or undefined where there are none (Node, `workers: 0`): the driver makes them.
 */
async function quantiseOffThread(
  data: TrainData,
  params: GbdtParams,
  input: Pick<RunInput, 'config' | 'onProgress'>,
): Promise<{ cuts: Cuts; binned: BinnedMatrix } | undefined> {
  if (!canBinOffThread(input.config.workers) || data.columns.length === 0) return undefined
  input.onProgress({
    kind: 'stage',
    message: `quantising ${data.columns.length} features (max_bin ${params.max_bin}) in ${BIN_WORKERS} loader workers`,
  })
  const t0 = performance.now()
  const binned = await binOffThread(data.columns, params.max_bin, data.weights, categoricalOf(data, params))
  input.onProgress({
    kind: 'stage',
    message: `quantised ${data.columns.length} features in ${((performance.now() - t0) / 1000).toFixed(2)} s`,
  })
  return binned
}

/**
 * The GPU backend on a fresh device, or the CPU reference when asked (or when WebGPU is absent,
 * e.g. in Node). The GPU modules are imported lazily so CPU-only callers never load the kernels.
 */
export async function defaultBackend(kind: 'gpu' | 'cpu'): Promise<LosableBackend> {
  if (kind === 'cpu' || !hasWebGpu()) return { backend: createCpuBackend, adapter: 'cpu (reference backend)' }
  const [{ requestDevice, adapterSummary, adapterLabel }, { createGpuBackend }] = await Promise.all([
    import('../../gpu/device.ts'),
    import('./gpu-backend.ts'),
  ])
  const { adapter, device } = await requestDevice()
  return {
    backend: createGpuBackend(device),
    adapter: adapterLabel(adapterSummary(adapter)),
    dispose: () => device.destroy(),
    lost: device.lost,
  }
}
