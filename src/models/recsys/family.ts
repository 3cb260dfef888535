/**
 * The recommender as a model family of the one run (src/run/pipeline.ts) and the one sweep trial
 * runner: parameters → the scan plan of the pinned snapshot → features and batches (data.ts; a
 * sweep: its in-memory rows, memory.ts) → GPU model (or the CPU reference) →
 * training loop under the 'resume' device-loss policy (recovery.ts) → model file (the checkpoint
 * layout of checkpoint.ts: weights, optimizer state, feature layout and loop state behind a JSON
 * header) + the run manifest + one metrics row per evaluation.
 */
import { createLoader } from '../../data/loader.ts'
import type { ScanPlan } from '../../data/types.ts'
import type { HttpOptions } from '../../table/types.ts'
import { httpFor, rankCount, type TrainConfig, type TrainSummary } from '../../run/config.ts'
import type { RunManifest } from '../../run/manifest.ts'
import type { FamilyFit, ModelFamily, TrialSpec } from '../../run/family.ts'
import type { FitBackend, SessionDevice } from '../../run/session.ts'
import { loadRecsysTable, type RecsysTable } from './memory.ts'
import { createRefBackend, type ModelState, type RecsysBackend } from './backend.ts'
import { encodeCheckpoint } from './checkpoint.ts'
import {
  concatBatches,
  openRecsysData,
  planRecsysTable,
  withSplitKey,
  type LoaderRead,
  type RecsysData,
  type TrainSource,
} from './data.ts'
import { addGroupColumn, classifyColumns, featurize, tableMemory } from './features.ts'
import { initOptimizerState, initWeights } from './init.ts'
import { modelShapeOf } from './layout.ts'
import { parseRecsysParams, RECSYS_PARAM_NAMES } from './params.ts'
import { evaluationsUpTo, predictAll, type MetricRow, type TrainLoopResult } from './train-loop.ts'
import {
  restoreKept,
  resumeExhausted,
  runSegments,
  type RecsysCheckpoint,
  type RunTiming,
  type SegmentedResult,
} from './recovery.ts'
import type { DeviceSession as RunSession } from '../../run/device-loss.ts'
import { checkRecsysMemory } from '../memory-budget.ts'
import { checkLabels, readLabels } from '../../eval/labels.ts'
import { RanksBackend, ranksBackend, scaledParams, withRanks, type RanksSummary } from './ranks.ts'
import { finishRecsys } from './run-finish.ts'
import type { FeatureLayout, ModelBatch, ModelShape, RecsysParams } from './types.ts'
import { rowKeyFields } from '../../data/row-key.ts'

/** Why calibration is reported but never optimised (the sweep's metric check says so). */
export { CALIBRATION_NOT_A_TARGET } from './metrics.ts'

/** What to train: the run's config with model 'recsys'; `params` are the recommender's (params.ts). */
export type RecsysTrainConfig = TrainConfig & { model: 'recsys' }

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
  /** Grouped AUC over params.gauc_group (null without one or without validation rows). */
  gauc: number | null
  /** Mean validation prediction / positive rate (null without validation rows). */
  calibration: number | null
  /** Where the run's time went (RecsysTiming). */
  timing: RecsysTiming
  /**
   * What the loader read in each pass over the table — feature statistics, validation rows, each
   * training epoch: units, bytes fetched, epoch-cache hits and misses (data.ts LoaderRead); absent
   * when the batches came from memory (a sweep's trials).
   */
  loader_reads?: LoaderRead[]
}

/**
 * Where a run's time went, seconds: the feature-statistics pass (with planning and the
 * validation rows' featurization; before train_seconds), then train_seconds = setup (device,
 * model, weight upload) + the loop's split (train-loop.ts LoopTiming; loop_s its wall time) +
 * checkpoint captures between segments + the final export (weights read back, model file).
 */
export interface RecsysTiming extends RunTiming {
  stats_s: number
  setup_s: number
  export_s: number
}

/** The manifest with the recommender's extras. */
export interface RecsysManifest extends RunManifest {
  /** One line per embedding table: buckets, cardinality, MiB. */
  embedding_tables: string[]
  /** Parameter counts: embedding floats (R·D) and dense floats. */
  parameters: { embedding: number; dense: number }
  steps: number
  epochs: number
  /** Where the run's time went (the summary's timing). */
  timing: RecsysTiming
  /** The summary's loader_reads. */
  loader_reads?: LoaderRead[]
}

/** A finished run. */
export interface RecsysTrainResult {
  /** The model file (checkpoint.ts layout: magic SNAPRCK1, JSON header, tensors). */
  model: Uint8Array<ArrayBuffer>
  manifest: RecsysManifest
  /** One row per evaluation: step, epoch, train_loss, lr, auc, logloss, gauc, calibration (validation), elapsed_seconds. */
  metrics: Array<Record<string, number>>
  summary: RecsysTrainSummary
  /** The final weights' validation scores and labels, when asked for (RunResult.validation). */
  validation?: { labels: Float32Array; scores: Float32Array }
}

