/**
 * The one list of model families. Every shell (run/, sweep/, tune/ through its callers, cli/, ui/,
 * predict, continue/) reads a family's description here — its label, resource unit, default
 * sweep space, metrics, downloads, CLI flags, how to recognise its model file, its continue-at-scale
 * job — and loads the family itself lazily through `load()`. Nothing outside src/models/ names a
 * family: a new family is one folder under src/models/ plus one entry below.
 *
 * The descriptions are plain data (no family module is imported here until `load()` is called),
 * so the page's first paint and the CLI's argument parsing pay for no training code: only the
 * XGBoost families' parameter and objective tables (gbdt/objective.ts, gbdt/params.ts,
 * gblinear/params.ts), which say a run's task and a sweep's default metric.
 */
import type { ModelFamily } from '../run/family.ts'
import type { PredictConfig, PredictProgress, PredictResult } from '../eval/predict.ts'
import { METRIC_MENU, metricBase } from '../eval/metrics.ts'
import { objectiveTask, type Task } from './gbdt/objective.ts'
import { sweepDefaultMetric as gbdtSweepMetric } from './gbdt/params.ts'
import { sweepDefaultMetric as gblinearSweepMetric } from './gblinear/params.ts'
import { DEFAULT_RECSYS_PARAMS, stepsPerEpoch } from './recsys/params.ts'

export type { Task }

/** A model file's contents as a shell holds them: XGBoost JSON text, or bytes (UBJSON, a checkpoint). */
export type ModelFileContents = string | Uint8Array

/** A sweep's default resource range (rounds / epochs) and Hyperband/ASHA reduction factor η. */
export interface SweepResources {
  readonly minResource: number
  readonly maxResource: number
  readonly eta: number
}

/** What a shell knows of a family without loading it. */
export interface FamilyDescription {
  /** The name users give (`--model NAME`, TrainConfig.model, a sweep's model, manifest.model). */
  readonly name: string
  /** How the page and help texts call it. */
  readonly label: string
  /** The family in a sentence's noun position ('GBDT', 'recommender': "only GBDT models have …"). */
  readonly noun: string
  /** What one unit of a sweep's resource trains: singular and plural ('boosting round', 'epoch'). */
  readonly resource: { readonly param: string; readonly one: string; readonly many: string }
  /** What one evaluation on a curve is called (x axis of the page's curves). */
  readonly evaluation: string
  /** Model file names a run writes, default first (the CLI looks for them in a run's folder). */
  readonly modelFiles: readonly string[]
  /** True when the run's model is JSON text (a sweep stores it as is); false: bytes (stored as base64). */
  readonly textModel: boolean
  /** The page's train form starts with these parameters (JSON text). */
  readonly pageParams: string
  /**
   * Validation metrics a sweep may optimise, as its menu lists them (the first is the default);
   * one with a parameter (error, tweedie-nloglik@1.5) stands for every parameter of it. Which way
   * each is optimised: src/eval/metrics.ts maximize.
   */
  readonly metrics: readonly string[]
  /** The page's downloads of this family only (besides params, model, manifest…): kinds of ui/types.ts SweepDownloadKind. */
  readonly downloads: readonly string[]
  /**
   * A family that trains in optimizer steps over batches of rows (the recommender): its batch-size
   * parameter, that parameter's default and the steps of one epoch (what the loop runs; the page's
   * minute estimates count them). Absent for families that count rounds.
   */
  readonly batches?: {
    readonly param: string
    readonly default: number
    stepsPerEpoch(rows: number, batch: number, worldSize?: number): number
  }
  /** `snaptrain train` flags only this family takes (others refuse them naming the families that do); the page offers the same options by them (eval-train). */
  readonly cliFlags: readonly string[]
  /** `early_stopping_rounds` needs a validation set (the CLI refuses it without one before a browser starts). */
  readonly earlyStoppingNeedsValidation: boolean
  /**
   * Its continue-at-scale bundle (src/continue/bundle.ts): the layout (xgboost: model.json and
   * XGBoost jobs; torch: features.json, safetensors weights and optimizer state, a PyTorch DDP job)
   * and the engines it writes jobs for, in order.
   */
  readonly continue: { readonly layout: 'xgboost' | 'torch'; readonly engines: readonly ('dask' | 'spark' | 'torch')[] }
  /** The page explains (SHAP) a finished run's model. */
  readonly explains: boolean
  /**
   * The task a run of these parameters (a manifest's `params`) learns: which results the page
   * shows (ROC for 'binary', predicted vs actual for 'regression', the confusion matrix for
   * 'multiclass'). The XGBoost families read the objective table (gbdt/objective.ts Task).
   */
  task(params: Readonly<Record<string, unknown>>): Task
  /**
   * The metric a sweep optimises when it names none, from the sweep's fixed parameters (and the
   * space's fixed values): the objective's own default (mlogloss, ndcg@32, rmse …), auc for binary ones.
   */
  sweepMetric(fixed: Readonly<Record<string, unknown>>): string
  /** A sweep slot chooses the histogram kernel for its adapter before trials run. */
  readonly histogramKernel: boolean
  /** What a sweep needs: default resources and space, and which trial models it keeps. */
  readonly sweep: {
    readonly resources: SweepResources
    /** The default space JSON (ParamDomain objects; parse with tune/space.ts parseSpace). */
    readonly space: Readonly<Record<string, unknown>>
    /** True: every trial's model is stored; false: only a trial better than the best so far. */
    readonly keepEveryModel: boolean
    /** True: `snaptrain sweep` runs the family's precheck in Node (label…); false: only when the sweep fixes a gauc_group column. */
    readonly precheck: boolean
    /** The parameters that test `name` = `value` alone when a space is checked (default `{ [name]: value }`). */
    probe?(name: string, value: unknown): Record<string, unknown>
  }
  /** True when `model` is this family's model file (checked in registry order; the last entry takes the rest). */
  recognise(model: ModelFileContents): boolean
  /** Loads the family's module (its model verbs). */
  load(): Promise<ModelFamily>
  /** Loads its prediction of a table with a model file of this family (`onProgress`: stages and rows scored). */
  loadPredict(): Promise<(config: PredictConfig, onProgress?: (p: PredictProgress) => void) => Promise<PredictResult>>
}

