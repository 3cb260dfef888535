/**
 * One recommender training run, page side (window.snaptrain.train with model 'recsys', the CLI
 * through the page): config → parameters → scan plan → features and batches (data.ts) → GPU
 * model (or the CPU reference) → training loop → model file (the checkpoint layout of
 * checkpoint.ts: weights, optimizer state, feature layout and loop state behind a JSON header)
 * + run manifest + one metrics row per evaluation.
 */
import { version as SNAPTRAIN_VERSION } from '../../../package.json'
import { createLoader } from '../../data/loader.ts'
import { planScan } from '../../data/plan.ts'
import type { ScanPlan } from '../../data/types.ts'
import { openSnapshot } from '../../table/index.ts'
import { httpFor, type TrainConfig, type TrainProgress, type TrainSummary } from '../gbdt/train-run.ts'
import type { HttpOptions } from '../../table/types.ts'
import { manifestTable, type RunManifest } from '../manifest.ts'
import { createRefBackend, type ModelState, type RecsysBackend } from './backend.ts'
import { encodeCheckpoint } from './checkpoint.ts'
import { concatBatches, openRecsysData, type RecsysData } from './data.ts'
import { columnKind, featurize, tableMemory } from './features.ts'
import { initOptimizerState, initWeights } from './init.ts'
import { modelShapeOf, parameterCount } from './layout.ts'
import { parseRecsysParams } from './params.ts'
import { evaluationsUpTo, type MetricRow, type TrainLoopResult } from './train-loop.ts'
import { trainWithRecovery, type DeviceSession } from './recovery.ts'
import { checkRecsysMemory } from '../memory-budget.ts'
import type { RankContext } from '../../ranks/types.ts'
import { scaledParams } from './dist-lr.ts'
import { rankCount, ranksBackend, runOnRankWorkers, withRanks, type RanksSummary, type RecsysRankConfig } from './dist-run.ts'
import type { FeatureLayout, ModelBatch, ModelShape, RecsysParams } from './types.ts'

/** What to train: GBDT's config with model 'recsys'; `params` are the recommender's (params.ts). */
export type RecsysTrainConfig = TrainConfig & RecsysRankConfig & { model: 'recsys' }

/** The headline numbers: GBDT's fields (rounds = evaluations) plus the recommender's. */
export interface RecsysTrainSummary extends TrainSummary, Partial<RanksSummary> {
  /** Training rows (all epochs) per second of the training loop, evaluations included. */
  samples_per_second: number
  /** Epochs started (fewer than params.epochs after early stopping). */
  epochs: number
  /** Optimizer updates applied. */
  steps: number
  /**
   * Step of the evaluation whose weights the model holds when restore_best put them back (auc and
   * logloss are then that evaluation's), else null (the last step's weights and evaluation).
   */
  restored_best_step: number | null
}

/** The manifest with the recommender's extras. */
export interface RecsysManifest extends RunManifest {
  /** One line per embedding table: buckets, cardinality, MiB. */
  embedding_tables: string[]
  /** Parameter counts: embedding floats (R·D) and dense floats. */
  parameters: { embedding: number; dense: number }
  steps: number
  epochs: number
}

/** A finished run. */
export interface RecsysTrainResult {
  /** The model file (checkpoint.ts layout: magic SNAPRCK1, JSON header, tensors). */
  model: Uint8Array<ArrayBuffer>
  manifest: RecsysManifest
  /** One row per evaluation: step, epoch, train_loss, lr, auc, logloss (validation), elapsed_seconds. */
  metrics: Array<Record<string, number>>
  summary: RecsysTrainSummary
}

/** The model the loop trains and how it is named in the manifest. */
export interface RecsysBackendChoice { backend: RecsysBackend; adapter: string; dispose?: () => void }

/** Validated parameters with the run seed applied (--seed sets params.seed unless the params give one). */
export function recsysRunParams(config: Pick<TrainConfig, 'params' | 'seed'>): RecsysParams {
  const raw = { ...(config.params ?? {}) }
  if (config.seed !== undefined && !('seed' in raw)) raw.seed = config.seed
  return parseRecsysParams(raw)
}

