/**
 * What each model accepts, for space validation: parameter names and values are checked with the
 * model's own parser, so a space can only hold values a trial would accept.
 */
import type { SweepModel, TrialConfig } from './types.ts'
import { DEFAULT_PARAMS, PARAM_ALIASES, parseParams } from '../models/gbdt/params.ts'
import { RECSYS_PARAM_NAMES, parseRecsysParams } from '../models/recsys/params.ts'

/** GBDT parameter names a space may set: XGBoost's canonical names and the accepted aliases. */
export const GBDT_PARAM_NAMES: readonly string[] = [
  ...Object.keys(DEFAULT_PARAMS), 'base_score', 'early_stopping_rounds', ...Object.keys(PARAM_ALIASES),
]

/** Known parameter names per model. */
export const MODEL_PARAM_NAMES: Readonly<Record<SweepModel, readonly string[]>> = {
  gbdt: GBDT_PARAM_NAMES,
  recsys: RECSYS_PARAM_NAMES,
}

/** Throws RangeError `space.<name>: unknown parameter for <model>` when the model has no such parameter. */
export function checkModelName(model: SweepModel, name: string): void {
  const known = MODEL_PARAM_NAMES[model]
  if (!known.includes(name)) throw new RangeError(`space.${name}: unknown parameter for ${model} (known: ${known.join(', ')})`)
}

/** Throws RangeError `space.<name>: …` when the model refuses `value` for `name` alone. */
export function checkModelValue(model: SweepModel, name: string, value: unknown): void {
  try {
    parseModel(model, probe(model, name, value))
  } catch (e) {
    throw new RangeError(`space.${name}: ${(e as Error).message}`)
  }
}

/** Throws RangeError when the model refuses `config` as a whole (e.g. weight_decay without adamw). */
export function checkModelConfig(model: SweepModel, config: TrialConfig): void {
  try {
    parseModel(model, config)
  } catch (e) {
    throw new RangeError(`space: a configuration from the middle of this space is refused by ${model}: ${(e as Error).message}`)
  }
}

function probe(model: SweepModel, name: string, value: unknown): Record<string, unknown> {
  // recsys refuses weight_decay > 0 unless optimizer is adamw: probe the value's own range only.
  if (model === 'recsys' && name !== 'optimizer') return { [name]: value, optimizer: 'adamw' }
  return { [name]: value }
}

function parseModel(model: SweepModel, raw: Record<string, unknown>): void {
  if (model === 'gbdt') parseParams(raw)
  else parseRecsysParams(raw)
}
