/**
 * gblinear training parameters: XGBoost's names, aliases, defaults and ranges (`LinearTrainParam`,
 * `GBLinearTrainParam`, `RegLossParam`, the learner's). Only the deterministic updater is built —
 * `coord_descent` with the `cyclic` feature selector — so anything else is refused naming the
 * parameter rather than silently trained another way.
 */
import { numericParam, oneOf, type NumericRange } from '../../eval/params.ts'

/** Objectives the linear booster fits (as the GBDT family: XGBoost's RegLossObj). */
export const OBJECTIVES = ['binary:logistic', 'reg:logistic', 'reg:squarederror'] as const
/** Validation metrics (XGBoost eval_metric names). */
export const METRICS = ['auc', 'logloss', 'error', 'rmse'] as const

export type LinearObjective = (typeof OBJECTIVES)[number]
export type LinearMetric = (typeof METRICS)[number]

/** Validated parameters of one gblinear run. */
export interface GblinearParams {
  objective: LinearObjective
  eval_metric: LinearMetric[]
  num_round: number
  /** Learning rate of each coordinate step (XGBoost `learning_rate`, default 0.5 for gblinear). */
  eta: number
  /** L2 penalty per unit of instance weight (XGBoost denormalises it by the weight sum). */
  lambda: number
  /** L1 penalty per unit of instance weight. */
  alpha: number
  scale_pos_weight: number
  seed: number
  updater: 'coord_descent'
  feature_selector: 'cyclic'
  /** In prediction space (a probability for logistic objectives); default: the weighted label mean. */
  base_score?: number
  early_stopping_rounds?: number
}

/** XGBoost's defaults for the linear booster (xgb.train: num_boost_round = 10). */
export const DEFAULT_PARAMS: Readonly<Omit<GblinearParams, 'base_score' | 'early_stopping_rounds'>> = {
  objective: 'binary:logistic',
  eval_metric: ['logloss'],
  num_round: 10,
  eta: 0.5,
  lambda: 0,
  alpha: 0,
  scale_pos_weight: 1,
  seed: 0,
  updater: 'coord_descent',
  feature_selector: 'cyclic',
}

/** Scikit-learn style and XGBoost aliases → canonical names. */
export const PARAM_ALIASES: Readonly<Record<string, keyof GblinearParams>> = {
  n_estimators: 'num_round',
  num_boost_round: 'num_round',
  learning_rate: 'eta',
  reg_lambda: 'lambda',
  reg_alpha: 'alpha',
  random_state: 'seed',
}

/** Parameter names a sweep space or a config may set. */
export const GBLINEAR_PARAM_NAMES: readonly string[] = [
  ...Object.keys(DEFAULT_PARAMS),
  'base_score',
  'early_stopping_rounds',
  ...Object.keys(PARAM_ALIASES),
]

/** Accepted without effect: they select XGBoost's threads or verbosity; `booster` names this family. */
const IGNORED = new Set(['verbosity', 'nthread', 'n_jobs', 'silent', 'device'])

/** Numeric ranges: [name, kind, lo, hi, loOpen, hiOpen]. */
const NUMERIC: ReadonlyArray<NumericRange<keyof GblinearParams>> = [
  ['num_round', 'int', 1, 1e6, false, false],
  ['eta', 'num', 0, Infinity, false, true],
  ['lambda', 'num', 0, Infinity, false, true],
  ['alpha', 'num', 0, Infinity, false, true],
  ['scale_pos_weight', 'num', 0, Infinity, true, true],
  ['seed', 'int', -(2 ** 31), 2 ** 32 - 1, false, false],
  ['early_stopping_rounds', 'int', 1, 1e6, false, false],
  ['base_score', 'num', -Infinity, Infinity, true, true],
]

/** Default eval metric per objective (XGBoost's `DefaultEvalMetric`). */
export function defaultMetric(objective: LinearObjective): LinearMetric {
  return objective === 'binary:logistic' ? 'logloss' : 'rmse'
}

/**
 * The metric a gblinear sweep optimises when it names none, from its fixed parameters: auc for
 * binary:logistic (or no objective fixed: the default objective), else the objective's default
 * (rmse); an unknown objective falls back to auc (the sweep's checks name it).
 */
export function sweepDefaultMetric(fixed: Readonly<Record<string, unknown>>): string {
  const objective = fixed.objective ?? DEFAULT_PARAMS.objective
  if (objective === 'binary:logistic' || !OBJECTIVES.includes(objective as LinearObjective)) return 'auc'
  return defaultMetric(objective as LinearObjective)
}

/**
 * Validates raw parameters (XGBoost names or aliases; numbers may be numeric strings) and fills in
 * defaults. Throws RangeError naming the parameter.
 */
export function parseParams(raw: Record<string, unknown>): GblinearParams {
  const out: GblinearParams = { ...DEFAULT_PARAMS, eval_metric: [] }
  const seen = new Map<string, string>()
  for (const [given, value] of Object.entries(raw)) {
    if (value === undefined || IGNORED.has(given)) continue
    if (given === 'booster') {
      if (value !== 'gblinear')
        throw new RangeError(`booster: the gblinear family trains booster gblinear, got ${JSON.stringify(value)}`)
      continue
    }
    const name = PARAM_ALIASES[given] ?? given
    if (!GBLINEAR_PARAM_NAMES.includes(name))
      throw new RangeError(`unknown parameter ${given} for gblinear (known: ${GBLINEAR_PARAM_NAMES.join(', ')})`)
    if (seen.has(name)) throw new RangeError(`${given}: given twice (also as ${seen.get(name)})`)
    seen.set(name, given)
    assign(out, name as keyof GblinearParams, given, value)
  }
  if (out.eval_metric.length === 0) out.eval_metric = [defaultMetric(out.objective)]
  const logistic = out.objective !== 'reg:squarederror'
  if (logistic && out.base_score !== undefined && !(out.base_score > 0 && out.base_score < 1))
    throw new RangeError(`base_score: must be in (0, 1) for ${out.objective}, got ${out.base_score}`)
  return out
}

function assign(out: GblinearParams, name: keyof GblinearParams, given: string, value: unknown): void {
  const o = out as unknown as Record<string, unknown>
  if (name === 'objective') o[name] = oneOf(given, value, OBJECTIVES)
  else if (name === 'eval_metric') {
    const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value]
    o[name] = list.map(m => oneOf(given, typeof m === 'string' ? m.trim() : m, METRICS))
  } else if (name === 'updater') {
    if (value !== 'coord_descent')
      throw new RangeError(
        `${given}: gblinear here trains with coord_descent only (deterministic, as XGBoost's with feature_selector cyclic), got ${JSON.stringify(value)}`,
      )
    o[name] = value
  } else if (name === 'feature_selector') {
    if (value !== 'cyclic')
      throw new RangeError(
        `${given}: only cyclic is supported (XGBoost's shuffle/random/greedy/thrifty orders are not reproduced), got ${JSON.stringify(value)}`,
      )
    o[name] = value
  } else o[name] = numeric(name, given, value)
}

function numeric(name: keyof GblinearParams, given: string, value: unknown): number {
  return numericParam(NUMERIC.find(s => s[0] === name)!, given, value)
}
