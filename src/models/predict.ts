/**
 * The one prediction entry point of every family: the registry (registry.ts familyOfModel) tells
 * whose model file it is — a recommender's checkpoint magic (margins are then its logits), else an
 * XGBoost model — and that family's predictor is loaded. The page API and the CLI come here, so no
 * family's predictor knows another.
 */
import type { PredictConfig, PredictProgress, PredictResult } from '../eval/predict.ts'
import { decodeCheckpoint, MAGIC } from './recsys/checkpoint.ts'
import { familyOfModel } from './registry.ts'

export type { PredictConfig, PredictProgress, PredictResult }

/** True when `model` is a recommender's model file (checkpoint magic), not an XGBoost model. */
export function isRecsysModel(model: PredictConfig['model']): model is Uint8Array<ArrayBuffer> {
  return typeof model !== 'string' && new TextDecoder().decode(model.subarray(0, 8)) === MAGIC
}

/** Checks a recommender model file in full (header, tensors); throws naming `where` and the fault. */
export function checkRecsysModel(bytes: Uint8Array, where: string): void {
  decodeCheckpoint(bytes, where)
}

/**
 * Predicts every live row of the table with the model's family; `onProgress` hears its stages and
 * rows scored. Throws naming a feature the table lacks.
 */
export async function runPrediction(
  config: PredictConfig,
  onProgress?: (p: PredictProgress) => void,
): Promise<PredictResult> {
  return (await familyOfModel(config.model).loadPredict())(config, onProgress)
}
