/**
 * XGBoost's linear booster (gblinear) as a model family of the one driver: parameters → numeric
 * rows from the pinned snapshot (rows.ts) → coordinate descent on the CPU (train.ts; no kernel:
 * the session's device, if any, is not used) → XGBoost JSON model + the run manifest + per-round
 * metrics. One rank only.
 */
import { DeviceLostError } from '../../run/device-loss.ts'
import { rankCount, type RunResult, type TrainConfig, type TrainSummary } from '../../run/config.ts'
import { runManifest } from '../../run/manifest.ts'
import type { FamilyFit, ModelFamily, TrialSpec } from '../../run/family.ts'
import { rowKeyFields } from '../../data/row-key.ts'
import { toXGBoostJson } from './model-json.ts'
import { checkLabels, readLabels } from '../../eval/labels.ts'
import { evaluate as evaluateMetric, type MetricName } from '../../eval/metrics.ts'
import { GBLINEAR_PARAM_NAMES, parseParams, type GblinearParams, type LinearMetric } from './params.ts'
import { linearFeatures, loadLinearRows, type LinearRows } from './rows.ts'
import { predictMargins, trainLinear, transformAll, type Evaluate, type LinearModel } from './train.ts'
import { evalText } from '../../run/summary-text.ts'

/** What the family's adapter label says (the session's device, if any, is not used). */
export const GBLINEAR_ADAPTER = 'cpu (coordinate descent)'

/** What fitting returns. */
export interface GblinearTrained {
  model: LinearModel
  /** The final model's validation predictions, when the run asked (TrainInput.validScores). */
  validScores?: Float32Array
}

/** Parameters with the run seed applied (--seed sets params.seed unless the params give one). */
export function runParams(config: Pick<TrainConfig, 'params' | 'seed'>): GblinearParams {
  const raw = { ...(config.params ?? {}) }
  if (config.seed !== undefined && !('seed' in raw || 'random_state' in raw)) raw.seed = config.seed
  const p = parseParams(raw)
  if (raw.eval_metric === undefined && p.objective === 'binary:logistic') p.eval_metric = ['auc', 'logloss']
  return p
}

/** A trial's parameters: fixed, then the trial's, num_round = the resource, the sweep's metric among eval_metric. */
export function trialParams(spec: TrialSpec): GblinearParams {
  const p = runParams({ params: { ...spec.fixed, ...spec.config, num_round: spec.resource }, seed: spec.seed })
  const metric = spec.metric as LinearMetric
  if (!p.eval_metric.includes(metric)) p.eval_metric = [...p.eval_metric, metric]
  return p
}

/** XGBoost's validation metrics (src/eval) on transformed predictions. */
const evaluate: Evaluate = (metric, pred, labels, weights) =>
  evaluateMetric(metric as MetricName, pred, labels, weights)

const ONE_RANK = 'gblinear: trains on one rank (--ranks 1); coordinate descent here is not data-parallel'

function checkOneRank(config: TrainConfig): void {
  if (rankCount(config) > 1) throw new RangeError(ONE_RANK)
}