/** Test and sweep hooks of runRecsysTraining (device-loss recovery, recovery.ts). */
export interface RecsysRunHooks {
  /** Called with each device the run opens (attempt 0 first, then one per recovery). */
  onDevice?: (device: GPUDevice, attempt: number) => void
  /** Evaluations between in-memory checkpoints (default: about one per epoch). */
  checkpointEvery?: number
  /** Device rebuilds allowed (default 2). */
  maxRecoveries?: number
}

/** Trains one recommender; `onProgress` hears the data stages and every evaluation. Throws naming the bad input. */
export async function runRecsysTraining(config: RecsysTrainConfig, onProgress: (p: TrainProgress) => void = () => {}, rank?: RankContext, hooks: RecsysRunHooks = {}): Promise<RecsysTrainResult> {
  const world = rankCount(config) // --ranks: GPU ranks run in rank workers (dist-run.ts, dist-rank.ts)
  if (world > 1 && !rank && (config.backend ?? 'gpu') === 'gpu') return runOnRankWorkers<RecsysTrainResult, RecsysTrainConfig>(world, config, onProgress)
  const params = recsysRunParams(config)
  const globalBatch = world > 1 && !rank ? { ...params, batch_size: world * params.batch_size } : params // in-thread ranks split R × B
  const { plan, validPlan, data, valid } = await loadRecsysData(config, globalBatch, onProgress)
  const layout = data.source.layout
  const shape = modelShapeOf(layout, params)
  onProgress({ kind: 'stage', message: `${layout.sparse.length} embedding tables (${tableMemory(layout, params.embedding_dim).join('; ')}), ${layout.denseInputs} dense inputs, ${valid.n} validation rows` })
  const ranked = world > 1 ? await ranksBackend(shape, params, { weights: initWeights(shape, params.seed), opt: initOptimizerState(shape, params) }, world, rank) : undefined
  const kind = config.backend ?? 'gpu'
  if (!ranked && kind === 'gpu' && hasWebGpu()) await checkRecsysMemory(shape, params, config.memoryBudget)
  const stepsPerEpoch = data.source.stepsPerEpoch
  const totalEvals = evaluationsUpTo(params.epochs * stepsPerEpoch, stepsPerEpoch, params.eval_every)
  const t0 = performance.now()
  // A lost device is rebuilt and the loop replays from the last checkpoint (recovery.ts), so rounds count by step.
  const { loop, session } = await trainWithRecovery({
    params: scaledParams(params, world), source: data.source, valid,
    onMetrics: row => onProgress({ kind: 'round', round: evaluationsUpTo(row.step, stepsPerEpoch, params.eval_every) - 1, rounds: totalEvals, metrics: progressMetrics(row), elapsedMs: row.elapsedMs }),
  }, {
    open: (state, attempt) => (ranked && attempt === 0 ? Promise.resolve(rankedSession(ranked)) : chooseBackend(kind, shape, params, state, d => hooks.onDevice?.(d, attempt))),
    checkpointEvery: hooks.checkpointEvery, maxRecoveries: hooks.maxRecoveries,
    onRecover: (step, reason) => onProgress({ kind: 'stage', message: `GPU device lost (${reason}); rebuilt it and resumed from the checkpoint at step ${step}` }),
  })
  try {
    const seconds = (performance.now() - t0) / 1000
    const model = encodeCheckpoint({ shape, params, layout, loop: loop.state, state: await session.backend.exportState() })
    return withRanks(finish({ config, params, plan, validPlan, layout, shape, loop, seconds, adapter: session.adapter, model, rowsValid: valid.n }), ranked?.backend)
  } finally {
    session.dispose?.()
  }
}

/** Ranked backends as a recovery session (no `lost`: a lost rank fails the run, see dist-run.ts). */
function rankedSession(c: RecsysBackendChoice): DeviceSession {
  return { backend: c.backend, adapter: c.adapter, dispose: () => { c.backend.destroy(); c.dispose?.() } }
}

function hasWebGpu(): boolean {
  return typeof navigator !== 'undefined' && Boolean(navigator.gpu)
}

