/**
 * Default search spaces and resources per model. GBDT: the seven parameters the SageMaker
 * Hyperband blog tunes; recsys: lr, embedding dim, layers, batch size, weight decay.
 * Resource = boosting rounds (gbdt, parameter num_round) or epochs (recsys, parameter epochs).
 */
import type { SweepModel } from './types.ts'

/** The parameter a trial's resource sets: Hyperband / ASHA / BOHB own it (it is dropped from their space). */
export const RESOURCE_PARAM: Readonly<Record<SweepModel, string>> = { gbdt: 'num_round', recsys: 'epochs' }

/** Default resource range (rounds / epochs) and reduction factor η per model. */
export const DEFAULT_RESOURCES: Readonly<
  Record<SweepModel, { minResource: number; maxResource: number; eta: number }>
> = {
  // 3 → 81 rounds with η = 3: four brackets (s_max = 3), rungs at 3, 9, 27, 81 rounds.
  gbdt: { minResource: 3, maxResource: 81, eta: 3 },
  // 1 → 9 epochs: three brackets (s_max = 2), rungs at 1, 3, 9 epochs.
  recsys: { minResource: 1, maxResource: 9, eta: 3 },
}

/** Trials of random / ASHA / TPE when a sweep does not say. */
export const DEFAULT_TRIALS = 20

/**
 * The default space JSON of `model` (ParamDomain objects; parse with parseSpace). Its resource
 * parameter (num_round / epochs) is what grid, random and TPE train each configuration to;
 * Hyperband, ASHA and BOHB replace it with their rung resources.
 */
export function defaultSpace(model: SweepModel): Record<string, unknown> {
  const r = DEFAULT_RESOURCES[model]
  if (model === 'gbdt') {
    return {
      num_round: { type: 'int', low: r.maxResource / r.eta, high: r.maxResource },
      eta: { type: 'loguniform', low: 0.03, high: 0.5 },
      alpha: { type: 'uniform', low: 0, high: 2 },
      min_child_weight: { type: 'loguniform', low: 0.5, high: 20 },
      max_depth: { type: 'int', low: 2, high: 10 },
      colsample_bylevel: { type: 'uniform', low: 0.3, high: 1 },
      colsample_bytree: { type: 'uniform', low: 0.5, high: 1 },
    }
  }
  return {
    epochs: { type: 'int', low: r.minResource, high: r.maxResource },
    lr: { type: 'loguniform', low: 1e-4, high: 1e-2 },
    embedding_dim: { type: 'categorical', choices: [8, 16, 32] },
    layers: { type: 'categorical', choices: [[64], [128, 64], [256, 128]] },
    batch_size: { type: 'categorical', choices: [1024, 2048, 4096] },
    weight_decay: { type: 'loguniform', low: 1e-6, high: 1e-2 },
    // weight_decay needs the decoupled-decay optimizer (recsys params refuse it with adam).
    optimizer: 'adamw',
  }
}