/** The family. */
export const gblinearFamily: ModelFamily<GblinearParams, LinearRows, GblinearTrained> = {
  name: 'gblinear',
  deviceLoss: 'rerun',
  paramNames: GBLINEAR_PARAM_NAMES,
  modelFile: () => 'model.json',
  describe: s => `${s.rounds} rounds of coordinate descent in ${s.train_seconds.toFixed(1)} s; ${evalText(s)}`,
  params: runParams,
  onRankWorkers: () => false,

  async precheck(snapshot, config, params) {
    checkOneRank(config)
    linearFeatures(snapshot.schema, config.label, config.features)
    if (config.splitKey) rowKeyFields(snapshot.schema, [], config.splitKey)
    checkLabels(params.objective, await readLabels(snapshot, config), config.label)
  },

  async load(input, params) {
    checkOneRank(input.config)
    const rows = await loadLinearRows(input, input.config.seed ?? params.seed)
    checkLabels(params.objective, rows.data.labels, input.config.label)
    input.onProgress({
      kind: 'stage',
      message: `loaded ${rows.rowsTrain} training rows, ${rows.rowsValid} validation rows, ${rows.data.columns.length} numeric features`,
    })
    return rows
  },

  async fit(rows, params, input, onEvaluation) {
    const t0 = performance.now()
    const onRound = (round: number, metrics: Record<string, number>): 'stop' | undefined => {
      input.onProgress({ kind: 'round', round, rounds: params.num_round, metrics, elapsedMs: performance.now() - t0 })
      if (input.stop?.obey(round + 1, 'round')) return 'stop'
      return onEvaluation?.(round, metrics) === 'stop' ? 'stop' : undefined
    }
    const run = (): GblinearTrained => {
      const model = trainLinear(rows.data, params, { onRound, evaluate })
      const valid = rows.data.valid
      if (!input.validScores || !valid) return { model }
      return { model, validScores: transformAll(model, predictMargins(model, valid.columns, valid.labels.length)) }
    }
    return {
      maxRecoveries: 0,
      open: async () => ({ backend: run, adapter: GBLINEAR_ADAPTER }),
      openRank: async () => {
        throw new RangeError(ONE_RANK)
      },
      run: async session => ({ done: session.backend() }),
      result: async (_session, done) => done,
      exhausted: reason => new DeviceLostError(`gblinear: ${reason}`),
    } satisfies FamilyFit<() => GblinearTrained, never, GblinearTrained, GblinearTrained>
  },

  async loadShared(input, fixed, onStage) {
    const { config } = input
    const what = `loading ${config.table}${config.version !== undefined ? ` version ${config.version}` : ''}`
    onStage(what)
    const rows = await this.load(
      {
        ...input,
        onProgress: () => {},
        onRead: (done, total) => onStage(`${what}: ${done} of ${total} rows`, total > 0 ? done / total : 1),
      },
      runParams({ params: fixed, seed: config.seed }),
    )
    if (!rows.data.valid)
      throw new RangeError(
        `sweep: no validation rows (validFraction ${config.validFraction} of ${rows.rowsTrain} rows); the metric needs some`,
      )
    onStage(
      `loaded ${rows.rowsTrain} training rows, ${rows.rowsValid} validation rows, ${rows.data.columns.length} features`,
    )
    return rows
  },

  async trial(shared, spec) {
    const params = trialParams(spec)
    checkLabels(params.objective, (shared as LinearRows).data.labels, 'label')
    return { params, data: shared as LinearRows }
  },

  finish(rows, trained, params, input, seconds) {
    const run = finishLinear(rows, trained.model, params, input.config, seconds)
    const labels = rows.data.valid?.labels
    return trained.validScores && labels ? { ...run, validation: { labels, scores: trained.validScores } } : run
  },
}

/** The run's model file, manifest, metrics and summary. */
function finishLinear(
  rows: LinearRows,
  model: LinearModel,
  params: GblinearParams,
  config: TrainConfig,
  seconds: number,
): RunResult<string> {
  const last = model.history[model.history.length - 1] ?? {}
  const summary: TrainSummary = {
    model: 'gblinear',
    auc: last.auc ?? null,
    logloss: last.logloss ?? null,
    rounds: model.rounds,
    best_iteration: model.bestIteration ?? model.rounds - 1,
    train_seconds: seconds,
    rows_train: rows.rowsTrain,
    rows_valid: rows.rowsValid,
    rows_per_second: seconds > 0 ? (rows.rowsTrain * model.rounds) / seconds : 0,
    adapter: GBLINEAR_ADAPTER,
  }
  const manifest = runManifest(
    config,
    {
      model: 'gblinear',
      plan: rows.plan,
      validPlan: rows.validPlan,
      seed: config.seed ?? params.seed,
      params,
      metrics: model.history,
      features: rows.features,
      skipped: rows.skipped,
      categorical: {},
    },
    summary,
  )
  return { model: toXGBoostJson(model), manifest, metrics: model.history, summary }
}