const decoder = new TextDecoder()

/** The task of an XGBoost family's parameters: its objective's (XGBoost's default objective binary:logistic when none is named). */
function xgboostTask(params: Readonly<Record<string, unknown>>): Task {
  return objectiveTask(typeof params.objective === 'string' ? params.objective : 'binary:logistic')
}

/** The first bytes of a model file as text (enough for a magic or a JSON prefix). */
function head(model: ModelFileContents, n: number): string {
  return typeof model === 'string' ? model.slice(0, n) : decoder.decode(model.subarray(0, n))
}

// gbdt: 3 → 81 rounds with η = 3: four brackets (s_max = 3), rungs at 3, 9, 27, 81 rounds.
const GBDT_RESOURCES: SweepResources = { minResource: 3, maxResource: 81, eta: 3 }
// recsys: 1 → 9 epochs: three brackets (s_max = 2), rungs at 1, 3, 9 epochs.
const RECSYS_RESOURCES: SweepResources = { minResource: 1, maxResource: 9, eta: 3 }
// gblinear: 1 → 27 rounds with η = 3 (coordinate descent converges in few rounds).
const GBLINEAR_RESOURCES: SweepResources = { minResource: 1, maxResource: 27, eta: 3 }

/** The families, in the order a model file is recognised. */
export const FAMILIES: readonly FamilyDescription[] = [
  {
    name: 'recsys',
    label: 'recommender (embeddings + MLP)',
    noun: 'recommender',
    resource: { param: 'epochs', one: 'epoch', many: 'epochs' },
    evaluation: 'evaluation',
    modelFiles: ['model.bin'],
    textModel: false,
    // Sized so a first run finishes in seconds even on a software adapter, evaluating every 10 steps.
    pageParams:
      '{\n  "epochs": 1,\n  "batch_size": 1024,\n  "embedding_dim": 16,\n  "layers": [64, 32],\n  "lr": 0.001,\n  "eval_every": 10\n}',
    metrics: ['auc', 'logloss', 'gauc'],
    downloads: ['model-onnx', 'model-safetensors', 'features'],
    cliFlags: [],
    earlyStoppingNeedsValidation: false,
    continue: { layout: 'torch', engines: ['torch'] },
    explains: false,
    // Click-through: 0/1 labels, a probability per row.
    task: () => 'binary',
    sweepMetric: () => 'auc',
    histogramKernel: false,
    sweep: {
      resources: RECSYS_RESOURCES,
      // lr, embedding dim, layers, batch size, weight decay.
      space: {
        epochs: { type: 'int', low: RECSYS_RESOURCES.minResource, high: RECSYS_RESOURCES.maxResource },
        lr: { type: 'loguniform', low: 1e-4, high: 1e-2 },
        embedding_dim: { type: 'categorical', choices: [8, 16, 32] },
        layers: { type: 'categorical', choices: [[64], [128, 64], [256, 128]] },
        batch_size: { type: 'categorical', choices: [1024, 2048, 4096] },
        weight_decay: { type: 'loguniform', low: 1e-6, high: 1e-2 },
        // weight_decay needs the decoupled-decay optimizer (recsys params refuse it with adam).
        optimizer: 'adamw',
      },
      // Only a trial better than the best so far keeps its model (checkpoints are large).
      keepEveryModel: false,
      precheck: false,
      // recsys refuses weight_decay > 0 unless optimizer is adamw, and cross_layers / cross_rank other
      // than the defaults unless architecture is 'dcn': probe the value's own range only.
      probe: (name, value) => ({
        ...(name !== 'optimizer' ? { optimizer: 'adamw' } : {}),
        ...(name.startsWith('cross_') ? { architecture: 'dcn' } : {}),
        [name]: value,
      }),
    },
    batches: { param: 'batch_size', default: DEFAULT_RECSYS_PARAMS.batch_size, stepsPerEpoch },
    // The checkpoint magic of src/models/recsys/checkpoint.ts (MAGIC).
    recognise: model => typeof model !== 'string' && head(model, 8) === 'SNAPRCK1',
    load: async () => (await import('./recsys/family.ts')).recsysFamily as ModelFamily,
    loadPredict: async () => (await import('./recsys/predict-run.ts')).runRecsysPrediction,
  },
  {
    // XGBoost's linear booster (src/models/gblinear/): coordinate descent on the CPU, XGBoost JSON.
    name: 'gblinear',
    label: 'linear (XGBoost gblinear)',
    noun: 'linear',
    resource: { param: 'num_round', one: 'boosting round', many: 'boosting rounds' },
    evaluation: 'round',
    modelFiles: ['model.json'],
    textModel: true,
    pageParams: '{\n  "eta": 0.5,\n  "lambda": 0.001,\n  "alpha": 0,\n  "num_round": 20\n}',
    metrics: ['auc', 'logloss', 'rmse'],
    downloads: [],
    cliFlags: [],
    earlyStoppingNeedsValidation: true,
    // No continue-at-scale job yet (the xgboost layout reads trees): train reports the bundle as not written.
    continue: { layout: 'xgboost', engines: [] },
    explains: false,
    task: xgboostTask,
    sweepMetric: gblinearSweepMetric,
    histogramKernel: false,
    sweep: {
      resources: GBLINEAR_RESOURCES,
      space: {
        num_round: {
          type: 'int',
          low: GBLINEAR_RESOURCES.maxResource / GBLINEAR_RESOURCES.eta,
          high: GBLINEAR_RESOURCES.maxResource,
        },
        eta: { type: 'loguniform', low: 0.05, high: 1 },
        lambda: { type: 'loguniform', low: 1e-5, high: 1 },
        alpha: { type: 'loguniform', low: 1e-5, high: 1 },
      },
      keepEveryModel: true,
      precheck: true,
    },
    // XGBoost JSON (text, or its UTF-8 bytes) whose learner.gradient_booster.name is "gblinear":
    // a substring check, then a parse (models/gblinear/model-json.ts reads it in full).
    recognise: model => {
      const text = typeof model === 'string' ? model : decoder.decode(model)
      if (!/"name"\s*:\s*"gblinear"/.test(text)) return false
      try {
        return JSON.parse(text)?.learner?.gradient_booster?.name === 'gblinear'
      } catch {
        return false
      }
    },
    load: async () => (await import('./gblinear/family.ts')).gblinearFamily as ModelFamily,
    loadPredict: async () => (await import('./gblinear/predict-run.ts')).runGblinearPrediction,
  },
  {
    name: 'gbdt',
    label: 'GBDT (XGBoost hist)',
    noun: 'GBDT',
    resource: { param: 'num_round', one: 'boosting round', many: 'boosting rounds' },
    evaluation: 'round',
    modelFiles: ['model.json', 'model.ubj'],
    textModel: true,
    // XGBoost's defaults but fewer rounds, so a first run is quick.
    pageParams: '{\n  "max_depth": 6,\n  "eta": 0.3,\n  "num_round": 20\n}',
    // Every XGBoost eval_metric, binary ones first (src/eval/metrics.ts's menu).
    metrics: METRIC_MENU,
    downloads: ['model-ubj'],
    cliFlags: ['model-format', 'init-model', 'weight', 'base-margin', 'qid', 'eval-train'],
    earlyStoppingNeedsValidation: true,
    continue: { layout: 'xgboost', engines: ['dask', 'spark'] },
    explains: true,
    task: xgboostTask,
    sweepMetric: gbdtSweepMetric,
    histogramKernel: true,
    sweep: {
      resources: GBDT_RESOURCES,
      // The seven parameters the SageMaker Hyperband blog tunes.
      space: {
        num_round: {
          type: 'int',
          low: GBDT_RESOURCES.maxResource / GBDT_RESOURCES.eta,
          high: GBDT_RESOURCES.maxResource,
        },
        eta: { type: 'loguniform', low: 0.03, high: 0.5 },
        alpha: { type: 'uniform', low: 0, high: 2 },
        min_child_weight: { type: 'loguniform', low: 0.5, high: 20 },
        max_depth: { type: 'int', low: 2, high: 10 },
        colsample_bylevel: { type: 'uniform', low: 0.3, high: 1 },
        colsample_bytree: { type: 'uniform', low: 0.5, high: 1 },
      },
      keepEveryModel: true,
      precheck: true,
    },
    recognise: () => true,
    load: async () => (await import('./gbdt/family.ts')).gbdtFamily as ModelFamily,
    loadPredict: async () => (await import('./gbdt/predict-run.ts')).runPrediction,
  },
]

