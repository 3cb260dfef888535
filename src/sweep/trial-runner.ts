/**
 * The one sweep trial runner: a trial *is* a training run. It takes the trial's parameters and
 * rows from the sweep's data cache (loaded once by the family, data-cache.ts; family.trial), and
 * calls the one driver (src/run/pipeline.ts trainPrepared) with a slot session on the slot's
 * device; it keeps only the sweep's concerns: it reports the sweep's metric at every resource step
 * (GBDT: each round; recsys: each epoch end) and stops at once on 'stop', and marks the run's
 * manifest (its real adapter and training time) as a trial.
 * Recommender model files are large (embedding tables and optimizer state), so a recsys trial keeps
 * its model only when it beats every earlier trial of this sweep (O(log n) files in expectation);
 * GBDT trials keep theirs. GPU-seconds = the slot queue's busy time over the trial.
 */
import type { RunResult } from '../run/config.ts'
import type { TrainInput, TrialSpec } from '../run/family.ts'
import { trainPrepared } from '../run/pipeline.ts'
import type { SessionDevice } from '../run/session.ts'
import { familyOf } from '../models/registry.ts'
import { sweepRunConfig, type StageListener, type SweepData } from './data-cache.ts'
import type { GpuBusyClock } from './gpu-busy.ts'
import { minimizes } from '../tune/sweep-state.ts'
import { sweepMetric } from './plan.ts'
import type { SweepConfig, TrialRunner } from '../tune/types.ts'

/** What a slot's runner needs: the sweep, its shared data, the slot's device. */
export interface TrialRunnerContext {
  config: SweepConfig
  /** The sweep's data (data-cache.ts): its family and what the family loaded once. */
  data: SweepData
  /** The slot's device, its pipelines (compiled once per slot) and kernel; absent: the CPU reference backend. */
  device?: SessionDevice
  /** Busy time of the slot's queue (absent: GPU-seconds 0). */
  clock?: GpuBusyClock
  /** Hears the binning of a max_bin not yet binned. */
  onStage?: StageListener
  /** Best metric so far, shared by the runners of one sweep (decides which recsys models are kept). */
  best?: { metric?: number }
}

/** The runner of one slot. */
export function createTrialRunner(ctx: TrialRunnerContext): TrialRunner {
  const { family, shared } = ctx.data
  const metric = sweepMetric(ctx.config)
  const input: TrainInput = { config: sweepRunConfig(ctx.config), onProgress: () => {}, hooks: {} }
  const step = familyOf(family.name).resource.one
  return {
    async run(req, report, signal) {
      const spec = {
        fixed: ctx.config.fixed,
        config: req.config,
        resource: req.resource,
        seed: ctx.config.seed,
        metric,
      }
      const { params, data } = await family.trial(shared, spec, ctx.onStage)
      await ctx.clock?.idle()
      const busy0 = ctx.clock?.seconds() ?? 0
      let value: number | undefined,
        reached = req.resource
      const run = await trainPrepared(
        family,
        data,
        params,
        input,
        { mode: 'slot', device: ctx.device },
        (index, metrics) => {
          if (signal.aborted) return 'stop'
          value = metrics[metric]
          reached = index + 1
          if (value === undefined)
            throw new Error(`trial ${req.id}: no validation ${metric} after ${step} ${index + 1}`)
          return report(index + 1, value) === 'stop' ? 'stop' : undefined
        },
      )
      await ctx.clock?.idle()
      const keep = familyOf(family.name).sweep.keepEveryModel || (value !== undefined && isBetter(ctx, value))
      const manifest = {
        ...run.manifest,
        kind: 'snaptrain-sweep-trial',
        trial: req.id,
        metric: value ?? null,
        model_kept: keep,
      }
      return {
        gpuSeconds: (ctx.clock?.seconds() ?? 0) - busy0,
        artifacts: { model: keep ? modelText(run) : undefined, manifest },
        params: trainParams(family, spec, params, reached),
      }
    },
  }
}

/**
 * The parameters `snaptrain train --params` trains this trial's model with (TrialRecord.params):
 * the sweep's fixed ones and the trial's, each parameter the family's trial set otherwise than
 * its run parameters would (GBDT: the sweep's metric added to eval_metric; recommender:
 * eval_every = steps per epoch), and the resource at `reached`: the rung's, or where the strategy
 * or early stopping ended it (the model kept holds those rounds / epochs). Keys sorted.
 */
function trainParams(
  family: SweepData['family'],
  spec: TrialSpec,
  trained: Record<string, unknown>,
  reached: number,
): Record<string, unknown> {
  const param = familyOf(family.name).resource.param
  const raw: Record<string, unknown> = { ...spec.fixed, ...spec.config, [param]: spec.resource }
  const plain = family.params({ params: raw, seed: spec.seed }) as Record<string, unknown>
  for (const [k, v] of Object.entries(trained)) if (JSON.stringify(v) !== JSON.stringify(plain[k])) raw[k] = v
  raw[param] = reached
  return Object.fromEntries(
    Object.keys(raw)
      .sort()
      .map(k => [k, raw[k]]),
  )
}

/** The model as the store keeps it: XGBoost JSON as is, a binary model file as base64. */
function modelText(run: RunResult): string {
  return typeof run.model === 'string' ? run.model : base64(run.model)
}

/** True (and recorded) when `metric` beats the sweep's best so far. */
function isBetter(ctx: TrialRunnerContext, metric: number): boolean {
  const best = ctx.best ?? (ctx.best = {})
  const sign = minimizes({ metric: sweepMetric(ctx.config) }) ? -1 : 1
  if (best.metric !== undefined && !(sign * metric > sign * best.metric)) return false
  best.metric = metric
  return true
}

/** Base64 of `bytes` (chunked: String.fromCharCode takes a bounded argument list). */
export function base64(bytes: Uint8Array): string {
  let s = ''
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(s)
}
