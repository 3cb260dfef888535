/**
 * Continued training (XGBoost's `xgb.train(..., xgb_model=model)`): boosting starts from a model's
 * trees instead of the base margin alone. The model's features must be the data's (same names in
 * the same order, compatible types); its base_score is kept; every row starts at the margin the
 * model predicts (base margin + its trees' leaf values added in tree order in f32, exactly as
 * training accumulates them), and new rounds are numbered after its trees.
 *
 * Where this differs from XGBoost: our row and column sampling are pure functions of (seed, global
 * round index) (sampling.ts), so 10 rounds continued by 5 give the same trees as one 15-round run,
 * also with subsample / colsample < 1. XGBoost draws them from one random stream seeded when the
 * booster is configured, so its continuation restarts that stream and only matches a longer run
 * without sampling. N = rows, V = validation rows.
 */
import type { TrainData } from '../../eval/dataset.ts'
import { predictMargins } from './predict.ts'
import type { Booster, Tree } from './types.ts'
import { decodeModel } from './model-file.ts'
import { fromXGBoostJson } from './xgboost-json.ts'
import { categoriesOf } from './model-attributes.ts'

/** What training starts from. */
export interface Continuation {
  trees: Tree[]
  baseScore: number
  /** Float32Array(N × K) and Float32Array(V × K): the model's margins of the training and validation rows. */
  margins: { train: Float32Array; valid?: Float32Array }
}

/** Numeric XGBoost feature types: any of them may continue on any other. */
const NUMERIC = new Set(['float', 'q', 'int', 'i'])

/**
 * Whether data of XGBoost type `data` may continue a model feature of type `model`: numeric on
 * numeric, and categories ('c') on categories or integer codes — a model of ours exports string
 * codes split as ordered numbers as 'int', and XGBoost's categorical models read integer codes.
 */
function compatible(model: string, data: string): boolean {
  if (model === 'c' || data === 'c') return [model, data].every(t => t === 'c' || t === 'int')
  return NUMERIC.has(model) && NUMERIC.has(data)
}

/** Checks `init` against the data and returns what training starts from. Throws RangeError naming the feature. */
export function continueFrom(init: Booster, data: TrainData, objective?: string, outputs?: number): Continuation {
  const names = data.featureNames ?? data.columns.map((_, f) => `f${f}`)
  const types = data.featureTypes ?? data.columns.map(() => 'float')
  const F = Math.max(names.length, init.featureNames.length)
  for (let f = 0; f < F; f++) {
    const m = init.featureNames[f],
      d = names[f]
    if (m === undefined) throw new RangeError(`init model: feature ${d} of the data is not one of the model's features`)
    if (d === undefined) throw new RangeError(`init model: feature ${m} is not in the data`)
    if (m !== d)
      throw new RangeError(
        `init model: feature ${f} is ${m} in the model but ${d} in the data (same names in the same order)`,
      )
    if (!compatible(init.featureTypes[f], types[f]))
      throw new RangeError(
        `init model: feature ${m} is of type ${init.featureTypes[f]} in the model, ${types[f]} in the data`,
      )
  }
  if (objective !== undefined && objective !== init.params.objective)
    throw new RangeError(
      `init model: objective ${init.params.objective}, the parameters say ${objective} (continue with the model's objective)`,
    )
  // A multiclass model continues with K trees per round for its K classes (its trees round-major).
  if (outputs !== undefined && outputs !== (init.numClass ?? 1))
    throw new RangeError(
      `init model: ${init.numClass ?? 1} output${init.numClass ? 's (num_class)' : ''} per row, the parameters say ${outputs} (num_class: continue with the model's)`,
    )
  return {
    trees: init.trees,
    baseScore: init.baseScore,
    margins: {
      // Rows with their own base margin start there (XGBoost's base_margin), the others at base_score.
      train: predictMargins(init, data.columns, undefined, data.baseMargin),
      valid: data.valid && predictMargins(init, data.valid.columns, undefined, data.valid.baseMargin),
    },
  }
}

/** A model to continue from, read from its file's contents, with its categorical dictionaries. */
export interface InitModel {
  booster: Booster
  /** The dictionaries its string features were coded with: the continuation codes them alike. */
  categories: Record<string, string[]>
}

/** Reads `data` (XGBoost JSON text or UBJSON bytes, ours or XGBoost's). Throws prefixed 'init model:'. */
export function readInitModel(data: string | Uint8Array): InitModel {
  try {
    const json = decodeModel(data)
    return { booster: fromXGBoostJson(json), categories: categoriesOf(json) }
  } catch (e) {
    throw new RangeError(`init model: ${(e as Error).message}`)
  }
}
