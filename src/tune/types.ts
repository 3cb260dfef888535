/**
 * Types of hyperparameter sweeps: search spaces, strategies (grid, random, Hyperband,
 * ASHA, TPE, BOHB), trials, sweep state and the store. The engine (space, strategies, cost,
 * importance, store) is pure and testable; the scheduler runs trials through a TrialRunner.
 * Resource = the family's resource parameter (SweepFamily). Metric direction: see SweepConfig.
 */
import type { TrainConfig } from '../run/config.ts'
import type { HttpOptions } from '../table/types.ts'

/** One parameter's domain as written in a space JSON. A bare JSON value (number, string, array…) is a fixed value. */
export type ParamDomain =
  | { type: 'uniform'; low: number; high: number }
  | { type: 'loguniform'; low: number; high: number }
  | { type: 'int'; low: number; high: number; log?: boolean }
  | { type: 'categorical'; choices: unknown[] }
  | { type: 'fixed'; value: unknown }

/** A validated search space: every entry a domain (fixed values normalised to `{type:'fixed'}`), keys sorted. */
export type SearchSpace = Record<string, ParamDomain>

/** One configuration: parameter name → value (numbers for numeric domains, a choice otherwise). */
export type TrialConfig = Record<string, unknown>

/** A model family's name (src/models/registry.ts FAMILY_NAMES; the sweep runtime checks it). */
export type SweepModel = string

/**
 * What the engine needs of a model family: the parameter its resource sets and its default
 * resources and space. src/models/registry.ts's FamilyDescription is one; the engine imports no
 * model, so its callers (sweep/, cli/, ui/) hand it over.
 */
export interface SweepFamily {
  readonly name: string
  /** `many`: the resource's unit in words ('boosting rounds', 'epochs'; default the param's name). */
  readonly resource: { readonly param: string; readonly many?: string }
  readonly sweep: {
    readonly resources: { readonly minResource: number; readonly maxResource: number; readonly eta: number }
    readonly space: Readonly<Record<string, unknown>>
  }
}

/** What a space is checked against: the model's parameter names and its own parser (src/sweep/model-params.ts). */
export interface ModelParamCheck {
  model: SweepModel
  names: readonly string[]
  /** Throws naming the parameter when the model refuses `raw`. */
  check(raw: Record<string, unknown>): void
  /** The parameters that test `name` = `value` alone (default `{ [name]: value }`). */
  probe?(name: string, value: unknown): Record<string, unknown>
}

/** Search strategies. 'bohb' = Hyperband with TPE-sampled configurations. */
export type StrategyName = 'grid' | 'random' | 'hyperband' | 'asha' | 'tpe' | 'bohb'

/** Knobs of a strategy (validated by the engine). */
export interface StrategyOptions {
  strategy: StrategyName
  /** Configurations to try (grid: cap on grid points; hyperband/bohb: derived from the brackets when omitted). */
  trials?: number
  seed: number
  /** Smallest and largest resource of one trial (rounds / epochs); min ≥ 1, max ≥ min. */
  minResource: number
  maxResource: number
  /** Reduction factor η of Hyperband / ASHA (default 3, ≥ 2). */
  eta: number
  /** Grid: points per continuous dimension (default 3). */
  gridPoints?: number
  /** 'maximize' for auc (default), aucpr, gauc; 'minimize' for every loss and error (sweep-state.ts minimizes). */
  direction: 'maximize' | 'minimize'
  /**
   * Parameter the resource sets (the family's resource.param: num_round, epochs…). Grid, random
   * and TPE request each trial at its configuration's value of it (maxResource when the space does
   * not search it); Hyperband, ASHA and BOHB drop it from the space and request rung resources.
   */
  resourceParam?: string
  /**
   * Finished trials of an earlier study (a warm start): the strategy's first trial is the best of
   * them (by `direction`); TPE and BOHB also fit their model on them. Configurations as in the space.
   */
  prior?: readonly PriorTrial[]
}

/** A finished trial of an earlier study a sweep is warm-started from (an Optuna journal's COMPLETE trial). */
export interface PriorTrial {
  /** Its number in the earlier study. */
  number: number
  /** Its parameters, checked against the sweep's space, with the space's fixed values filled in. */
  config: TrialConfig
  metric: number
  /** The last step it reported (rounds / epochs), when it reported any. */
  resource?: number
}

