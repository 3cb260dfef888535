/**
 * Explanations of a finished GBDT run, page side (window.snaptrain.explain, the page's charts
 * after a single run): feature importance of every get_score type from the model, and SHAP
 * values (TreeSHAP) of up to `rows` of the run's validation rows, on the tree_shap kernel as
 * `predict --contribs` computes them (the CPU reference for a CPU run or without WebGPU: it takes
 * seconds per 2,000 rows of a 100-tree model), and the partial dependence of the prediction on
 * each monotone-constrained feature over some of them (CPU predictor). The rows are read again
 * through the family's own load path with the run's config: the same table version, filter, seed and
 * split select the same validation rows the run evaluated. V = validation rows, n = explained
 * rows, F = features.
 */
import { openTables } from '../../run/pipeline.ts'
import type { TrainConfig } from '../../run/config.ts'
import { gbdtFamily } from './family.ts'
import { allImportances, type ImportanceType } from './importance.ts'
import { gpuPredict } from './predict-run.ts'
import { topFeatures, treeShap, type FeatureImpact } from './shap.ts'
import { decodeModel } from './model-file.ts'
import type { Booster } from './types.ts'
import { fromXGBoostJson } from './xgboost-json.ts'
import { resolveConstraints } from './constraints.ts'
import { monotoneDependence, PD_ROWS, type PartialDependence } from './partial-dependence.ts'

/** Validation rows explained by default: TreeSHAP costs rows × trees × leaves × depth². */
export const EXPLAIN_ROWS = 2000

/** What to explain (structured-cloneable). */
export interface ExplainConfig {
  /** The run's config as given to train (table URLs already resolved). */
  run: TrainConfig
  /** The run's model file: XGBoost JSON text, or UBJSON bytes. */
  model: string | Uint8Array
  /** Most validation rows to explain, evenly spaced over them; default EXPLAIN_ROWS. */
  rows?: number
}

/** A run's explanations. */
export interface Explanation {
  /** The model's features, in column order (what F indexes). */
  features: string[]
  /** get_score of every type: feature → score, features never split on absent. */
  importance: Record<ImportanceType, Record<string, number>>
  /**
   * Float32Array, n × K × (F + 1), row-major (K = `classes`, 1 but for multiclass: XGBoost's
   * (n, K, F + 1)): SHAP value per feature, then the bias; a row's class sums to its margin.
   */
  shap: Float32Array
  /** A multiclass model's K (shap holds K × (F + 1) values a row); absent for one output per row. */
  classes?: number
  /** Every feature's mean |SHAP| over the n rows (multiclass: summed over the classes), largest first (the summary's bars). */
  meanAbsShap: FeatureImpact[]
  /** Multiclass: K lists, class k's mean |SHAP| of every feature over the n rows, largest first (the summary's bars for one class). */
  meanAbsShapByClass?: FeatureImpact[][]
  /** A multiclass model's label values (class k is labelValues[k]; Booster.labelValues), when its label had them. */
  labelValues?: Array<string | number>
  /** Float32Array, n × F, row-major: the explained rows' feature values (NaN = missing; categoricals as codes). */
  values: Float32Array
  /**
   * The categorical (string) features' categories by feature name: code c of `values` is
   * categories[name][c] (the run's dictionary: the training values sorted); absent without any.
   */
  categories?: Record<string, string[]>
  /** n: rows explained. */
  rows: number
  /** V: the run's validation rows. */
  validRows: number
  /** Where the SHAP values were computed (the adapter, or the CPU reference). */
  adapter: string
  /**
   * Partial dependence of the prediction on each monotone-constrained feature, over at most
   * PD_ROWS of the n explained rows (partial-dependence.ts); absent without monotone_constraints
   * or for a multiclass model.
   */
  partialDependence?: PartialDependence[]
}

/**
 * Explains the model of a run with `config.run`. Throws when the run has no validation rows or
 * the model's features are not the run's.
 */
export async function runExplain(config: ExplainConfig): Promise<Explanation> {
  const limit = config.rows ?? EXPLAIN_ROWS
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`explain rows: must be a whole number ≥ 1, got ${limit}`)
  const booster = fromXGBoostJson(decodeModel(config.model))
  const importance = allImportances(booster)
  const run = config.run
  const params = gbdtFamily.params(run)
  const input = { config: run, onProgress: () => {}, hooks: {}, ...(await openTables(run)) }
  const { dataset } = await gbdtFamily.load(input, params)
  const names = dataset.features.map(f => f.name)
  if (names.join('\u0000') !== booster.featureNames.join('\u0000'))
    throw new RangeError(
      `explain: the model's features (${booster.featureNames.join(', ')}) are not the run's (${names.join(', ')})`,
    )
  const valid = dataset.data.valid
  if (!valid || valid.labels.length === 0)
    throw new RangeError(`explain: the run on ${run.table} has no validation rows to explain`)
  const columns = evenRows(valid.columns, valid.labels.length, limit)
  const n = columns[0]?.length ?? 0
  const F = names.length
  const values = new Float32Array(n * F)
  for (let f = 0; f < F; f++) for (let i = 0; i < n; i++) values[i * F + f] = columns[f][i]
  const { contribs, adapter } =
    run.backend === 'cpu'
      ? { contribs: treeShap(booster, columns), adapter: 'cpu (reference)' }
      : await gpuPredict(booster, columns, true)
  const shap = contribs!
  const { monotone } = resolveConstraints(params, names)
  const categories = Object.fromEntries(
    names.filter(n => dataset.dictionaries[n]).map(n => [n, dataset.dictionaries[n]]),
  )
  return {
    features: names,
    importance,
    ...shapSummary(booster, shap),
    values,
    ...(Object.keys(categories).length ? { categories } : {}),
    rows: n,
    validRows: valid.labels.length,
    adapter,
    ...(monotone && booster.numClass === undefined
      ? { partialDependence: monotoneDependence(booster, evenRows(columns, n, PD_ROWS), names, monotone) }
      : {}),
  }
}

/**
 * The SHAP part of an explanation from the booster's SHAP values `shap` (n × K × (F + 1)): the
 * values, mean |SHAP| per feature (multiclass: summed over the classes, and per class) and a
 * multiclass model's K and label values.
 */
export function shapSummary(
  booster: Pick<Booster, 'featureNames' | 'numClass' | 'labelValues'>,
  shap: Float32Array,
): Pick<Explanation, 'shap' | 'classes' | 'meanAbsShap' | 'meanAbsShapByClass' | 'labelValues'> {
  const names = booster.featureNames,
    F = names.length,
    K = booster.numClass
  return {
    shap,
    meanAbsShap: topFeatures(shap, names, F, K ?? 1),
    ...(K !== undefined
      ? {
          classes: K,
          meanAbsShapByClass: Array.from({ length: K }, (_, c) => topFeatures(shap, names, F, K, c)),
          ...(booster.labelValues ? { labelValues: booster.labelValues } : {}),
        }
      : {}),
  }
}

/** At most `limit` of the `rows` rows, evenly spaced (table order is often sorted: a prefix would be biased). */
export function evenRows(columns: Float32Array[], rows: number, limit: number): Float32Array[] {
  const n = Math.min(rows, limit)
  return columns.map(c => Float32Array.from({ length: n }, (_, i) => c[Math.floor((i * rows) / n)]))
}