/** The loaded rows: the plans, the training source, the validation rows, the feature layout. */
export interface RecsysLoaded {
  plan: ScanPlan
  /** Key columns of the validation split (row-key.ts), when a fraction is split off. */
  splitKey?: string[]
  validPlan?: ScanPlan
  source: TrainSource
  valid: ModelBatch
  layout: FeatureLayout
  /** Seconds of planning, the feature-statistics pass and the validation rows (RecsysTiming.stats_s). */
  statsSeconds?: number
}

/** What training returns: the loop's result, the live session (the family disposes it) and the model file. */
export interface RecsysTrained {
  loop: TrainLoopResult
  adapter: string
  model: Uint8Array<ArrayBuffer>
  ranks?: RanksBackend
  /** The time split of train (stats_s filled in by finish). */
  timing?: Omit<RecsysTiming, 'stats_s'>
  /** The final weights' validation predictions (V), when the run asked for them (TrainInput.validScores). */
  validScores?: Float32Array
}

/** Validated parameters with the run seed applied (--seed sets params.seed unless the params give one). */
export function recsysRunParams(config: Pick<TrainConfig, 'params' | 'seed'>): RecsysParams {
  const raw = { ...(config.params ?? {}) }
  if (config.seed !== undefined && !('seed' in raw)) raw.seed = config.seed
  return parseRecsysParams(raw)
}

/**
 * A sweep trial's parameters: fixed, then the trial's, epochs = the requested resource. Unless
 * set, eval_every = steps per epoch, so the loop evaluates exactly at epoch ends (the reports).
 * Not a huge eval_every: the GPU model sizes its loss read-back buffer by it.
 */
export function recsysTrialParams(spec: TrialSpec, stepsPerEpoch?: number): RecsysParams {
  const given = spec.fixed?.eval_every !== undefined || spec.config.eval_every !== undefined
  const every = !given && stepsPerEpoch ? { eval_every: stepsPerEpoch } : {}
  return recsysRunParams({
    params: { ...spec.fixed, ...spec.config, ...every, epochs: spec.resource },
    seed: spec.seed,
  })
}

