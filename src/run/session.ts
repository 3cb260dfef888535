/**
 * The device session of one training run, opened by the driver (pipeline.ts), never by a family.
 * Three modes, and the one place that branches on them:
 *  - 'rank': this rank of a ranked run (src/run/ranks.ts): the family's model on the rank's own
 *    device, talking through the rank's collective; a lost rank fails the run.
 *  - 'slot': a device the caller owns (a sweep slot: its device, pipeline cache and chosen kernel),
 *    or none (the CPU reference); one attempt, no recovery (the sweep reruns the trial).
 *  - 'own': the run opens its own device (the GPU unless the config says cpu or WebGPU is absent)
 *    and, when it is lost, a fresh one, under the family's DeviceLossPolicy (device-loss.ts). The
 *    driver opens the first one ahead (openAhead), while the table loads, for the family to warm.
 * The family says how to put its model on a device and how to train it there (FamilyFit); the
 * session says which device, how often, and disposes what it opened.
 */
import type { PipelineCache } from '../gpu/pipeline-cache.ts'
import type { HistogramKernel } from '../kernels/gbdt/histogram_choice.ts'
import type { RankContext } from '../ranks/types.ts'
import { watchLost } from '../gpu/device-lost.ts'
import { hasWebGpu } from './config.ts'
import { trainOnDevice, type DeviceLossPolicy, type DeviceSession } from './device-loss.ts'
import type { FamilyFit, RunHooks } from './family.ts'

/** A GPU device a model runs on: the device, its pipelines (compiled once per device) and its adapter's label. */
export interface SessionDevice {
  device: GPUDevice
  cache: PipelineCache
  /** The adapter's label (gpu/device.ts adapterLabel): what the summary and manifest say the run ran on. */
  adapter: string
  /** GBDT's histogram kernel, chosen once per device (absent: the backend chooses). */
  kernel?: HistogramKernel
}

/** Where a run trains (see the module comment). */
export type Session =
  | { mode: 'rank'; rank: RankContext }
  | { mode: 'slot'; device?: SessionDevice }
  | {
      mode: 'own'
      backend: 'gpu' | 'cpu'
      hooks?: RunHooks
      /**
       * Where the run's devices come from (default openOwnDevice; the driver's openAhead hands out
       * its warmed device first; tests give devices they can lose).
       */
      openDevice?: (kind: 'gpu' | 'cpu') => Promise<SessionDevice | undefined>
    }

/** The adapter label of the CPU reference backends. */
export const CPU_ADAPTER = 'cpu (reference backend)'

/**
 * A fresh device of this run's own (undefined: the CPU reference, asked for or without WebGPU).
 * GPU modules load lazily, so CPU-only callers never load them. The caller destroys the device.
 */
export async function openOwnDevice(kind: 'gpu' | 'cpu'): Promise<SessionDevice | undefined> {
  if (kind === 'cpu' || !hasWebGpu()) return undefined
  const [{ requestDevice, adapterSummary, adapterLabel }, { PipelineCache }] = await Promise.all([
    import('../gpu/device.ts'),
    import('../gpu/pipeline-cache.ts'),
  ])
  const { adapter, device } = await requestDevice()
  return { device, cache: new PipelineCache(device), adapter: adapterLabel(adapterSummary(adapter)) }
}

/** The devices of a run in mode 'own' whose first device was opened ahead (openAhead). */
export interface DevicesAhead {
  /**
   * Session 'own' openDevice: the first call gets the device opened ahead once its warm-up has
   * ended (the warm-up's failure is ignored: the family compiles as it goes); later calls (a lost
   * device's rebuild) fresh ones.
   */
  open(kind: 'gpu' | 'cpu'): Promise<SessionDevice | undefined>
  /** Destroys the device opened ahead unless `open` handed it out (the load failed, the run ended before fitting). */
  release(): void
}

/** How often a run waiting for its warm-up asks how many pipelines are still compiling. */
const WAIT_TICK_MS = 250

/**
 * Opens the first device of a run in mode 'own' now and starts `warm` on it (the family compiling
 * its pipelines while the table loads: run/pipeline.ts). `kind` 'cpu' or no WebGPU: nothing is
 * opened or warmed, and `open` gives undefined. `waiting` hears, when `open` finds the warm-up
 * still running, how many of the pipelines compiling then are done (`done` of `total`, again as
 * they finish, at most every WAIT_TICK_MS) and, once all are, the milliseconds it waited (the
 * driver says why round 1 waits). `openFresh`: where devices come from (default openOwnDevice;
 * tests give fakes).
 */
