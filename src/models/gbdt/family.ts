/**
 * GBDT as a model family of the one run (src/run/pipeline.ts) and the one sweep trial runner:
 * parameters (XGBoost's, with the run seed) → the dataset from the pinned snapshot (plan + loader;
 * on a rank, this rank's rows) → boosting under the 'rerun' device-loss policy → XGBoost JSON model
 * (categorical dictionaries in its attributes) + the run manifest + per-round metrics.
 */
import { createCpuBackend } from './cpu-backend.ts'
import { datasetRequest, loadDataset, type Dataset, type DatasetConfig, type TrainData } from '../../eval/dataset.ts'
import { globalNumClass, loadRankDataset, rankBackend, trainShard, type Shard } from './ranks.ts'
import { categoricalOf, resolveNumClass, train } from './driver.ts'
import { finishGbdt } from './run-finish.ts'
import { readInitModel, type InitModel } from './init-model.ts'
import { isRanking, type SavedRankConfig } from './rank-objective.ts'
import { modelFileName } from './model-file.ts'
import { modelFeatures } from './predict-run.ts'
import { checkFeatureValues } from './feature-values.ts'
import { rerunRounds } from './device-loss.ts'
import { categoricalFlags } from './features.ts'
import { resolveConstraints } from './constraints.ts'
import { selectFeatures } from '../../eval/features.ts'
import { rowColumnsOf } from '../../eval/row-columns.ts'
import type { CategoricalFeatures } from './cuts.ts'
import { checkLabels, inferNumClass, readLabels } from '../../eval/labels.ts'
import { isMulticlass } from './objective.ts'
import { isRankingMetric } from '../../eval/metrics.ts'
import { validationSet } from '../../eval/validation.ts'
import { checkMetrics, DEFAULT_PARAMS, PARAM_ALIASES, parseParams } from './params.ts'
import type { BinnedMatrix, Booster, Cuts, GbdtParams } from './types.ts'
import { checkGbdtMemory } from '../memory-budget.ts'
import type { Snapshot } from '../../table/types.ts'
import { hasWebGpu, type TrainConfig } from '../../run/config.ts'
import { evalText } from '../../run/summary-text.ts'
import type { FamilyFit, ModelFamily, RunInput, StageListener, TrialSpec } from '../../run/family.ts'
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
export function runParams(config: Pick<TrainConfig, 'params' | 'seed' | 'initModel'>): GbdtParams {
  const raw: Record<string, unknown> = { ...savedRankConfig(config), ...(config.params ?? {}) }
  const given = 'seed' in raw || 'random_state' in raw
  if (config.seed !== undefined && !given) raw.seed = config.seed
  const p = parseParams(raw)
  if (raw.eval_metric === undefined && p.objective === 'binary:logistic') p.eval_metric = ['auc', 'logloss']
  return p
}

/**
 * Continuing a ranking model (--init-model) of the run's objective: the model's pair method, pairs
 * per sample and NDCG gain (its saved objective config: rank-objective.ts rankConfigFromJson), each
 * unless the run's parameters give it — as XGBoost, where the new run's parameters override the
 * saved config. Empty otherwise (checkInitModel names an objective that differs).
 */
function savedRankConfig(config: Pick<TrainConfig, 'params' | 'initModel'>): SavedRankConfig {
  const objective = config.params?.objective
  if (config.initModel === undefined || typeof objective !== 'string' || !isRanking(objective)) return {}
  const p = readInitModel(config.initModel).booster.params
  if (p.objective !== objective) return {}
  const { lambdarank_pair_method, lambdarank_num_pair_per_sample, ndcg_exp_gain } = p
  return {
    lambdarank_pair_method,
    ndcg_exp_gain,
    ...(lambdarank_num_pair_per_sample !== undefined ? { lambdarank_num_pair_per_sample } : {}),
  }
}

/** The dataset's config for a run's input: continuing a model, its features by default, its strings coded with its dictionaries. */
function datasetConfig(input: RunInput, seed: number, params: GbdtParams, init?: InitModel): DatasetConfig {
  const labelValues = init?.booster.labelValues
  return datasetRequest(input, seed, input.config.features ?? init?.booster.featureNames, {
    dictionaries: init?.categories,
    // multi:* labels are classes: a string label is coded through a sorted dictionary (a continued model's own).
    classLabels: isMulticlass(params.objective),
    ...(labelValues?.every(v => typeof v === 'string') ? { labelValues: labelValues as string[] } : {}),
  })
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
  checkMetrics(p)
  return p
}

