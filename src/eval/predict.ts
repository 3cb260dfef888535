/**
 * What a prediction of a table is given and returns, for every family (models/predict.ts picks
 * the family by the model file), and the one rule naming a model feature the table lacks.
 * N = rows, F = features.
 */
import type { TableAccess } from '../storage/types.ts'
import type { HttpOptions, StructField, StructType } from '../table/types.ts'

/** What to predict (structured-cloneable). */
/**
 * How far a prediction is (window.snaptrain.predict's onProgress, the CLI's stderr): a stage, and
 * while rows are scored the rows done of the total.
 */
export interface PredictProgress {
  message: string
  done?: number
  total?: number
}

export interface PredictConfig {
  /**
   * The model file's contents: XGBoost JSON text (NaN tokens allowed) or UBJSON bytes
   * (model-file.ts), or a recommender's model.bin (recsys/checkpoint.ts, told by its magic).
   */
  model: string | Uint8Array<ArrayBuffer>
  /** Table root URL. */
  table: string
  version?: number
  /**
   * GBDT: base margin column (--base-margin; XGBoost's DMatrix base_margin): each row's margin
   * starts here instead of at the model's base_score.
   */
  baseMargin?: string
  /** CPU reference predictor instead of the GPU kernel. */
  cpu?: boolean
  /** Also SHAP values per row and feature (XGBoost pred_contribs). */
  contribs?: boolean
  workers?: number
  /** Extra request headers (e.g. a bearer token), sent only to the origin of `table`; never returned. */
  headers?: Record<string, string>
  /** Origins besides the table's own that its files may come from (HttpOptions.allowOrigins); default any. */
  allowOrigins?: string[]
  /** HttpOptions.allowInsecureHttp for the table's requests (`--allow-insecure-http`). */
  http?: Pick<HttpOptions, 'allowInsecureHttp'>
  /** A governed table's access (run/config.ts TrainConfig.access); never returned. */
  access?: TableAccess
}

/**
 * Margins (a recommender's: logits) and predictions, one per table row in table order; a
 * multiclass GBDT's K per row (K = `classes`; 1 otherwise).
 */
export interface PredictResult {
  /** Float32Array, N × K row-major: raw scores (XGBoost output_margin). */
  margins: Float32Array
  /** Float32Array, length N: after the objective's transform; multiclass: the class (argmax) of each row. */
  predictions: Float32Array
  /** Multiclass only: K, the classes. */
  classes?: number
  /** Multiclass only: Float32Array, N × K row-major: the softmax probabilities (XGBoost multi:softprob). */
  probabilities?: Float32Array
  /** Multiclass only, when the model has them: the label value of each class (a prediction k means labelValues[k]). */
  labelValues?: Array<string | number>
  rows: number
  version: number
  adapter: string
  /**
   * With `contribs`: Float32Array [N × K × (F + 1)] row-major, φ per feature in `featureNames`
   * order then the bias, per class (XGBoost's (N, K, F + 1)); each row's class sums to its margin.
   */
  contribs?: Float32Array
  /** With `contribs`: the model's feature names (the contribution columns). */
  featureNames?: string[]
  /** With `contribs`: the features with the largest mean |φ| over the rows (10 at most). */
  topFeatures?: Array<{ feature: string; mean_abs_shap: number }>
}

/** The table's column a model feature reads; throws naming the feature, the table and its columns. */
export function modelColumn(schema: StructType, name: string, table: string): StructField {
  const field = schema.fields.find(f => f.name === name)
  if (!field)
    throw new RangeError(
      `model feature ${name}: no such column in ${table} (columns: ${schema.fields.map(f => f.name).join(', ')})`,
    )
  return field
}
