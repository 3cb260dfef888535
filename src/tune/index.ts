/**
 * Tuning engine, pure and testable: no GPU, no store, no model module (the sweep runtime around
 * it, with the stores and the models' parameter checks, is src/sweep/index.ts). What it needs of a
 * model family (resource parameter, default resources and space) its callers hand it as a
 * SweepFamily: src/models/registry.ts familyOf(name). API summary:
 *
 * Space
 *   parseSpace(raw: unknown, model?: ModelParamCheck): SearchSpace — RangeError `space.<name>: …`
 *   defaultSpace(family): Record<string, unknown>                    — space JSON, parse with parseSpace
 *   family.resource.param, family.sweep.resources {minResource, maxResource, eta}; DEFAULT_TRIALS
 *   searchDims(space): string[]; sample(space, rng): TrialConfig; encode(space, config): number[]; decode(space, u): TrialConfig
 *   grid(space, points, limit?): TrialConfig[]; gridSize(space, points): number; withoutParams(space, names)
 * Strategies (replayable state machines, types.ts Strategy)
 *   resolveStrategyOptions(family, partial & {strategy}): StrategyOptions  — defaults + validation
 *   validateStrategyOptions(o): void                                       — RangeError naming the option
 *   createStrategy(space, o): Strategy   (grid | random | tpe | hyperband | asha | bohb)
 *   hyperbandPlan(r, R, eta, trials?): Bracket[]; hyperbandSMax(r, R, eta); ashaRungs(r, R, eta): number[]
 *   tpeSuggest(space, observations, direction, rng, opts?): TrialConfig
 *   Resource: grid/random/tpe request config[resourceParam] (else R); hyperband/asha/bohb drop
 *   resourceParam from the space and request rung resources (the runner sets num_round/epochs = resource).
 * Results
 *   bestTrial(trials, direction): SweepBest | undefined; bestSoFar(trials, direction): BestPoint[]
 *   gpuSecondsTotal(trials); fullBudgetSeconds(trials, R); planCost(plan, R): PlanCost (resource units)
 *   parameterImportance(space, trials, opts?): ParamImportance[] | undefined (undefined below minTrials = 8)
 *   sweepImportance(state, family, opts?): the same over a sweep's space and trials (what the page shows)
 * Files
 *   exportSweep(state): string; importSweep(text, models?): SweepState; trialsCsv(trials): string (RFC 4180, CRLF)
 * Optuna
 *   optunaJournal(state, family, existing?): string — the sweep as a JournalFileStorage log (appended after `existing`)
 *   readJournal(text, source?): JournalStudy[]; warmStartFromJournal(text, config, family, {journal, study?}): WarmStart
 *   (config.warmStart → StrategyOptions.prior: every strategy's first trial is the best prior; TPE/BOHB fit them)
 */
export type * from './types.ts'
export {
  parseSpace,
  searchDims,
  sample,
  encode,
  decode,
  encodeDim,
  decodeDim,
  withoutParams,
  choiceIndex,
} from './space.ts'
export { defaultSpace, DEFAULT_TRIALS } from './defaults.ts'
export { grid, gridSize, gridConfig, gridValues } from './grid.ts'
export { hyperbandPlan, hyperbandSMax, hyperbandBracket, HyperbandStrategy } from './hyperband.ts'
export { ashaRungs, percentile, AshaStrategy } from './asha.ts'
export { tpeSuggest, type TpeOptions } from './tpe.ts'
export { STRATEGY_NAMES, createStrategy, validateStrategyOptions, resolveStrategyOptions } from './strategy.ts'
export { gpuSecondsTotal, fullBudgetSeconds, reachedResource, planCost, type PlanCost } from './cost.ts'
export { bestTrial, bestSoFar, type BestPoint } from './best.ts'
export { parameterImportance, sweepImportance, type ParamImportance, type ImportanceOptions } from './importance.ts'
export { exportSweep, importSweep, trialsCsv, TRIAL_COLUMNS, SWEEP_FORMAT, SWEEP_FORMAT_VERSION } from './export.ts'
export { csvField } from '../util/csv.ts'
export {
  optunaJournal,
  readJournal,
  warmStartFromJournal,
  OPTUNA_JOURNAL_FILE,
  type JournalStudy,
  type JournalTrial,
} from './optuna.ts'
export type { Observation } from './book.ts'