export function openAhead(
  kind: 'gpu' | 'cpu',
  warm: (device: SessionDevice) => Promise<void>,
  waiting: (done: number, total: number, waitedMs?: number) => void = () => {},
  openFresh: (kind: 'gpu' | 'cpu') => Promise<SessionDevice | undefined> = openOwnDevice,
): DevicesAhead {
  const first = openFresh(kind)
  let settled = false
  // A failed open is `open`'s to throw (from `first`); a failed warm-up only loses the head start.
  const warmed = first
    .then(d => d && warm(d))
    .catch(() => {})
    .finally(() => {
      settled = true
    })
  let handed = false
  return {
    async open(k) {
      if (handed) return openFresh(k)
      handed = true
      const device = await first
      if (device && !settled) {
        const t0 = performance.now()
        const total = device.cache.pending
        let told = -1
        while (!settled) {
          const done = total - Math.min(total, device.cache.pending)
          if (done !== told) waiting((told = done), total)
          await Promise.race([warmed, new Promise(r => setTimeout(r, WAIT_TICK_MS))])
        }
        waiting(total, total, performance.now() - t0)
      }
      await warmed
      return device
    },
    release() {
      if (handed) return
      handed = true
      first.then(
        d => d?.device.destroy(),
        () => {},
      )
    },
  }
}

/** What fitting returns: the family's trained result and the rebuilds the run needed. */
export interface Fitted<T> {
  trained: T
  recoveries: number
}

/**
 * Trains `fit` on `session`: the one branch on the mode. The session (and any device it opened)
 * is disposed when training ends, after the family read its result off it (FamilyFit.result).
 */
export async function fitOnSession<B, C, R, T>(
  fit: FamilyFit<B, C, R, T>,
  session: Session,
  policy: DeviceLossPolicy,
): Promise<Fitted<T>> {
  if (session.mode === 'rank') return once(withAdapter(await fit.openRank(session.rank), undefined), fit)
  if (session.mode === 'slot') return once(withAdapter(await fit.open(session.device, undefined), session.device), fit)
  const { hooks = {}, openDevice = openOwnDevice } = session
  if (session.backend === 'gpu' && hasWebGpu()) await fit.checkOwnGpu?.()
  const {
    result,
    session: live,
    recoveries,
  } = await trainOnDevice<B, C, R>({
    policy,
    maxRecoveries: hooks.maxRecoveries ?? fit.maxRecoveries,
    open: async (from, attempt) => {
      const device = await openDevice(session.backend)
      try {
        const s = withAdapter(await fit.open(device, from), device)
        if (device) hooks.onDevice?.(device.device, attempt)
        return device ? { ...s, lost: device.device.lost, dispose: () => (s.dispose?.(), device.device.destroy()) } : s
      } catch (e) {
        device?.device.destroy()
        throw e
      }
    },
    run: (s, from, watch) => fit.run(s, from, watch),
    onRecover: (from, reason) => fit.onRecover?.(from, reason),
    exhausted: (reason, losses, kept) => fit.exhausted(reason, losses, kept),
  })
  return { trained: await resultOf(fit, live, result), recoveries }
}

/** One attempt without a device watch (a rank's or a slot's device: its owner handles a loss). */
async function once<B, C, R, T>(s: DeviceSession<B>, fit: FamilyFit<B, C, R, T>): Promise<Fitted<T>> {
  let part: Awaited<ReturnType<typeof fit.run>>
  try {
    part = await fit.run(s, undefined, watchLost(undefined))
  } catch (e) {
    s.dispose?.()
    throw e
  }
  if (!('done' in part)) {
    s.dispose?.()
    throw new Error('fit: a run without a device watch stopped at a checkpoint')
  }
  return { trained: await resultOf(fit, s, part.done), recoveries: 0 }
}

/** The family's result read off the live session, which is disposed after. */
async function resultOf<B, C, R, T>(fit: FamilyFit<B, C, R, T>, s: DeviceSession<B>, r: R): Promise<T> {
  try {
    return await fit.result(s, r)
  } finally {
    s.dispose?.()
  }
}

/** The session labelled with its device's adapter unless the family named one. */
function withAdapter<B>(s: FitBackend<B>, device: SessionDevice | undefined): DeviceSession<B> {
  return { ...s, adapter: s.adapter ?? device?.adapter ?? CPU_ADAPTER }
}

/** A family's model on one device: `adapter` when the family labels it itself (ranks), `dispose` destroys the model. */
export interface FitBackend<B> {
  backend: B
  adapter?: string
  dispose?: () => void
}
