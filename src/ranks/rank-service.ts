/**
 * What runs inside one rank worker: its Collective (over the port to the hub), its own GPU device
 * (requested in the worker on first use), and the job it is asked to run. A lost device or an
 * uncaught error is reported to the coordinator as fatal, which ends the whole run.
 */
import type { CollectiveStats, RankContext, RankJob } from './types.ts'
import type { RankInit, RankWorkerApi } from '../workers/rank.api.ts'
import { PortCollective } from './port-collective.ts'
import { StopVote } from './stop-vote.ts'
import { loadRankJob } from './jobs.ts'
import { withTimeout } from '../util/deadline.ts'

/** The service a rank worker exposes; `loadJob` resolves job names (tests substitute it). */
export function createRankService(loadJob: (name: string) => Promise<RankJob> = loadRankJob): RankWorkerApi {
  let coll: PortCollective | undefined
  let init: RankInit | undefined
  // One vote per worker (a group runs one job): a stop asked before run() still counts.
  const stop = new StopVote()
  const gpu = rankDevice(message => coll?.fatal(message))
  return {
    init(i: RankInit): void {
      init = i
      coll = new PortCollective(i.rank, i.world, i.port, i.timeoutMs, i.shared)
      watchGlobalErrors(message => coll?.fatal(message))
    },
    async run(job: string, config: unknown): Promise<{ value: unknown; stats: CollectiveStats[] }> {
      if (!coll || !init) throw new Error('rank worker: run() before init()')
      const c = coll,
        timeoutMs = init.timeoutMs
      const ctx: RankContext = {
        rank: c.rank,
        world: c.world,
        coll: c,
        device: () => gpu.device(timeoutMs),
        adapterLabel: () => gpu.label,
        progress: ev => c.progress(ev),
        stop,
      }
      const value = await (await loadJob(job)).run(ctx, config)
      return { value, stats: c.stats() }
    },
    stop: () => stop.ask(),
    loseDevice: () => gpu.lose(),
  }
}

/** The rank's device, requested once and kept until the worker ends; any loss (lose() included) is fatal. */
function rankDevice(fatal: (message: string) => void): {
  device(timeoutMs: number): Promise<GPUDevice>
  lose(): Promise<void>
  label: string
} {
  let handle: Promise<GPUDevice> | undefined
  const state = {
    label: '',
    device(timeoutMs: number): Promise<GPUDevice> {
      handle ??= withTimeout(acquire(), timeoutMs, `no GPU device within ${timeoutMs / 1000} s`)
      return handle
    },
    async lose(): Promise<void> {
      if (handle) (await handle).destroy()
    },
  }
  async function acquire(): Promise<GPUDevice> {
    const { requestDevice, adapterSummary, adapterLabel } = await import('../gpu/device.ts')
    const { adapter, device } = await requestDevice()
    state.label = adapterLabel(adapterSummary(adapter))
    // Any loss ends the run: this rank's histograms or gradients are gone, so the others cannot finish.
    void device.lost.then(info =>
      fatal(`GPU device lost (${info.reason || 'unknown'}): ${info.message || 'no message'}`),
    )
    return device
  }
  return state
}

/** Uncaught errors and rejections inside the worker are fatal for the rank. */
function watchGlobalErrors(fatal: (message: string) => void): void {
  const g = globalThis as { addEventListener?: (type: string, f: (ev: Event) => void) => void }
  g.addEventListener?.('unhandledrejection', ev =>
    fatal(`unhandled rejection: ${String((ev as PromiseRejectionEvent).reason)}`),
  )
  g.addEventListener?.('error', ev => fatal(`uncaught error: ${(ev as ErrorEvent).message}`))
}