/** The family. */
export const gbdtFamily: ModelFamily<GbdtParams, GbdtData, GbdtTrained> = {
  name: 'gbdt',
  deviceLoss: 'rerun',
  paramNames: GBDT_PARAM_NAMES,
  modelFile: config => modelFileName(config.modelFormat),
  describe: s => `${s.rounds} rounds in ${s.train_seconds.toFixed(1)} s on ${s.adapter}; ${evalText(s)}`,
  params: runParams,
  onRankWorkers: () => true,

  async precheck(snapshot, config, params) {
    // XGBoost 1.7.4 scores ndcg / map / pre on any objective with groups (without: all rows as one query).
    const ranked = params.eval_metric.find(isRankingMetric)
    if (ranked && config.qid === undefined)
      throw new RangeError(
        `eval_metric: ${ranked} scores rows within their query groups: name the query id column (--qid COL)`,
      )
    if (config.initModel !== undefined) checkInitModel(readInitModel(config.initModel), snapshot, config, params)
    const classLabels = isMulticlass(params.objective)
    const { features } = selectFeatures(
      snapshot.schema,
      config.label,
      config.features,
      rowColumnsOf(config),
      classLabels,
    )
    if (config.splitKey) rowKeyFields(snapshot.schema, [], config.splitKey) // names the bad --split-key column
    const names = features.map(f => f.name)
    const categorical = categoricalFlags(
      names,
      features.map(f => f.xgbType),
      params,
    )
    // Names a bad monotone/interaction constraint before any row loads (train() checks again; an
    // init model's features are its own, so its run is checked there only).
    if (config.initModel === undefined) resolveConstraints(params, names, categorical)
    const labels = await readLabels(snapshot, config, classLabels)
    checkLabels(params.objective, labels, config.label)
    checkLabelClasses(labels, snapshot, config, params)
  },

  async load(input, params) {
    const { config, rank } = input
    const seed = config.seed ?? params.seed
    const init = config.initModel === undefined ? undefined : readInitModel(config.initModel)
    if (rank) {
      if (init) throw new RangeError(INIT_RANKS)
      if (rank.rank === 0)
        input.onProgress({ kind: 'stage', message: `${rank.world} ranks: each reading its share of ${config.table}` })
      const { shard, dataset } = await loadRankDataset({ ...datasetConfig(input, seed, params), workers: 0 }, rank.coll)
      checkFeatureValues(shard.data)
      // Every rank takes part in the num_class collective; rank 0 says it.
      const classes = infersClasses(params) ? (await globalNumClass(params, shard.data, rank.coll)).num_class : 0
      if (rank.rank === 0) {
        input.onProgress({
          kind: 'stage',
          message: `loaded ${dataset.rowsTrain} training rows (${shard.data.labels.length} on rank 0), ${dataset.rowsValid} validation rows, ${dataset.features.length} features`,
        })
        if (classes) input.onProgress({ kind: 'stage', message: classesMessage(classes, config.label, shard.data) })
      }
      return { dataset, shard }
    }
    // The memory check before any data file is read (memory-budget.ts): the log's row count × the features.
    const { features } = selectFeatures(
      input.snapshot.schema,
      config.label,
      config.features ?? init?.booster.featureNames,
      rowColumnsOf(config),
      isMulticlass(params.objective),
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
    const dataset = await loadDataset(datasetConfig(input, seed, params, init))
    checkFeatureValues(dataset.data)
    input.onProgress({
      kind: 'stage',
      message: `loaded ${dataset.rowsTrain} training rows, ${dataset.rowsValid} validation rows, ${dataset.features.length} features${init ? `; continuing a model of ${init.booster.trees.length} trees` : ''}`,
    })
    // The driver resolves num_class on these rows alike.
    if (infersClasses(params, init)) {
      const K = resolveNumClass(params, dataset.data).num_class
      input.onProgress({ kind: 'stage', message: classesMessage(K, config.label, dataset.data) })
    }
    return { dataset, init }
  },

  async warm(device, params, { config }) {
    const { warmGpuBackend } = await import('./gpu-backend.ts')
    await warmGpuBackend(device.cache, validationSet(config).kind !== 'none', isMulticlass(params.objective))
  },

  async fit(data, params, input, onEvaluation) {
    const t0 = performance.now()
    const rounds = rerunRounds(params.num_round)
    const onRound = (round: number, metrics: Record<string, number>): 'stop' | undefined => {
      rounds.round(round)
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
    // In the page, cuts and binned matrix are made in loader workers, off this thread (bin-workers.ts).
    const binned = data.binned ?? (data.shard ? undefined : await quantiseOffThread(data.dataset.data, params, input))
    return {
      // A lost GPU device is rebuilt and the (deterministic) boosting rerun: device-loss.ts.
      maxRecoveries: 1,
      async open(device) {
        const factory = device
          ? (await import('./gpu-backend.ts')).createGpuBackend(device.device, device.cache, {
              histogramKernel: device.kernel,
            })
          : createCpuBackend
        return {
          backend: () =>
            train(data.dataset.data, params, factory, {
              ...binned,
              initModel: data.init?.booster,
              onValidScores,
              onRound,
              evalTrain: input.config.evalTrain,
            }),
        }
      },
      async openRank(rank) {
        const { factory, adapter } = await rankBackend(rank, input.config.backend)
        return {
          backend: () => trainShard(data.shard!, params, rank.coll, factory, { onRound, stop: rank.stop }),
          adapter: `${adapter} × ${rank.world} ranks`,
        }
      },
      async run(session) {
        rounds.start()
        return { done: await session.backend() }
      },
      async result(session, trained) {
        // A string label's classes travel in the model (model-attributes.ts): predict writes them.
        const labelValues = data.dataset.data.labelValues
        const booster = labelValues ? { ...trained, labelValues } : trained
        return scores
          ? { booster, adapter: session.adapter, validScores: scores }
          : { booster, adapter: session.adapter }
      },
      onRecover: (_, reason) =>
        input.onProgress({
          kind: 'stage',
          message: `GPU device lost (${reason}) after ${rounds.done} rounds; rebuilt it and boosting again from round 0 (deterministic: the same trees)`,
        }),
      exhausted: (reason, losses) => rounds.exhausted(reason, losses),
    } satisfies FamilyFit<() => Promise<Booster>, never, Booster, GbdtTrained>
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
    if (!trained.validScores || !labels) return run
    // A multiclass run's class names (the page's confusion matrix) come with its rows.
    const names = trained.booster.labelValues
    return { ...run, validation: { labels, scores: trained.validScores, ...(names ? { labelValues: names } : {}) } }
  },
}

/** Class names a stage message lists at most. */
const NAMED_CLASSES = 10

/** True when num_class comes from the labels: a multi:* objective without num_class, and no model to continue (whose it is). */
function infersClasses(params: GbdtParams, init?: InitModel): boolean {
  return isMulticlass(params.objective) && params.num_class === 0 && !init?.booster.numClass
}

/**
 * "3 classes from label y: a, b, c (num_class inferred: …)": a string label's values (its sorted
 * dictionary, class k the k-th), else the codes 0…K−1; at most NAMED_CLASSES names.
 */
export function classesMessage(K: number, label: string, data: Pick<TrainData, 'labelValues'>): string {
  const values = data.labelValues
  const names = values
    ? `${values.slice(0, NAMED_CLASSES).join(', ')}${K > NAMED_CLASSES ? `, … (${K} in all)` : ''}`
    : `0…${K - 1}`
  const how = values ? 'its distinct values, sorted' : 'the largest label + 1'
  return `${K} classes from label ${label}: ${names} (num_class inferred: ${how})`
}

/**
 * A string label's classes against a given num_class: they must be as many (class k is the k-th
 * sorted value, Booster.labelValues, so every class has its value). Throws naming both.
 */
function checkLabelClasses(labels: Float32Array, snapshot: Snapshot, config: TrainConfig, params: GbdtParams): void {
  if (!isMulticlass(params.objective) || params.num_class === 0) return
  if (snapshot.schema.fields.find(f => f.name === config.label)?.type !== 'string') return
  const classes = inferNumClass(labels)
  if (classes !== params.num_class)
    throw new RangeError(
      `num_class: ${params.num_class}, but the string label column ${config.label} has ${classes} distinct values (its classes); leave num_class out to infer it`,
    )
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