/** The family trained when a config names none. */
export const DEFAULT_FAMILY = 'gbdt'

/** The families as menus and help texts list them: the default first, then registry order. */
export const FAMILY_MENU: readonly FamilyDescription[] = [
  ...FAMILIES.filter(f => f.name === DEFAULT_FAMILY),
  ...FAMILIES.filter(f => f.name !== DEFAULT_FAMILY),
]

/** Names of the families, in menu order (FAMILY_MENU). */
export const FAMILY_NAMES: readonly string[] = FAMILY_MENU.map(f => f.name)

/** The description of family `name` (default: DEFAULT_FAMILY); RangeError naming the known ones otherwise. */
export function familyOf(name: string = DEFAULT_FAMILY): FamilyDescription {
  const f = FAMILIES.find(d => d.name === name)
  if (!f) throw new RangeError(`model ${name}: unknown model family (known: ${FAMILY_NAMES.join(', ')})`)
  return f
}

/** The family whose model file `model` is (registry order; the last family takes what no other recognises). */
export function familyOfModel(model: ModelFileContents): FamilyDescription {
  return FAMILIES.find(f => f.recognise(model)) ?? FAMILIES[FAMILIES.length - 1]!
}

/**
 * The family a config trains: `model` when given, else the family its params' `booster` names
 * (XGBoost's `booster: "gblinear"` means `--model gblinear`; "gbtree" the GBDT), else the default.
 * Throws naming both when they disagree.
 */