/** Where a sweep's prior trials come from (SweepConfig.warmStart), and the trials. */
export interface WarmStart {
  /** The journal as the user named it (a file name). */
  journal: string
  /** The study in that journal. */
  study: string
  trials: PriorTrial[]
}

/** One rung of a successive-halving bracket: `n` configurations run at `resource`. */
export interface Rung {
  n: number
  resource: number
}
/** One Hyperband bracket s (s_max … 0) or ASHA's single bracket. */
export interface Bracket {
  index: number
  rungs: Rung[]
}

/** What the strategy asks the scheduler to run. */
export interface TrialRequest {
  /** Unique, increasing from 0 in the order the strategy issued them. */
  id: number
  config: TrialConfig
  /** Train up to this resource (the runner reports at every resource step on the way). */
  resource: number
  bracket: number
  rung: number
  /** Promotion of an earlier trial (same config, higher rung): its id. A runner may warm-start from it. */
  promotedFrom?: number
}

/** What `Strategy.next()` answers besides a request. */
export type StrategyWait = 'wait' | 'done'

/**
 * A search strategy as a replayable state machine: the same options and the same sequence of
 * next/report/complete calls give the same answers (the scheduler replays a stored sweep's event
 * log into a fresh strategy to resume it).
 */
export interface Strategy {
  readonly name: StrategyName
  /** Next trial to start; 'wait' until a running trial reports/completes; 'done' when the sweep has nothing left. */
  next(): TrialRequest | StrategyWait
  /**
   * Trial `id` reached `resource` with `metric`. 'stop' = early-stop it now (its rung says so);
   * otherwise it continues towards its requested resource.
   */
  report(id: number, resource: number, metric: number): 'continue' | 'stop'
  /** Trial `id` ended: completed its resource, was stopped, or failed (metric undefined). */
  complete(id: number, status: 'completed' | 'stopped' | 'failed', metric?: number): void
  /** The bracket/rung plan (for cost estimates, the UI and tests). */
  plan(): Bracket[]
}

/** Status of one trial. */
export type TrialStatus = 'pending' | 'running' | 'completed' | 'stopped' | 'failed'

/** One point of a trial's learning curve. */
export interface CurvePoint {
  resource: number
  metric: number
  elapsedMs: number
}

/** A trial as stored and shown (JSON-serialisable). */
export interface TrialRecord {
  id: number
  config: TrialConfig
  status: TrialStatus
  bracket: number
  rung: number
  /** Requested resource. */
  resource: number
  promotedFrom?: number
  curve: CurvePoint[]
  /**
   * The parameters that train this trial's model with `snaptrain train --params` (same data flags
   * and seed): the sweep's fixed ones, the trial's, what its family's trial adds (the sweep's metric
   * among eval_metric, a recommender's eval_every) and the resource it trained to (num_round /
   * epochs: a rung's, or where the strategy stopped it). Set when it ended (trial-runner.ts);
   * absent before, when failed, and in sweeps stored before it existed.
   */
  params?: TrialConfig
  /** Metric at the last reported resource (undefined before the first report or when failed). */
  metric?: number
  /** GPU busy seconds of this trial (queue submit → done of its work, summed). */
  gpuSeconds: number
  /** Wall seconds from start to end. */
  wallSeconds: number
  error?: string
  startedAt?: string
  endedAt?: string
}

/** The data a sweep trains on: the same fields as a training run's (table, version, label, features, filter, validation). */
export type SweepData = Pick<
  TrainConfig,
  | 'table'
  | 'tablePath'
  | 'tableAddress'
  | 'version'
  | 'label'
  | 'weight'
  | 'baseMargin'
  | 'qid'
  | 'features'
  | 'filter'
  | 'validTable'
  | 'validTablePath'
  | 'validTableAddress'
  | 'validVersion'
  | 'validFraction'
  | 'splitKey'
  | 'headers'
  | 'allowOrigins'
  | 'http'
  | 'access'
>

/**
 * What a sweep is asked to do (structured-cloneable: it crosses page.evaluate). validFraction
 * defaults to 0.2 when there is no validTable.
 */
