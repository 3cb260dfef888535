/**
 * Batch prediction of a table with a gblinear model file (ours or XGBoost's JSON): the table's
 * columns by the model's feature names, in table order → margins (GBLinear::Pred, float32) on the
 * CPU; with `contribs`, XGBoost's linear contributions (x_f·w_f per feature, then bias + base
 * margin), each row summing to its margin. N = rows, F = features.
 */
import { openSnapshot } from '../../table/index.ts'
import { httpFor } from '../../run/config.ts'
import type { PredictConfig, PredictResult } from '../../eval/predict.ts'
import { fromXGBoostJson } from './model-json.ts'
import { baseMargin } from './objective.ts'
import { readFeatureColumns } from './rows.ts'
import { predictMargins, transformAll, type LinearModel } from './train.ts'

/** Predicts every live row of the table. Throws naming a feature the table lacks. */
export async function runGblinearPrediction(config: PredictConfig): Promise<PredictResult> {
  const model = fromXGBoostJson(config.model)
  const http = httpFor(config, config.table)
  const snapshot = await openSnapshot(config.table, { version: config.version, ...http })
  const { columns, rows } = await readFeatureColumns(snapshot, model.featureNames, config.table, {
    workers: config.workers,
    http,
  })
  const margins = predictMargins(model, columns, rows)
  const result: PredictResult = {
    margins,
    predictions: transformAll(model, margins),
    rows: margins.length,
    version: snapshot.version,
    adapter: 'cpu (gblinear)',
  }
  if (!config.contribs) return result
  return { ...result, contribs: linearContribs(model, columns, rows), featureNames: model.featureNames }
}

/** XGBoost's gblinear pred_contribs: [N × (F + 1)] row-major, a missing value contributes 0. */
export function linearContribs(model: LinearModel, columns: Float32Array[], rows: number): Float32Array {
  const F = columns.length
  const out = new Float32Array(rows * (F + 1))
  const bias = Math.fround(model.bias + baseMargin(model.objective, model.baseScore))
  for (let i = 0; i < rows; i++) {
    for (let f = 0; f < F; f++) {
      const v = columns[f][i]
      if (!Number.isNaN(v)) out[i * (F + 1) + f] = v * model.weights[f]
    }
    out[i * (F + 1) + F] = bias
  }
  return out
}
