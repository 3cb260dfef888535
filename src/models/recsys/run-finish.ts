/**
 * A recommender run's export: the model file (the checkpoint fitting read off the device), one
 * metrics row per evaluation, the summary and the run's one manifest (embedding tables, parameter
 * counts, where the time went).
 */
import type { TrainConfig } from '../../run/config.ts'
import { runManifest } from '../../run/manifest.ts'
import type { RecsysLoaded, RecsysTrained, RecsysTrainResult, RecsysTrainSummary } from './family.ts'
import { columnKind, tableMemory } from './features.ts'
import { modelShapeOf, parameterCount } from './layout.ts'
import { zeroTiming, type MetricRow } from './train-loop.ts'
import type { RecsysParams } from './types.ts'

/** metrics.csv row of one evaluation. */
function metricsRow(row: MetricRow): Record<string, number> {
  const m: Record<string, number> = { step: row.step, epoch: row.epoch, train_loss: row.trainLoss, lr: row.lr }
  if (row.validAuc !== undefined) m.auc = row.validAuc
  if (row.validLogloss !== undefined) m.logloss = row.validLogloss
  if (row.validGauc !== undefined) m.gauc = row.validGauc
  if (row.validCalibration !== undefined) m.calibration = row.validCalibration
  m.elapsed_seconds = row.elapsedMs / 1000
  return m
}

/** The run's model file, manifest, metrics and summary. */
export function finishRecsys(
  data: RecsysLoaded,
  t: RecsysTrained,
  params: RecsysParams,
  config: TrainConfig,
  seconds: number,
): RecsysTrainResult {
  const { loop } = t
  const metrics = loop.metrics.map(metricsRow)
  const last = loop.restored ?? loop.metrics[loop.metrics.length - 1]
  const best = loop.metrics.findIndex(m => m.step === loop.state.bestStep && loop.state.bestAuc !== null)
  const epochs = Math.min(params.epochs, loop.state.epoch + (loop.stoppedEarly ? 1 : 0))
  const rowsValid = data.valid.n
  const rowsTrain =
    data.validPlan || config.validFraction === undefined ? data.plan.stats.rows : data.plan.stats.rows - rowsValid
  const perSecond = seconds > 0 ? loop.samples / seconds : 0
  const summary: RecsysTrainSummary = {
    model: 'recsys',
    auc: last?.validAuc ?? null,
    logloss: last?.validLogloss ?? null,
    gauc: last?.validGauc ?? null,
    calibration: last?.validCalibration ?? null,
    rounds: metrics.length,
    best_iteration: best >= 0 ? best : metrics.length - 1,
    train_seconds: seconds,
    rows_train: rowsTrain,
    rows_valid: rowsValid,
    rows_per_second: perSecond,
    adapter: t.adapter,
    samples_per_second: perSecond,
    epochs,
    steps: loop.state.step,
    restored_best_step: loop.restored?.step ?? null,
    timing: {
      stats_s: data.statsSeconds ?? 0,
      ...(t.timing ?? { ...zeroTiming(), checkpoint_s: 0, setup_s: 0, export_s: 0 }),
    },
    ...(data.source.reads ? { loader_reads: data.source.reads() } : {}),
  }
  const { layout, plan } = data
  const fields = plan.schema?.fields ?? []
  const deltaType = (name: string): string =>
    JSON.stringify(fields.find(x => x.name === name)?.type ?? null).replace(/^"|"$/g, '')
  const features = [
    ...layout.sparse.map(x => ({ name: x.name, type: 'embedding', delta_type: deltaType(x.name) })),
    ...layout.dense.map(x => ({
      name: x.name,
      type: x.log1p ? 'dense_log1p' : 'dense',
      delta_type: deltaType(x.name),
    })),
    ...layout.lists.map(x => ({ name: x.name, type: `list[${x.length}]`, delta_type: deltaType(x.name) })),
    ...(layout.bags ?? []).map(x => ({ name: x.name, type: `bag_${x.pooling}`, delta_type: deltaType(x.name) })),
  ]
  const used = new Set([config.label, ...features.map(x => x.name)])
  const skipped = config.features
    ? []
    : fields
        .filter(x => !used.has(x.name) && columnKind(x.type) === undefined)
        .map(x => ({
          name: x.name,
          reason: x.type === 'void' ? 'void (NullType) column: only nulls' : 'type has no model input',
        }))
  const manifest = runManifest(
    config,
    {
      model: 'recsys',
      plan,
      validPlan: data.validPlan,
      splitKey: data.splitKey,
      seed: params.seed,
      params,
      metrics,
      features,
      skipped,
      categorical: Object.fromEntries([
        ...layout.sparse.map(x => [
          x.name,
          {
            codes: x.buckets,
            encoding: `hash32 of the value mod ${x.buckets} buckets (cardinality ${x.cardinality}); embedding rows ${x.tableOffset}…${x.tableOffset + x.buckets - 1}`,
          },
        ]),
        ...(layout.bags ?? []).map(x => [
          x.name,
          {
            codes: x.buckets,
            encoding: `hash_list: each item's hash32 mod ${x.buckets} buckets (cardinality ${x.cardinality}), ${x.pooling} of the items' embeddings; embedding rows ${x.tableOffset}…${x.tableOffset + x.buckets - 1}`,
          },
        ]),
      ]),
    },
    summary,
    {
      embedding_tables: tableMemory(layout, params.embedding_dim),
      parameters: parameterCount(modelShapeOf(layout, params)),
      steps: summary.steps,
      epochs: summary.epochs,
      timing: summary.timing,
      ...(summary.loader_reads ? { loader_reads: summary.loader_reads } : {}),
    },
  )
  return { model: t.model, manifest, metrics, summary }
}