export function familyOfConfig(config: { model?: string; params?: Record<string, unknown> }): FamilyDescription {
  const booster = config.params?.booster
  const byBooster = booster === 'gblinear' ? 'gblinear' : booster === 'gbtree' ? DEFAULT_FAMILY : undefined
  if (config.model !== undefined && byBooster !== undefined && config.model !== byBooster)
    throw new RangeError(
      `booster ${JSON.stringify(booster)}: the params train ${byBooster}, the model is ${config.model}`,
    )
  return familyOf(config.model ?? byBooster)
}

/** Loads family `name` (default: DEFAULT_FAMILY); RangeError naming the known ones otherwise. */
export function loadFamily(name: string = DEFAULT_FAMILY): Promise<ModelFamily> {
  return familyOf(name).load()
}

/** The families that take `cliFlag` (`snaptrain train --<flag>`). */
export function familiesWithFlag(cliFlag: string): FamilyDescription[] {
  return FAMILIES.filter(f => f.cliFlags.includes(cliFlag))
}

/** The families whose sweeps may optimise `metric` (error@0.3: those listing error, whatever its parameter). */
export function familiesWithMetric(metric: string): FamilyDescription[] {
  return FAMILIES.filter(f => f.metrics.some(m => metricBase(m) === metricBase(metric)))
}

/** `'a', 'b' or 'c'`: names quoted for a message. */
export function quotedNames(names: readonly string[], quote = "'"): string {
  const q = names.map(n => `${quote}${n}${quote}`)
  return q.length < 2 ? (q[0] ?? '') : `${q.slice(0, -1).join(', ')} or ${q[q.length - 1]}`
}
