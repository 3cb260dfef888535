/**
 * A GBDT run's export: the XGBoost model (categorical dictionaries in its attributes; JSON or
 * UBJSON), per-round metrics, the summary and the run's one manifest.
 */
import type { RunResult, TrainConfig, TrainSummary } from '../../run/config.ts'
import { runManifest, type RunManifest } from '../../run/manifest.ts'
import type { Dataset } from '../../eval/dataset.ts'
import { validationMetrics } from '../../eval/metrics.ts'
import type { GbdtTrained } from './family.ts'
import { CATEGORIES_ATTRIBUTE, withAttributes } from './model-attributes.ts'
import { encodeModel } from './model-file.ts'
import type { GbdtParams } from './types.ts'
import { toXGBoostJson } from './xgboost-json.ts'

/** The run's model, manifest, metrics and summary. */
export function finishGbdt(
  ds: Dataset,
  { booster, adapter }: GbdtTrained,
  params: GbdtParams,
  config: TrainConfig,
  seconds: number,
): RunResult<string | Uint8Array<ArrayBuffer>, TrainSummary, RunManifest> {
  const categories: Record<string, string> = Object.keys(ds.dictionaries).length
    ? { [CATEGORIES_ATTRIBUTE]: JSON.stringify(ds.dictionaries) }
    : {}
  const model = encodeModel(withAttributes(toXGBoostJson(booster), categories), config.modelFormat ?? 'json')
  // The summary's numbers are validation metrics; training-rows ones (eval train) stay in metrics.
  const last = validationMetrics(booster.history[booster.history.length - 1] ?? {})
  // Rounds, not trees: a multiclass round grows one tree per class.
  const rounds = booster.trees.length / (booster.numClass ?? 1)
  const summary: TrainSummary = {
    model: 'gbdt',
    auc: last.auc ?? null,
    logloss: last.logloss ?? null,
    ...(Object.keys(last).length ? { eval: { ...last } } : {}),
    rounds,
    best_iteration: booster.bestIteration,
    train_seconds: seconds,
    rows_train: ds.rowsTrain,
    rows_valid: ds.rowsValid,
    rows_per_second: seconds > 0 ? (ds.rowsTrain * rounds) / seconds : 0,
    adapter,
  }
  const manifest = runManifest(
    config,
    {
      model: 'gbdt',
      plan: ds.plan,
      validPlan: ds.validPlan,
      seed: config.seed ?? params.seed,
      // A multiclass run's num_class as trained (inferred from the labels when the parameters gave 0).
      params: booster.numClass === undefined ? params : { ...params, num_class: booster.numClass },
      metrics: booster.history,
      features: ds.features.map(f => ({ name: f.name, type: f.xgbType, delta_type: f.deltaType })),
      skipped: ds.skipped,
      categorical: Object.fromEntries(
        Object.entries(ds.dictionaries).map(([k, v]) => [
          k,
          {
            codes: v.length,
            encoding: `codes of the sorted training values (model attribute ${CATEGORIES_ATTRIBUTE}); unseen and null → missing`,
          },
        ]),
      ),
    },
    summary,
  )
  return { model, manifest, metrics: booster.history, summary }
}