/** The family. */
export const recsysFamily: ModelFamily<RecsysParams, RecsysLoaded, RecsysTrained> = {
  name: 'recsys',
  deviceLoss: 'resume',
  paramNames: RECSYS_PARAM_NAMES,
  modelFile: () => 'model.bin',
  modelExports: async model => (await import('./export.ts')).runExports(model as Uint8Array),
  describe(summary) {
    const r = summary as RecsysTrainSummary
    return (
      `${r.steps} steps (${r.epochs} epochs, ${r.rounds} evaluations) in ${r.train_seconds.toFixed(1)} s on ${r.adapter}; ` +
      `${Math.round(r.samples_per_second)} samples/s; auc ${r.auc ?? '-'} logloss ${r.logloss ?? '-'}` +
      `${(r.gauc ?? null) === null ? '' : ` gauc ${r.gauc}`} calibration ${r.calibration ?? '-'}` +
      `${r.restored_best_step === null ? '' : ` (restore_best: weights of the evaluation at step ${r.restored_best_step})`}` +
      (r.timing ? `; ${timingLine(r.timing)}` : '')
    )
  },
  params: recsysRunParams,
  // GPU ranks run in rank workers; CPU reference ranks run in this thread (ranks.ts).
  onRankWorkers: config => (config.backend ?? 'gpu') === 'gpu',

  /**
   * Label and features exist and have model inputs, per-column params (buckets, log1p) name
   * feature columns of the right kind, the gauc_group column exists, the filter keeps rows, and
   * the labels are 0/1 without nulls.
   */
  async precheck(snapshot, config, params) {
    const kinds = classifyColumns(snapshot.schema.fields, config.label, config.features)
    if (config.splitKey) rowKeyFields(snapshot.schema, [], config.splitKey) // names the bad --split-key column
    try {
      addGroupColumn(kinds, snapshot.schema.fields, params.gauc_group)
    } catch (e) {
      throw new RangeError(`--params: ${(e as Error).message}`)
    }
    if (params.buckets && typeof params.buckets === 'object') {
      for (const c of Object.keys(params.buckets))
        if (!kinds.sparse.includes(c))
          throw new RangeError(
            `--params: buckets.${c}: not an embedding (id/categorical) feature column (those: ${kinds.sparse.join(', ')})`,
          )
    }
    for (const c of params.log1p)
      if (!kinds.dense.includes(c))
        throw new RangeError(`--params: log1p: '${c}' is not a dense feature column (those: ${kinds.dense.join(', ')})`)
    checkLabels('binary:logistic', await readLabels(snapshot, config), config.label)
  },

  async load(input, params) {
    const { config } = input
    const world = rankCount(config)
    // In-thread ranks (CPU reference) split a global batch of R × B rows between them.
    const p = world > 1 && !input.rank ? { ...params, batch_size: world * params.batch_size } : params
    const t0 = performance.now()
    const plan = await planRecsysTable(input.snapshot, config.table, config, params.gauc_group)
    input.onProgress({ kind: 'stage', message: `feature statistics over ${plan.stats.rows} rows` })
    const data = await openRecsysData(
      {
        plan,
        label: config.label,
        features: config.features,
        validFraction: config.validFraction,
        workers: config.workers,
        shard: config.shard,
        http: httpFor(config, config.table),
      },
      p,
    )
    const layout = data.source.layout
    const splitKey = withSplitKey(plan, data.kinds, config.validFraction).rowKey?.map(f => f.name)
    const loaded: RecsysLoaded = { plan, source: data.source, valid: data.valid, layout, splitKey }
    if (config.validTable) {
      loaded.validPlan = await planRecsysTable(input.validSnapshot!, config.validTable, config, params.gauc_group)
      loaded.valid = await readValidTable(loaded.validPlan, data, p, config.workers, httpFor(config, config.validTable))
    }
    loaded.statsSeconds = (performance.now() - t0) / 1000
    input.onProgress({
      kind: 'stage',
      message: `${layout.sparse.length} embedding tables (${tableMemory(layout, params.embedding_dim).join('; ')}), ${layout.denseInputs} dense inputs, ${loaded.valid.n} validation rows`,
    })
    return loaded
  },

  async warm(device, params, { config, snapshot }) {
    if (rankCount(config) > 1) return // in-thread ranks: the CPU reference
    const kinds = classifyColumns(snapshot.schema.fields, config.label, config.features)
    await (await import('./gpu-warm.ts')).warmGpuModel(device.cache, kinds, params)
  },

  async fit(data, params, input, onEvaluation) {
    const shape = modelShapeOf(data.layout, params)
    const world = rankCount(input.config)
    const initial = () => ({ weights: initWeights(shape, params.seed), opt: initOptimizerState(shape, params) })
    const stepsPerEpoch = data.source.stepsPerEpoch
    const totalEvals = evaluationsUpTo(params.epochs * stepsPerEpoch, stepsPerEpoch, params.eval_every)
    let setupMs = 0
    const timed = async <T>(f: () => Promise<T>): Promise<T> => {
      const t = performance.now()
      try {
        return await f()
      } finally {
        setupMs += performance.now() - t
      }
    }
    const ranked = (r: RunSession<RanksBackend>): FitBackend<RecsysBackend> => ({
      backend: r.backend,
      adapter: r.adapter,
      dispose: () => {
        r.backend.destroy()
        r.dispose?.()
      },
    })
    // A lost device is rebuilt and the loop replays from the last checkpoint (recovery.ts), so rounds count by step.
    const run = runSegments(
      {
        params: scaledParams(params, world),
        source: data.source,
        valid: data.valid,
        onMetrics: row =>
          input.onProgress({
            kind: 'round',
            round: evaluationsUpTo(row.step, stepsPerEpoch, params.eval_every) - 1,
            rounds: totalEvals,
            metrics: progressMetrics(row),
            elapsedMs: row.elapsedMs,
            steps: { done: row.step, total: params.epochs * stepsPerEpoch },
          }),
        onEpochEnd:
          onEvaluation && ((epoch, row) => (onEvaluation(epoch, progressMetrics(row)) === 'stop' ? 'stop' : undefined)),
        ...(input.stop ? { shouldStop: (step: number) => input.stop!.obey(step, 'step') } : {}),
      },
      input.hooks.checkpointEvery,
    )
    return {
      maxRecoveries: 2,
      // In-thread ranks (CPU reference, R > 1) split each global batch between them (ranks.ts).
      open: (device, from) =>
        timed(async () =>
          world > 1 && !from
            ? ranked(await ranksBackend(shape, params, initial(), world))
            : modelOn(device, shape, params, from?.state, from),
        ),
      openRank: rank => timed(async () => ranked(await ranksBackend(shape, params, initial(), world, rank))),
      run,
      async result(session, loop) {
        const t = performance.now()
        const model = encodeCheckpoint({
          shape,
          params,
          layout: data.layout,
          loop: loop.state,
          state: await session.backend.exportState(),
        })
        const timing = { ...loop.timing, setup_s: setupMs / 1000, export_s: (performance.now() - t) / 1000 }
        const validScores =
          input.validScores && data.valid.n > 0 ? await predictAll(session.backend, data.valid) : undefined
        const ranks = session.backend instanceof RanksBackend ? session.backend : undefined
        return { loop, adapter: session.adapter, model, ranks, timing, validScores }
      },
      checkOwnGpu: () => checkRecsysMemory(shape, params, input.config.memoryBudget),
      onRecover: (from, reason) =>
        input.onProgress({
          kind: 'stage',
          message: `GPU device lost (${reason}); rebuilt it and resumed from the checkpoint at step ${from?.loop.step ?? 0}`,
        }),
      exhausted: resumeExhausted,
    } satisfies FamilyFit<RecsysBackend, RecsysCheckpoint, SegmentedResult, RecsysTrained>
  },

  loadShared: (input, fixed, onStage) =>
    loadRecsysTable(input, onStage, typeof fixed?.gauc_group === 'string' ? fixed.gauc_group : undefined),

  async trial(shared, spec) {
    const table = shared as RecsysTable
    const first = recsysTrialParams(spec)
    const params = recsysTrialParams(spec, table.data(first).source.stepsPerEpoch)
    return { params, data: table.data(params) }
  },

  finish(data, trained, params, input, seconds) {
    const run = withRanks(finishRecsys(data, trained, params, input.config, seconds), trained.ranks)
    const scores = trained.validScores
    return scores ? { ...run, validation: { labels: data.valid.labels, scores } } : run
  },
}

