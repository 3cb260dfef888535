/**
 * GBDT training that survives the loss of its GPU device. The booster's only state between
 * rounds lives on the device (margins, gradients, positions), and training is deterministic
 * (fixed-point histograms: same data, seed and parameters ⇒ the same trees), so the recovery is to
 * rebuild the device and train again: the rounds redone give exactly the trees already earned and
 * the final model equals an uninterrupted run's. After `maxRecoveries` rebuilds the run stops with
 * an error naming the device loss and the rounds that had finished.
 */
import type { BackendFactory } from './backend.ts'
import type { Booster } from './types.ts'
import { within } from '../../util/deadline.ts'

/** A backend on one device; `lost` resolves when the device is lost (absent: CPU, never lost). */
export interface LosableBackend { factory: BackendFactory; adapter: string; dispose?: () => void; lost?: Promise<{ reason?: string; message: string }> }

/** How to run with recovery. */
export interface GbdtRecovery {
  /** A backend on a fresh device; `attempt` 0 is the first. */
  open(attempt: number): Promise<LosableBackend>
  /** Trains on `factory`, reporting each finished round through `onRound`. */
  train(factory: BackendFactory, onRound: (round: number) => void): Promise<Booster>
  /** Device rebuilds allowed (default 1). */
  maxRecoveries?: number
  /** Told of each rebuild: the rounds that had finished and the loss reason. */
  onRecover?: (roundsDone: number, reason: string) => void
  numRound: number
}

/** Trains with recovery; resolves to the booster and the adapter label of the device that finished it. */
export async function trainRecovering(r: GbdtRecovery): Promise<{ booster: Booster; adapter: string }> {
  for (let attempt = 0; ; attempt++) {
    const backend = await r.open(attempt)
    let done = 0
    let reason: string | undefined
    const lost = new Promise<never>((_, reject) => backend.lost?.then(info => {
      reason = `${info.reason ?? 'unknown'}: ${info.message || 'no message'}`
      reject(new Error(`GPU device lost (${reason})`))
    }))
    lost.catch(() => {})
    try {
      const run = r.train(backend.factory, round => { done = round + 1 })
      run.catch(() => {}) // after a loss it fails in the background; the race has answered
      return { booster: await Promise.race([run, lost]), adapter: backend.adapter }
    } catch (e) {
      // An error from a lost device can arrive a moment before `lost` resolves.
      if (backend.lost && !reason) await within(backend.lost, 300)
      if (!reason) throw e
      if (attempt >= (r.maxRecoveries ?? 1)) {
        throw new Error(`GPU device lost (${reason}) after ${done} of ${r.numRound} boosting rounds, ${attempt + 1} time(s); `
          + 'nothing was written. The run is deterministic: rerun it (same seed and parameters give the same trees), or use --backend cpu')
      }
      r.onRecover?.(done, reason)
    } finally {
      backend.dispose?.()
    }
  }
}
