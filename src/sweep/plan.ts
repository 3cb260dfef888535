/**
 * Sweep validation and planning, pure (no GPU, no data): config → parsed space, strategy options
 * and a fresh strategy, with every problem named before anything runs; the plan's cost in
 * resource units; the parallelism an adapter allows. The page API and the CLI both use it.
 */
import type { AdapterSummary } from '../gpu/types.ts'
import { adapterLabel, isSoftware } from '../gpu/device.ts'
import { fullBudgetSeconds, planCost, reachedResource } from '../tune/cost.ts'
import { DEFAULT_TRIALS, defaultSpace } from '../tune/defaults.ts'
import { checkConfig, parseSpace } from '../tune/space.ts'
import { paramCheck } from './model-params.ts'
import { FAMILIES, FAMILY_NAMES, familiesWithMetric, familyOf, quotedNames } from '../models/registry.ts'
import { CALIBRATION_NOT_A_TARGET } from '../models/recsys/family.ts'
import { createStrategy, resolveStrategyOptions } from '../tune/strategy.ts'
import { minimizes } from '../tune/sweep-state.ts'
import { METRICS, metricBase, parseMetric } from '../eval/metrics.ts'
import type { Bracket, SearchSpace, Strategy, StrategyOptions, SweepConfig, SweepState } from '../tune/types.ts'

/** Most trials in parallel on a software adapter (CPU threads shared by every device) and on a GPU. */
export const PARALLEL_LIMIT = { software: 4, hardware: 8 } as const
/** Default parallelism per adapter kind. */
export const PARALLEL_DEFAULT = { software: 2, hardware: 4 } as const

/** What planSweep answers (the "what this will cost" view and the CLI's checks). */
export interface SweepPlan {
  /** Every problem found (empty = runnable). */
  errors: string[]
  /** Trial requests (promotions included). */
  trials: number
  brackets: Bracket[]
  /** Resource units (rounds / epochs) the plan trains, and the same configurations at full budget. */
  resourceTotal: number
  resourceFullBudget: number
}

/** A validated sweep: space, strategy options and a fresh strategy. */
export interface PreparedSweep {
  space: SearchSpace
  options: StrategyOptions
  strategy: Strategy
}

/** Validates `config` and builds its strategy; throws RangeError naming the bad field. */
export function prepareSweep(config: SweepConfig): PreparedSweep {
  if (!FAMILY_NAMES.includes(config.model))
    throw new RangeError(`model: must be ${quotedNames(FAMILY_NAMES)}, got ${JSON.stringify(config.model)}`)
  const family = familyOf(config.model)
  checkMetric(config)
  if (!config.label) throw new RangeError('label: required')
  if (config.validFraction !== undefined && !(config.validFraction > 0 && config.validFraction < 1))
    throw new RangeError(`validFraction: must be in (0, 1), got ${config.validFraction}`)
  if (config.validFraction !== undefined && config.validTable)
    throw new RangeError('validTable and validFraction: give at most one')
  if (config.parallel !== undefined && !(Number.isInteger(config.parallel) && config.parallel >= 1))
    throw new RangeError(`parallel: must be an integer ≥ 1, got ${config.parallel}`)
  const space = parseSpace(config.space ?? defaultSpace(family), paramCheck(config.model))
  // A warm start's trials were checked when read (tune/optuna.ts); a stored or hand-made config is checked again here.
  config.warmStart?.trials.forEach(t =>
    checkConfig(space, t.config, `warmStart ${config.warmStart!.study} trial ${t.number}`),
  )
  const options = resolveStrategyOptions(family, {
    strategy: config.strategy,
    trials: config.trials,
    seed: config.seed,
    minResource: config.minResource,
    maxResource: config.maxResource,
    eta: config.eta,
    direction: minimizes({ metric: sweepMetric(config) }) ? 'minimize' : 'maximize',
    prior: config.warmStart?.trials,
  })
  return { space, options, strategy: createStrategy(space, options) }
}

/**
 * The sweep's metric: one its family reports (the registry's `metrics`: auc, logloss, for the GBDT
 * every XGBoost eval_metric written as XGBoost prints it, e.g. error@0.3 or tweedie-nloglik@1.2,
 * and for the recommender gauc over the fixed gauc_group column); calibration is refused
 * (reported, not a target: src/models/recsys/metrics.ts).
 */