/** The time split as one line: `time: stats 3.1 s, setup 0.4 s, input wait 1.2 s (featurize 0.3 s), …`. */
export function timingLine(t: RecsysTiming): string {
  const s = (x: number): string => `${x.toFixed(1)} s`
  return (
    `time: stats ${s(t.stats_s)}, setup ${s(t.setup_s)}, loop ${s(t.loop_s)} = input wait ${s(t.input_wait_s)} ` +
    `(featurize ${s(t.featurize_s)}) + step ${s(t.step_s)} (upload ${s(t.upload_s)}, waiting for the GPU ${s(t.gpu_wait_s)}) + ` +
    `eval ${s(t.eval_s)} + read-backs ${s(t.readback_s)}${t.gpu_s === undefined ? '' : ` (GPU step time ${s(t.gpu_s)}, timestamp queries)`}, ` +
    `checkpoints ${s(t.checkpoint_s)}, export ${s(t.export_s)}`
  )
}

/** Every row of the validation table, featurized with the training layout. */
async function readValidTable(
  plan: ScanPlan,
  data: RecsysData,
  p: RecsysParams,
  workers?: number,
  http?: HttpOptions,
): Promise<ModelBatch> {
  for (const c of [data.kinds.label, ...Object.keys(data.kinds.spec)]) {
    if (!plan.columns.includes(c))
      throw new RangeError(`validation table ${plan.tableUrl}: column '${c}' does not exist`)
  }
  const loader = createLoader(plan, {
    assign: { epoch: 0, worldSize: 1, rank: 0 },
    batchSize: p.batch_size,
    spec: data.kinds.spec,
    workers,
    http,
  })
  const parts: ModelBatch[] = []
  try {
    for await (const b of loader.batches()) parts.push(featurize(data.source.layout, b, undefined, p.gauc_group))
  } finally {
    await loader.close()
  }
  return concatBatches(parts, data.source.layout)
}

/**
 * The model on `device` (undefined: the CPU reference) holding `state` (a checkpoint's, the model
 * file's; undefined: fresh seeded weights, init.ts) and checkpoint `from`'s restore_best weights.
 * GPU modules load lazily.
 */
export async function modelOn(
  device: SessionDevice | undefined,
  shape: ModelShape,
  params: RecsysParams,
  state?: ModelState,
  from?: RecsysCheckpoint,
): Promise<FitBackend<RecsysBackend>> {
  const backend = device
    ? await (await import('./model-gpu.ts')).GpuModel.create(
        device.cache,
        shape,
        params,
        state ?? { weights: initWeights(shape, params.seed), opt: initOptimizerState(shape, params) },
      )
    : createRefBackend(shape, params)
  try {
    if (!device && state) await backend.importState(state)
    await restoreKept(backend, from)
  } catch (e) {
    backend.destroy()
    throw e
  }
  return { backend, dispose: () => backend.destroy() }
}

/** Progress metrics of one evaluation (CLI prints them as name=value). */
function progressMetrics(row: MetricRow): Record<string, number> {
  const m: Record<string, number> = { train_loss: row.trainLoss }
  if (row.validAuc !== undefined) m.auc = row.validAuc
  if (row.validLogloss !== undefined) m.logloss = row.validLogloss
  if (row.validGauc !== undefined) m.gauc = row.validGauc
  if (row.validCalibration !== undefined) m.calibration = row.validCalibration
  return m
}
