/**
 * A TrialRunner over the GBDT driver and GPU backend: resource = boosting rounds. Each trial
 * trains `req.resource` rounds on the slot's device from the sweep's shared data (cuts and binned
 * matrix per max_bin, data-cache.ts), reports the validation metric after every round and stops
 * at once when the report says 'stop'. GPU-seconds = the slot queue's busy time over the trial.
 */
import { version as SNAPTRAIN_VERSION } from '../../package.json'
import type { PipelineCache } from '../gpu/pipeline-cache.ts'
import type { HistogramKernel } from '../kernels/gbdt/histogram_choice.ts'
import type { BackendFactory } from '../models/gbdt/backend.ts'
import { train } from '../models/gbdt/driver.ts'
import { CATEGORIES_ATTRIBUTE, addAttributes } from '../models/gbdt/model-attributes.ts'
import { runParams } from '../models/gbdt/train-run.ts'
import type { Booster, GbdtParams } from '../models/gbdt/types.ts'
import { toXGBoostJsonString } from '../models/gbdt/xgboost-json.ts'
import { manifestTable } from '../models/manifest.ts'
import { validFraction, type GbdtData, type StageListener } from './data-cache.ts'
import type { GpuBusyClock } from './gpu-busy.ts'
import type { SweepConfig, TrialArtifacts, TrialConfig, TrialRequest, TrialRunner } from './types.ts'

/** What a GBDT runner needs: the slot's device (through its pipeline cache and busy clock) and the sweep's data. */
export interface GbdtRunnerContext {
  config: SweepConfig
  data: GbdtData
  /** Pipelines of the slot's device (compiled once per slot, not per trial). */
  cache?: PipelineCache
  /** Busy time of the slot's queue (absent: GPU-seconds 0, e.g. the CPU backend). */
  clock?: GpuBusyClock
  /** Histogram kernel chosen once per slot. */
  kernel?: HistogramKernel
  /** Backend override (tests: the CPU reference). */
  backend?: BackendFactory
  /** Hears the binning of a max_bin not yet binned (message, fraction of features done). */
  onStage?: StageListener
}

/**
 * The parameters of one trial: the sweep's fixed ones, then the trial's, with num_round = the
 * requested resource (the resource is the round budget, whatever the space says) and the sweep's
 * metric among eval_metric.
 */
export function gbdtTrialParams(config: SweepConfig, trial: TrialConfig, resource: number): GbdtParams {
  const p = runParams({ params: { ...config.fixed, ...trial, num_round: resource }, seed: config.seed })
  const metric = config.metric ?? 'auc'
  if (!p.eval_metric.includes(metric)) p.eval_metric = [...p.eval_metric, metric]
  return p
}

/** The runner of one slot. */
export function createGbdtRunner(ctx: GbdtRunnerContext): TrialRunner {
  const metric = ctx.config.metric ?? 'auc'
  return {
    async run(req, report, signal) {
      const p = gbdtTrialParams(ctx.config, req.config, req.resource)
      const { cuts, binned } = await ctx.data.binned(p.max_bin, ctx.onStage)
      await ctx.clock?.idle()
      const busy0 = ctx.clock?.seconds() ?? 0
      // The GPU backend loads lazily, so the runner also serves the CPU reference where WebGPU is absent.
      const backend = ctx.backend ?? (await import('../models/gbdt/gpu-backend.ts'))
        .createGpuBackend(ctx.cache!.device, ctx.cache, { histogramKernel: ctx.kernel })
      const booster = await train(ctx.data.dataset.data, p, backend, {
        cuts, binned,
        onRound: (round, m) => {
          if (signal.aborted) return 'stop'
          const value = m[metric]
          if (value === undefined) throw new Error(`trial ${req.id}: no validation ${metric} after round ${round + 1}`)
          return report(round + 1, value) === 'stop' ? 'stop' : undefined
        },
      })
      await ctx.clock?.idle()
      return { gpuSeconds: (ctx.clock?.seconds() ?? 0) - busy0, artifacts: gbdtArtifacts(ctx, req, p, booster) }
    },
  }
}

/** The trial's model (XGBoost JSON, categorical dictionaries in its attributes) and a small manifest. */
function gbdtArtifacts(ctx: GbdtRunnerContext, req: TrialRequest, p: GbdtParams, booster: Booster): TrialArtifacts {
  const ds = ctx.data.dataset
  const categories: Record<string, string> = Object.keys(ds.dictionaries).length ? { [CATEGORIES_ATTRIBUTE]: JSON.stringify(ds.dictionaries) } : {}
  const model = addAttributes(toXGBoostJsonString(booster), categories)
  const c = ctx.config
  const manifest = {
    kind: 'snaptrain-sweep-trial', model: 'gbdt', snaptrain_version: SNAPTRAIN_VERSION, created: new Date().toISOString(),
    trial: req.id, table: manifestTable(ds.plan, c.tablePath),
    validation: ds.validPlan ? { kind: 'table', table: manifestTable(ds.validPlan) } : { kind: 'fraction', fraction: validFraction(c), rows: ds.rowsValid },
    label: c.label, features: ds.features.map(f => ({ name: f.name, categorical: f.kind === 'categorical' })), filter: c.filter ?? null, seed: c.seed ?? 0,
    params: { ...p }, metrics: booster.history, rounds: booster.trees.length, rows_train: ds.rowsTrain, rows_valid: ds.rowsValid,
  }
  return { model, manifest }
}