function checkMetric(config: SweepConfig): void {
  const m = config.metric as string | undefined
  if (m === 'calibration') throw new RangeError(`metric: ${CALIBRATION_NOT_A_TARGET}`)
  if (m === undefined) return
  const those = familiesWithMetric(m)
  if (those.length === 0) {
    const known = [...new Set(FAMILIES.flatMap(f => f.metrics))]
    throw new RangeError(`metric: must be ${quotedNames(known)}, got ${JSON.stringify(m)}`)
  }
  if ((METRICS as readonly string[]).includes(metricBase(m))) {
    // The trials report the metric under XGBoost's name: the sweep must ask for that name.
    const name = parseMetric(m, 'metric')
    if (name !== m) throw new RangeError(`metric: XGBoost names '${m}' '${name}'; write '${name}'`)
  }
  if (!those.includes(familyOf(config.model))) {
    throw new RangeError(
      `metric: '${m}' is a ${those.map(f => f.noun).join(' or ')} metric (model ${quotedNames(those.map(f => f.name))}), got model '${config.model}'`,
    )
  }
  if (m !== 'gauc') return
  if (sweepGaucGroup(config) === undefined)
    throw new RangeError(
      'metric \'gauc\' needs a gauc_group column, fixed for the whole sweep (a fixed parameter or a fixed value in the space, e.g. {"gauc_group": "user_id"})',
    )
}

/**
 * The metric a sweep optimises: the config's, else its objective's own default eval metric
 * (the family's `sweepMetric` in the registry: mlogloss for multi:*, ndcg@32 for rank:ndcg, rmse
 * for reg:squarederror, …) with binary objectives keeping auc, the sweep's default for them (and
 * the recommender's). The objective and the parameters that name its metric (lambdarank_*,
 * tweedie_variance_power) are read from the fixed parameters and the space's fixed values; an
 * unknown one falls back to auc (prepareSweep names it).
 */
export function sweepMetric(config: Pick<SweepConfig, 'model' | 'metric' | 'fixed' | 'space'>): string {
  if (config.metric !== undefined) return config.metric
  const fixed = {
    ...Object.fromEntries(Object.entries(config.space ?? {}).filter(([, v]) => typeof v !== 'object' || v === null)),
    ...config.fixed,
  }
  // An unknown model falls back to auc here; the sweep's checks name it.
  return FAMILIES.find(f => f.name === (config.model ?? familyOf().name))?.sweepMetric(fixed) ?? 'auc'
}

/** The sweep's gauc_group column: a fixed parameter or a bare (fixed) string value of the space; undefined if none. */
export function sweepGaucGroup(config: Pick<SweepConfig, 'fixed' | 'space'>): string | undefined {
  const v = config.fixed?.gauc_group ?? config.space?.gauc_group
  return typeof v === 'string' ? v : undefined
}

/** The plan of `config` and every error found (nothing runs). */
export function planSweep(config: SweepConfig, adapter?: AdapterSummary): SweepPlan {
  const errors: string[] = []
  let prepared: PreparedSweep | undefined
  try {
    prepared = prepareSweep(config)
  } catch (e) {
    errors.push((e as Error).message)
  }
  try {
    if (config.parallel !== undefined) checkParallel(config.parallel, adapter)
  } catch (e) {
    errors.push((e as Error).message)
  }
  if (!prepared) return { errors, trials: 0, brackets: [], resourceTotal: 0, resourceFullBudget: 0 }
  const brackets = prepared.strategy.plan()
  const c = planCost(brackets, prepared.options.maxResource)
  return {
    errors,
    trials: c.trials || (config.trials ?? DEFAULT_TRIALS),
    brackets,
    resourceTotal: config.strategy === 'asha' ? c.resourceWarm : c.resource,
    resourceFullBudget: c.fullBudget,
  }
}

/** Software adapters (SwiftShader, fallback) share the CPU's threads between devices (gpu/device.ts). */
export { isSoftware }

/** Throws naming `parallel` when above what `adapter` allows (without an adapter: the hardware limit). */
export function checkParallel(parallel: number, adapter?: AdapterSummary): void {
  const limit = adapter ? PARALLEL_LIMIT[isSoftware(adapter) ? 'software' : 'hardware'] : PARALLEL_LIMIT.hardware
  if (parallel > limit)
    throw new RangeError(
      `parallel: at most ${limit} trials in parallel on ${adapter ? adapterLabel(adapter) : 'any adapter'}, got ${parallel}`,
    )
}

/** Trials in parallel: the config's (checked against the adapter), else the adapter's default. */
export function resolveParallel(config: SweepConfig, adapter: AdapterSummary): number {
  if (config.parallel !== undefined) {
    checkParallel(config.parallel, adapter)
    return config.parallel
  }
  return PARALLEL_DEFAULT[isSoftware(adapter) ? 'software' : 'hardware']
}

/**
 * GPU-seconds of the sweep's configurations at full budget. Rung strategies (Hyperband, ASHA,
 * BOHB): each configuration at R (cost.ts). Grid, random and TPE train every trial at its own
 * requested resource already (config.num_round / epochs, else R), so their full budget is each
 * trial's rate × its requested resource — the GPU-seconds spent, unless a trial failed early.
 */
export function fullBudget(s: SweepState, maxResource: number): number {
  if (['hyperband', 'asha', 'bohb'].includes(s.config.strategy)) return fullBudgetSeconds(s.trials, maxResource)
  return s.trials.reduce((sum, t) => {
    const reached = reachedResource(t)
    return reached > 0 ? sum + (t.gpuSeconds / reached) * t.resource : sum
  }, 0)
}
