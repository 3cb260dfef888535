/**
 * A TrialRunner over the recommender's training loop: resource = epochs. Each trial builds a
 * fresh seeded GpuModel on the slot's device, trains from the sweep's in-memory rows
 * (recsys-memory.ts) and reports the validation metric at the end of every epoch (trainLoop's
 * onEpochEnd), stopping at once on 'stop'. Model files are large (embedding tables and optimizer
 * state), so a trial keeps its model only when it beats every earlier trial of this runner group:
 * the best trial's model is always stored, at O(log n) files per sweep in expectation.
 */
import { version as SNAPTRAIN_VERSION } from '../../package.json'
import type { PipelineCache } from '../gpu/pipeline-cache.ts'
import { createRefBackend, type RecsysBackend } from '../models/recsys/backend.ts'
import { encodeCheckpoint } from '../models/recsys/checkpoint.ts'
import { initOptimizerState, initWeights } from '../models/recsys/init.ts'
import { modelShapeOf } from '../models/recsys/layout.ts'
import { recsysRunParams } from '../models/recsys/train-run.ts'
import { trainLoop, type MetricRow } from '../models/recsys/train-loop.ts'
import type { ModelShape, RecsysParams } from '../models/recsys/types.ts'
import { manifestTable } from '../models/manifest.ts'
import type { GpuBusyClock } from './gpu-busy.ts'
import type { RecsysTable } from './recsys-memory.ts'
import { minimizes } from './sweep-state.ts'
import type { SweepConfig, TrialConfig, TrialRunner } from './types.ts'

/** What a recsys runner needs. */
export interface RecsysRunnerContext {
  config: SweepConfig
  table: RecsysTable
  /** Pipelines of the slot's device; absent: the CPU reference backend (tests). */
  cache?: PipelineCache
  clock?: GpuBusyClock
  /** Best metric so far, shared by the runners of one sweep (decides which models are kept). */
  best: { metric?: number }
}

/**
 * One trial's parameters: fixed, then the trial's, epochs = the requested resource. Unless set,
 * eval_every = steps per epoch, so the loop evaluates exactly at epoch ends (the reports). Not a
 * huge eval_every: the GPU model sizes its loss read-back buffer by it.
 */
export function recsysTrialParams(config: SweepConfig, trial: TrialConfig, resource: number, stepsPerEpoch?: number): RecsysParams {
  const given = config.fixed?.eval_every !== undefined || trial.eval_every !== undefined
  const every = !given && stepsPerEpoch ? { eval_every: stepsPerEpoch } : {}
  return recsysRunParams({ params: { ...config.fixed, ...trial, ...every, epochs: resource }, seed: config.seed })
}

/** The runner of one slot. */
export function createRecsysRunner(ctx: RecsysRunnerContext): TrialRunner {
  const pick = (row: MetricRow): number | undefined => (ctx.config.metric === 'logloss' ? row.validLogloss : row.validAuc)
  return {
    async run(req, report, signal) {
      const first = recsysTrialParams(ctx.config, req.config, req.resource)
      const p = recsysTrialParams(ctx.config, req.config, req.resource, ctx.table.data(first).source.stepsPerEpoch)
      const data = ctx.table.data(p)
      const shape = modelShapeOf(data.layout, p)
      await ctx.clock?.idle()
      const busy0 = ctx.clock?.seconds() ?? 0
      const backend = await createBackend(ctx, shape, p)
      try {
        const loop = await trainLoop({
          params: p, backend, source: data.source, valid: data.valid,
          onEpochEnd: (epoch, row) => {
            const value = pick(row)
            if (value === undefined) throw new Error(`trial ${req.id}: no validation metric after epoch ${epoch + 1}`)
            return signal.aborted || report(epoch + 1, value) === 'stop' ? 'stop' : undefined
          },
        })
        const last = loop.metrics.at(-1)
        const metric = last && pick(last)
        const keep = metric !== undefined && isBetter(ctx, metric)
        const model = keep ? base64(encodeCheckpoint({ shape, params: p, layout: data.layout, loop: loop.state, state: await backend.exportState() })) : undefined
        await ctx.clock?.idle()
        const manifest = {
          kind: 'snaptrain-sweep-trial', model: 'recsys', snaptrain_version: SNAPTRAIN_VERSION, created: new Date().toISOString(), trial: req.id,
          table: manifestTable(data.plan, ctx.config.tablePath), label: ctx.config.label,
          features: [...data.layout.sparse.map(f => ({ name: f.name, categorical: true })), ...data.layout.dense.map(f => ({ name: f.name, categorical: false }))], filter: ctx.config.filter ?? null, seed: ctx.config.seed ?? 0,
          params: { ...p }, epochs: loop.state.epoch, steps: loop.state.step, metric: metric ?? null, model_kept: keep,
        }
        return { gpuSeconds: (ctx.clock?.seconds() ?? 0) - busy0, artifacts: { model, manifest } }
      } finally {
        backend.destroy()
      }
    },
  }
}

async function createBackend(ctx: RecsysRunnerContext, shape: ModelShape, p: RecsysParams): Promise<RecsysBackend> {
  if (!ctx.cache) return createRefBackend(shape, p)
  const { GpuModel } = await import('../models/recsys/model-gpu.ts') // lazily: the CPU path runs without WebGPU
  return GpuModel.create(ctx.cache, shape, p, { weights: initWeights(shape, p.seed), opt: initOptimizerState(shape, p) })
}

/** True (and recorded) when `metric` beats the group's best so far. */
function isBetter(ctx: RecsysRunnerContext, metric: number): boolean {
  const sign = minimizes(ctx.config) ? -1 : 1
  if (ctx.best.metric !== undefined && !(sign * metric > sign * ctx.best.metric)) return false
  ctx.best.metric = metric
  return true
}

/** Base64 of `bytes` (chunked: String.fromCharCode takes a bounded argument list). */
export function base64(bytes: Uint8Array): string {
  let s = ''
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(s)
}
