/**
 * The one prediction entry point of both families: a model file with the recommender's
 * checkpoint magic goes to recsys/predict-run.ts (margins are then its logits), anything else is
 * an XGBoost model for gbdt/predict-run.ts. The page API and the CLI come here, so neither
 * family's predictor knows the other.
 */
import type { PredictConfig, PredictResult } from './gbdt/predict-run.ts'
import { decodeCheckpoint, MAGIC } from './recsys/checkpoint.ts'

export type { PredictConfig, PredictResult }

/** True when `model` is a recommender's model file (checkpoint magic), not an XGBoost model. */
export function isRecsysModel(model: PredictConfig['model']): model is Uint8Array<ArrayBuffer> {
  return typeof model !== 'string' && new TextDecoder().decode(model.subarray(0, 8)) === MAGIC
}

/** Checks a recommender model file in full (header, tensors); throws naming `where` and the fault. */
export function checkRecsysModel(bytes: Uint8Array, where: string): void {
  decodeCheckpoint(bytes, where)
}

/** Predicts every live row of the table with the model's family. Throws naming a feature the table lacks. */
export async function runPrediction(config: PredictConfig): Promise<PredictResult> {
  if (isRecsysModel(config.model)) return (await import('./recsys/predict-run.ts')).runRecsysPrediction(config)
  return (await import('./gbdt/predict-run.ts')).runPrediction(config)
}
