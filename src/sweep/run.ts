/**
 * Page-side sweep entry (window.snaptrain.sweep and friends): config → validated space, strategy
 * options and parallelism (errors before anything runs) → shared data (data-cache.ts) → the
 * scheduler with one GPUDevice per slot, each running the one trial runner (trial-runner.ts) → the store.
 */
import { adapterLabel, adapterSummary, assertGpu, requestDevice } from '../gpu/device.ts'
import { PipelineCache } from '../gpu/pipeline-cache.ts'
import { chooseHistogramKernel } from '../kernels/gbdt/histogram_choice.ts'
import type { DataCache, StageListener } from './data-cache.ts'
import { GpuBusyClock } from './gpu-busy.ts'
import { createTrialRunner } from './trial-runner.ts'
import { isSweepState } from '../tune/sweep-state.ts'
import { runSweep, type SlotFactory, type TrialSlot } from './scheduler.ts'
import { fullBudget, prepareSweep, resolveParallel } from './plan.ts'
import { familyOf } from '../models/registry.ts'
import type { Strategy, SweepConfig, SweepEvent, SweepState, SweepStore } from '../tune/types.ts'

/** Options of a page sweep run. */
export interface SweepRunOptions {
  store: SweepStore
  cache: DataCache
  signal?: AbortSignal
  id?: string
  /** Hears each slot's new device (tests destroy one mid-trial). */
  onSlot?: (index: number, device: GPUDevice) => void
  /** Runs this strategy instead of the config's (the bench replays a fixed list of configurations). */
  strategy?: Strategy
}

/** Runs a new sweep (`config`) or resumes a stored one (`state`) in this page. */
export async function runPageSweep(
  from: SweepConfig | SweepState,
  onEvent: (e: SweepEvent) => void,
  o: SweepRunOptions,
): Promise<SweepState> {
  const config = isSweepState(from) ? from.config : from
  const prepared = prepareSweep(config)
  const { options } = prepared
  const strategy = o.strategy ?? prepared.strategy
  assertGpu((globalThis.navigator as Navigator | undefined)?.gpu)
  const probe = await requestDevice()
  const adapter = adapterSummary(probe.adapter)
  probe.device.destroy()
  const parallel = resolveParallel(config, adapter)
  const stage = (message: string, fraction?: number): void =>
    onEvent(fraction === undefined ? { kind: 'stage', message } : { kind: 'stage', message, fraction })
  const slots = await slotFactory(config, o, stage)
  stage(`running ${config.strategy} on ${parallel} slot(s), ${adapterLabel(adapter)}`)
  return runSweep(isSweepState(from) ? from : { ...config, parallel }, strategy, slots, o.store, onEvent, o.signal, {
    parallel,
    id: o.id,
    fullBudget: s => fullBudget(s, options.maxResource),
  })
}

/** Loads the shared data, then makes slots (one fresh device each) running the model's trials. */
async function slotFactory(config: SweepConfig, o: SweepRunOptions, stage: StageListener): Promise<SlotFactory> {
  const data = await o.cache.load(config, stage)
  const best = {}
  return async index => {
    const { device, adapter } = await requestDevice()
    o.onSlot?.(index, device)
    const lost = device.lost.then(
      info => `GPU device lost (${info.reason || 'unknown'}): ${info.message || 'no message'}`,
    )
    try {
      const clock = new GpuBusyClock(device),
        cache = new PipelineCache(device)
      const kernel = familyOf(config.model).histogramKernel ? await chooseHistogramKernel(cache) : undefined
      const slot = { device, cache, kernel, adapter: adapterLabel(adapterSummary(adapter)) }
      const runner = createTrialRunner({ config, data, device: slot, clock, onStage: stage, best })
      return { runner, lost, dispose: () => device.destroy() } satisfies TrialSlot
    } catch (e) {
      device.destroy()
      throw e
    }
  }
}
