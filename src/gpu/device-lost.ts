/**
 * A lost GPUDevice, named once for every user: the training run's recovery (src/run/device-loss.ts)
 * and the sweep's slots (src/sweep/scheduler.ts) both watch `GPUDevice.lost` through watchLost and
 * fail with DeviceLostError.
 */
import { within } from '../util/deadline.ts'

/** The device was lost and the work on it could not (or may no longer) go on. */
export class DeviceLostError extends Error {
  /** `stepsKept`: the work kept before the loss (steps, rounds; 0 when nothing was kept). */
  constructor(
    message: string,
    readonly stepsKept = 0,
  ) {
    super(message)
    this.name = 'DeviceLostError'
  }
}

/** What `GPUDevice.lost` resolves to (the fields this module reads). */
export interface LostInfo {
  reason?: string
  message: string
}

/** "reason: message" of a loss, as every message about it says it. */
export function lostReason(info: LostInfo): string {
  return `${info.reason || 'unknown'}: ${info.message || 'no message'}`
}

/** A device's loss as a rejecting promise, plus a way to ask (after an error) whether it was lost. */
export interface LostWatch {
  /** Rejects with "GPU device lost (…)" when the device is lost; never settles otherwise. */
  failed: Promise<never>
  /** The loss reason once known. */
  reason(): string | undefined
  /** The loss reason, waiting briefly: an error from a lost device can arrive a moment before `lost` resolves. */
  settled(): Promise<string | undefined>
}

/** Watches `lost` (absent: a CPU backend, never lost). */
export function watchLost(lost?: Promise<LostInfo>): LostWatch {
  let reason: string | undefined
  const failed = new Promise<never>((_, reject) => {
    lost?.then(info => {
      reason = lostReason(info)
      reject(new DeviceLostError(`GPU device lost (${reason})`))
    })
  })
  failed.catch(() => {})
  return {
    failed,
    reason: () => reason,
    async settled() {
      if (reason || !lost) return reason
      await within(lost, 300)
      return reason
    },
  }
}