/** The training plan, features and batches (data.ts) and the validation rows (a fraction or a second table). */
async function loadRecsysData(config: RecsysTrainConfig, params: RecsysParams, onProgress: (p: TrainProgress) => void)
  : Promise<{ plan: ScanPlan; validPlan?: ScanPlan; data: RecsysData; valid: ModelBatch }> {
  if (config.validTable && config.validFraction !== undefined) throw new RangeError('validTable and validFraction: give at most one')
  onProgress({ kind: 'stage', message: `planning ${config.table}` })
  const plan = await planTable(config.table, config.version, config)
  onProgress({ kind: 'stage', message: `feature statistics over ${plan.stats.rows} rows` })
  const data = await openRecsysData({ plan, label: config.label, features: config.features, validFraction: config.validFraction, workers: config.workers, shard: config.shard, http: httpFor(config, config.table) }, params)
  if (!config.validTable) return { plan, data, valid: data.valid }
  const validPlan = await planTable(config.validTable, config.validVersion, config)
  return { plan, validPlan, data, valid: await readValidTable(validPlan, data, params, config.workers, httpFor(config, config.validTable)) }
}

/** Plans every column (or label + features) of the table at `url`, with the run's filter. */
async function planTable(url: string, version: number | undefined, config: TrainConfig): Promise<ScanPlan> {
  const http = httpFor(config, url)
  const snapshot = await openSnapshot(url, { version, ...http })
  const columns = config.features ? [config.label, ...config.features.filter(f => f !== config.label)] : undefined
  const plan = await planScan(snapshot, { columns, label: config.label, filter: config.filter, ...http })
  if (plan.stats.rows === 0) throw new RangeError(config.filter ? `filter "${config.filter}" selects no rows of ${url} version ${snapshot.version}` : `${url} version ${snapshot.version} has no rows`)
  return plan
}

/** Every row of the validation table, featurized with the training layout. */
async function readValidTable(plan: ScanPlan, data: RecsysData, p: RecsysParams, workers?: number, http?: HttpOptions): Promise<ModelBatch> {
  for (const c of [data.kinds.label, ...Object.keys(data.kinds.spec)]) {
    if (!plan.columns.includes(c)) throw new RangeError(`validation table ${plan.tableUrl}: column '${c}' does not exist`)
  }
  const loader = createLoader(plan, { assign: { epoch: 0, worldSize: 1, rank: 0 }, batchSize: p.batch_size, spec: data.kinds.spec, workers, http })
  const parts: ModelBatch[] = []
  try {
    for await (const b of loader.batches()) parts.push(featurize(data.source.layout, b))
  } finally {
    await loader.close()
  }
  return concatBatches(parts, data.source.layout)
}

/**
 * The GPU model on a fresh device, or the CPU reference when asked (or when WebGPU is absent).
 * Fresh seeded weights either way (init.ts). GPU modules load lazily.
 */
async function chooseBackend(kind: 'gpu' | 'cpu', shape: ModelShape, params: RecsysParams, state?: ModelState,
  onDevice?: (device: GPUDevice) => void): Promise<DeviceSession> {
  if (kind === 'cpu' || !hasWebGpu()) {
    const backend = createRefBackend(shape, params)
    if (state) await backend.importState(state)
    return { backend, adapter: 'cpu (reference backend)', dispose: () => backend.destroy() }
  }
  const [{ requestDevice, adapterSummary, adapterLabel }, { PipelineCache }, { GpuModel }] = await Promise.all([
    import('../../gpu/device.ts'), import('../../gpu/pipeline-cache.ts'), import('./model-gpu.ts')])
  const { adapter, device } = await requestDevice()
  try {
    const initial = state ?? { weights: initWeights(shape, params.seed), opt: initOptimizerState(shape, params) }
    const backend = await GpuModel.create(new PipelineCache(device), shape, params, initial)
    onDevice?.(device)
    return { backend, adapter: adapterLabel(adapterSummary(adapter)), lost: device.lost, dispose: () => { backend.destroy(); device.destroy() } }
  } catch (e) {
    device.destroy()
    throw e
  }
}

/** Progress metrics of one evaluation (CLI prints them as name=value). */
function progressMetrics(row: MetricRow): Record<string, number> {
  const m: Record<string, number> = { train_loss: row.trainLoss }
  if (row.validAuc !== undefined) m.auc = row.validAuc
  if (row.validLogloss !== undefined) m.logloss = row.validLogloss
  return m
}

/** metrics.csv row of one evaluation. */
function metricsRow(row: MetricRow): Record<string, number> {
  const m: Record<string, number> = { step: row.step, epoch: row.epoch, train_loss: row.trainLoss, lr: row.lr }
  if (row.validAuc !== undefined) m.auc = row.validAuc
  if (row.validLogloss !== undefined) m.logloss = row.validLogloss
  m.elapsed_seconds = row.elapsedMs / 1000
  return m
}

