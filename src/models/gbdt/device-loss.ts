/**
 * GBDT under the run's device-loss policy (src/run/device-loss.ts): 'rerun'. The booster's only
 * state between rounds lives on the device (margins, gradients, positions), and training is
 * deterministic (fixed-point histograms: same data, seed and parameters ⇒ the same trees), so the
 * recovery is to rebuild the device and train again: the rounds redone give exactly the trees
 * already earned and the final model equals an uninterrupted run's. After `maxRecoveries`
 * rebuilds the run stops with an error naming the device loss and the rounds that had finished.
 */
import type { BackendFactory } from './backend.ts'
import type { Booster } from './types.ts'
import { DeviceLostError, trainOnDevice, type DeviceSession } from '../../run/device-loss.ts'

/** A GBDT backend factory on one device (the run's DeviceSession: `lost` absent on the CPU, never lost). */
export type LosableBackend = DeviceSession<BackendFactory>

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

/**
 * The rounds of the current attempt under 'rerun' (each attempt counts from round 0 again), and
 * the rebuild message and exhausted error that name them. The family's fit (family.ts) and
 * trainRecovering share it.
 */
export interface RerunRounds {
  /** A new attempt: 0 rounds finished. */
  start(): void
  /** Round `round` (0-based) finished. */
  round(round: number): void
  /** Rounds finished in the current attempt. */
  readonly done: number
  /** The error once the rebuilds are spent. */
  exhausted(reason: string, losses: number): DeviceLostError
}

/** A round counter for a run of `numRound` rounds. */
export function rerunRounds(numRound: number): RerunRounds {
  let done = 0
  return {
    start: () => {
      done = 0
    },
    round: round => {
      done = round + 1
    },
    get done() {
      return done
    },
    exhausted: (reason, losses) =>
      new DeviceLostError(
        `GPU device lost (${reason}) after ${done} of ${numRound} boosting rounds, ${losses} time(s); ` +
          'nothing was written. The run is deterministic: rerun it (same seed and parameters give the same trees), or use --backend cpu',
        done,
      ),
  }
}

/**
 * Trains with recovery on the caller's devices (tests open and destroy their own); resolves to the
 * booster and the adapter label of the device that finished it. A run's own devices come from its
 * session (src/run/session.ts) over the same policy loop (trainOnDevice).
 */
export async function trainRecovering(r: GbdtRecovery): Promise<{ booster: Booster; adapter: string }> {
  const rounds = rerunRounds(r.numRound)
  const { result, session } = await trainOnDevice<BackendFactory, never, Booster>({
    policy: 'rerun',
    maxRecoveries: r.maxRecoveries ?? 1,
    open: (_, attempt) => r.open(attempt),
    run: async session => {
      rounds.start()
      return { done: await r.train(session.backend, round => rounds.round(round)) }
    },
    onRecover: (_, reason) => r.onRecover?.(rounds.done, reason),
    exhausted: (reason, losses) => rounds.exhausted(reason, losses),
  })
  session.dispose?.()
  return { booster: result, adapter: session.adapter }
}