export interface SweepConfig extends SweepData {
  model: SweepModel
  /** Search space JSON (ParamDomain or fixed values); default per model (defaultSpace). */
  space?: Record<string, unknown>
  /** Parameters every trial gets unless the space sets them. */
  fixed?: Record<string, unknown>
  strategy: StrategyName
  trials?: number
  /** Trials in parallel (each on its own GPUDevice); default from the adapter. */
  parallel?: number
  seed?: number
  minResource?: number
  maxResource?: number
  eta?: number
  /**
   * A metric the model's family reports (src/models/registry.ts `metrics`; GBDT: any XGBoost
   * eval_metric, error@t and tweedie-nloglik@ρ as XGBoost prints them): auc, aucpr, ndcg, map, pre
   * and 'gauc' (recsys, with a fixed gauc_group) maximised, every loss and error minimised
   * (sweep-state.ts minimizes). Default: the objective's own (src/sweep/plan.ts sweepMetric; auc
   * for binary objectives and recsys), written here when the sweep starts.
   */
  metric?: string
  name?: string
  /** Seeded from an earlier study's finished trials (src/tune/optuna.ts `warmStartFromJournal`). */
  warmStart?: WarmStart
}

/** The best trial so far. */
export interface SweepBest {
  trial: number
  /** Its complete parameters, resource included (TrialRecord.params; its config where a trial has none). */
  params: TrialConfig
  metric: number
}

/** A sweep as stored (IndexedDB) and shown; JSON-serialisable. */
export interface SweepState {
  id: string
  config: SweepConfig
  status: 'running' | 'stopped' | 'finished' | 'failed'
  trials: TrialRecord[]
  best?: SweepBest
  /** Trials early-stopped by their rung. */
  stoppedEarly: number
  gpuSeconds: number
  /** What the same configurations would have cost at full budget (maxResource each). */
  gpuSecondsFullBudget: number
  wallSeconds: number
  createdAt: string
  updatedAt: string
  error?: string
}

/** Artifacts a trial may leave (stored by key `${sweepId}/${trialId}/${name}`). */
export interface TrialArtifacts {
  /** gbdt: XGBoost JSON string; recsys: base64 of the model file. */
  model?: string
  manifest?: unknown
}

/** Persistence of sweeps; IndexedDB in the page, memory in tests and the CLI. */
export interface SweepStore {
  put(state: SweepState): Promise<void>
  get(id: string): Promise<SweepState | undefined>
  list(): Promise<SweepState[]>
  delete(id: string): Promise<void>
  putArtifacts(sweepId: string, trialId: number, a: TrialArtifacts): Promise<void>
  getArtifacts(sweepId: string, trialId: number): Promise<TrialArtifacts | undefined>
}

/** Events a running sweep emits (progress of data loading, trial changes, whole state). */
export type SweepEvent =
  | { kind: 'stage'; message: string; fraction?: number }
  | { kind: 'trial'; trial: TrialRecord }
  | { kind: 'state'; state: SweepState }

/** Runs one trial: trains `req.config` up to `req.resource`, reporting at each resource step. */
export interface TrialRunner {
  /**
   * `report(resource, metric)` after each round/epoch; when it returns 'stop' the runner ends the
   * trial at once. Resolves with the GPU-seconds used, the artifacts (best model etc.) and the
   * parameters that train the same model (TrialRecord.params).
   */
  run(
    req: TrialRequest,
    report: (resource: number, metric: number) => 'continue' | 'stop',
    signal: AbortSignal,
  ): Promise<{ gpuSeconds: number; artifacts?: TrialArtifacts; params?: TrialConfig }>
}

/**
 * Hears a loading step: its message and, when known, the step's share done in [0, 1] (SweepEvent
 * 'stage' fraction: rows read of the plan's rows, features binned of all features).
 */
export type StageListener = (message: string, fraction?: number) => void

/** How a sweep reads tables: loader workers (default the loader's) and HTTP options (tests: a fetch). */
export interface ReadOptions {
  workers?: number
  http?: HttpOptions
  /** The training table's governed access (TrainConfig.access): kept out of the stored config. */
  access?: TrainConfig['access']
}