interface Finished {
  config: TrainConfig; params: RecsysParams; plan: ScanPlan; validPlan?: ScanPlan; layout: FeatureLayout; shape: ModelShape
  loop: TrainLoopResult; seconds: number; adapter: string; model: Uint8Array<ArrayBuffer>; rowsValid: number
}

function finish(f: Finished): RecsysTrainResult {
  const metrics = f.loop.metrics.map(metricsRow)
  const last = f.loop.restored ?? f.loop.metrics[f.loop.metrics.length - 1]
  const best = f.loop.metrics.findIndex(m => m.step === f.loop.state.bestStep && f.loop.state.bestAuc !== null)
  const epochs = Math.min(f.params.epochs, f.loop.state.epoch + (f.loop.stoppedEarly ? 1 : 0))
  const rowsTrain = f.validPlan || f.config.validFraction === undefined ? f.plan.stats.rows : f.plan.stats.rows - f.rowsValid
  const perSecond = f.seconds > 0 ? f.loop.samples / f.seconds : 0
  const summary: RecsysTrainSummary = {
    model: 'recsys', auc: last?.validAuc ?? null, logloss: last?.validLogloss ?? null, rounds: metrics.length,
    best_iteration: best >= 0 ? best : metrics.length - 1, train_seconds: f.seconds, rows_train: rowsTrain, rows_valid: f.rowsValid,
    rows_per_second: perSecond, adapter: f.adapter, samples_per_second: perSecond, epochs, steps: f.loop.state.step,
    restored_best_step: f.loop.restored?.step ?? null,
  }
  return { model: f.model, manifest: buildManifest(f, metrics, summary), metrics, summary }
}

function buildManifest(f: Finished, metrics: Array<Record<string, number>>, s: RecsysTrainSummary): RecsysManifest {
  const { config, plan, layout, params } = f
  const validation: RunManifest['validation'] = f.validPlan ? { kind: 'table', table: manifestTable(f.validPlan, config.validTablePath) }
    : config.validFraction !== undefined ? { kind: 'fraction', fraction: config.validFraction, rows: f.rowsValid } : { kind: 'none' }
  const fields = plan.schema?.fields ?? []
  const deltaType = (name: string): string => JSON.stringify(fields.find(x => x.name === name)?.type ?? null).replace(/^"|"$/g, '')
  const features = [
    ...layout.sparse.map(x => ({ name: x.name, type: 'embedding', delta_type: deltaType(x.name) })),
    ...layout.dense.map(x => ({ name: x.name, type: x.log1p ? 'dense_log1p' : 'dense', delta_type: deltaType(x.name) })),
    ...layout.lists.map(x => ({ name: x.name, type: `list[${x.length}]`, delta_type: deltaType(x.name) })),
  ]
  const used = new Set([config.label, ...features.map(x => x.name)])
  const skipped = config.features ? [] : fields.filter(x => !used.has(x.name) && columnKind(x.type) === undefined).map(x => ({ name: x.name, reason: x.type === 'void' ? 'void (NullType) column: only nulls' : 'type has no model input' }))
  return {
    kind: 'snaptrain-run', model: 'recsys', snaptrain_version: SNAPTRAIN_VERSION, created: new Date().toISOString(),
    table: manifestTable(plan, config.tablePath), validation, columns: plan.columns, label: config.label, features, skipped_columns: skipped,
    categorical: Object.fromEntries(layout.sparse.map(x => [x.name, { codes: x.buckets, encoding: `hash32 of the value mod ${x.buckets} buckets (cardinality ${x.cardinality}); embedding rows ${x.tableOffset}…${x.tableOffset + x.buckets - 1}` }])),
    filter: config.filter ?? null, seed: params.seed, params: { ...params }, metrics, best_iteration: s.best_iteration,
    rounds: s.rounds, adapter: s.adapter, rows_train: s.rows_train, rows_valid: s.rows_valid, train_seconds: s.train_seconds,
    embedding_tables: tableMemory(layout, params.embedding_dim), parameters: parameterCount(f.shape), steps: s.steps, epochs: s.epochs,
  }
}
