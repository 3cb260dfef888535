/**
 * The one device-loss policy of a training run. A run trains on a session (a backend on one
 * device); when that device is lost (GPUDevice.lost: driver reset, `device.destroy()`, a crashed
 * GPU process) the session is disposed, a fresh one is opened and the run goes on — from the
 * start ('rerun': the family's training is deterministic, so the redone work gives exactly what
 * was already earned) or from the last checkpoint the run kept ('resume'). After `maxRecoveries`
 * rebuilds it fails with the family's DeviceLostError. An error that is not a device loss is
 * thrown as is.
 */
import { type DeviceLostError, watchLost, type LostInfo, type LostWatch } from '../gpu/device-lost.ts'

export { DeviceLostError } from '../gpu/device-lost.ts'

/** What a family declares: redo the run from the start, or resume from its last checkpoint. */
export type DeviceLossPolicy = 'rerun' | 'resume'

/** A backend on one device; `lost` resolves when that device is lost (absent: CPU, never lost); `dispose` destroys both. */
export interface DeviceSession<B> {
  backend: B
  adapter: string
  lost?: Promise<LostInfo>
  dispose?: () => void
}

/** One piece of a run: finished, or stopped at a checkpoint to continue from. */
export type RunPart<C, R> = { done: R } | { checkpoint: C }

/** A run under the policy. */
export interface DeviceRun<B, C, R> {
  policy: DeviceLossPolicy
  /** A session on a fresh device holding `from` (undefined: the start); `attempt` 0 is the first. */
  open(from: C | undefined, attempt: number): Promise<DeviceSession<B>>
  /**
   * Runs on `session` from `from`. A 'resume' run may stop at a checkpoint ({ checkpoint }) and is
   * called again from it; `watch` tells it the session's device is gone.
   */
  run(session: DeviceSession<B>, from: C | undefined, watch: LostWatch): Promise<RunPart<C, R>>
  /** Device rebuilds allowed. */
  maxRecoveries: number
  /** Told of each rebuild: the checkpoint the run goes on from (undefined: the start) and the loss. */
  onRecover?: (from: C | undefined, reason: string) => void
  /** The error once the rebuilds are spent: `losses` devices lost, `kept` the last checkpoint. */
  exhausted(reason: string, losses: number, kept: C | undefined): DeviceLostError
}

/** What trainOnDevice returns: the result, the live session (the caller disposes it) and the rebuilds. */
export interface DeviceRunResult<B, R> {
  result: R
  session: DeviceSession<B>
  recoveries: number
}

/** Runs `r` under its policy; see the module comment. */
export async function trainOnDevice<B, C, R>(r: DeviceRun<B, C, R>): Promise<DeviceRunResult<B, R>> {
  let kept: C | undefined
  let session = await r.open(undefined, 0)
  for (let recoveries = 0; ; ) {
    const watch = watchLost(session.lost)
    try {
      const part = r.run(session, kept, watch)
      part.catch(() => {}) // after a loss it fails in the background; the race has answered
      const out = await Promise.race([part, watch.failed])
      if ('done' in out) return { result: out.done, session, recoveries }
      kept = r.policy === 'resume' ? out.checkpoint : undefined
    } catch (e) {
      const reason = await watch.settled()
      session.dispose?.()
      if (!reason) throw e
      if (++recoveries > r.maxRecoveries) throw r.exhausted(reason, recoveries, kept)
      if (r.policy === 'rerun') kept = undefined
      r.onRecover?.(kept, reason)
      session = await r.open(kept, recoveries)
    }
  }
}
