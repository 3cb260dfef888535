/**
 * Training that survives the loss of its GPU device. The loop runs in segments that end on an
 * evaluation (every `checkpointEvery` evaluations); after each, the weights, optimizer state and
 * loop state (cursor included) are kept in memory as a checkpoint. When the device is lost
 * (GPUDevice.lost: driver reset, `device.destroy()`, a crashed GPU process) the run opens a fresh
 * device, imports the last checkpoint and replays from its cursor — the loop resumes exactly
 * (train-loop.ts), so the final model equals the uninterrupted run's. After `maxRecoveries`
 * rebuilds it stops with a DeviceLostError naming the steps kept. The loop of rebuilds is the
 * run's one device-loss policy (src/run/device-loss.ts, 'resume'); this module is the segments.
 */
import type { ModelState, RecsysBackend } from './backend.ts'
import type { ModelWeights } from './types.ts'
import {
  addTiming,
  initialLoopState,
  trainLoop,
  zeroTiming,
  type LoopTiming,
  type LoopState,
  type MetricRow,
  type TrainLoopOptions,
  type TrainLoopResult,
} from './train-loop.ts'
import {
  DeviceLostError,
  trainOnDevice,
  type DeviceSession as RunSession,
  type RunPart,
} from '../../run/device-loss.ts'
import type { LostWatch } from '../../gpu/device-lost.ts'

/** A backend on one device; `lost` resolves when that device is lost (absent: CPU, never lost); `dispose` destroys both. */
export type DeviceSession = RunSession<RecsysBackend>

/** How to run with recovery. */
export interface RecoveryOptions {
  /** A backend on a fresh device holding `state` (undefined: the seeded initial weights); `attempt` 0 is the first. */
  open(state: ModelState | undefined, attempt: number): Promise<DeviceSession>
  /** Evaluations per segment (= between in-memory checkpoints); default 1 per epoch's worth. */
  checkpointEvery?: number
  /** Device rebuilds allowed before giving up (default 2). */
  maxRecoveries?: number
  /** Told of each recovery: the step the run resumes from. */
  onRecover?: (fromStep: number, reason: string) => void
}

export { DeviceLostError }

/** A checkpoint in memory: state, loop position, the metrics and samples up to it. */
export interface RecsysCheckpoint {
  state?: ModelState
  best?: ModelWeights
  loop: LoopState
  metrics: MetricRow[]
  samples: number
  elapsedMs: number
  /** The time split of the segments up to it (checkpoint captures in checkpoint_s). */
  timing: RunTiming
}
type Saved = RecsysCheckpoint

/** The loop's time split over all segments plus the in-memory checkpoints taken between them. */
export interface RunTiming extends LoopTiming {
  /** Checkpoint captures between segments (weights and optimizer state read back). */
  checkpoint_s: number
}

/** What trainWithRecovery returns: the loop's result over all segments, the live session, the rebuilds. */
export interface RecoveredRun {
  loop: TrainLoopResult
  session: DeviceSession
  recoveries: number
  /** The loop's split summed over the segments that were kept, plus checkpoint captures. */
  timing: RunTiming
}

/** The loop's result over every segment, with the time split summed over them. */
export type SegmentedResult = TrainLoopResult & { timing: RunTiming }

const START: Saved = {
  loop: initialLoopState(),
  metrics: [],
  samples: 0,
  elapsedMs: 0,
  timing: { ...zeroTiming(), checkpoint_s: 0 },
}

/** The model put back to checkpoint `from`'s restore_best weights (its state is imported by whoever opened it). */
export async function restoreKept(backend: RecsysBackend, from: Saved | undefined): Promise<void> {
  if (from?.best) await backend.keepWeights?.(from.best)
}

/**
 * trainLoop over `o` (its backend, resume and stopAtStep are set here) on `session` from checkpoint
 * `from`: on a session that can be lost, in segments of `checkpointEvery` evaluations (default:
 * about one per epoch), each ending in a checkpoint; elsewhere to the end. The 'resume' policy's
 * run (src/run/device-loss.ts DeviceRun.run).
 */
export function runSegments(
  o: Omit<TrainLoopOptions, 'backend' | 'resume' | 'stopAtStep'>,
  checkpointEvery?: number,
): (session: DeviceSession, from: Saved | undefined, watch: LostWatch) => Promise<RunPart<Saved, SegmentedResult>> {
  const p = o.params
  const perEpoch = Math.max(1, Math.ceil(o.source.stepsPerEpoch / p.eval_every))
  const seg = p.eval_every * Math.max(1, checkpointEvery ?? perEpoch)
  return async (session, from, watch) => {
    const saved = from ?? START
    const stopAt = session.lost ? (Math.floor(saved.loop.step / seg) + 1) * seg : undefined
    const r = await segment(o, session, saved, watch, stopAt)
    const timing = { ...addTiming(saved.timing, r.timing), checkpoint_s: saved.timing.checkpoint_s }
    const kept = {
      loop: r.state,
      metrics: [...saved.metrics, ...r.metrics],
      samples: saved.samples + r.samples,
      elapsedMs: lastElapsed(r, saved),
    }
    if (r.finished) {
      const done = { ...r, metrics: kept.metrics, samples: kept.samples, restored: restoredRow(r, kept.metrics) }
      return { done: { ...done, timing } }
    }
    const t = performance.now()
    const captured = await Promise.race([capture(session.backend), watch.failed])
    timing.checkpoint_s += (performance.now() - t) / 1000
    return { checkpoint: { ...kept, timing, ...captured } }
  }
}

/** The error once the rebuilds are spent, naming the steps kept. */
export function resumeExhausted(reason: string, losses: number, kept: Saved | undefined): DeviceLostError {
  return new DeviceLostError(
    `GPU device lost (${reason}) ${losses} times; stopped at step ${kept?.loop.step ?? 0} ` +
      `(the last checkpoint: ${kept?.metrics.length ?? 0} evaluations kept)`,
    kept?.loop.step ?? 0,
  )
}

/**
 * runSegments under the 'resume' policy on the caller's devices (tests open and destroy their
 * own). A run's own devices come from its session (src/run/session.ts) over the same policy loop.
 * The caller disposes the returned session.
 */
export async function trainWithRecovery(
  o: Omit<TrainLoopOptions, 'backend' | 'resume' | 'stopAtStep'>,
  rec: RecoveryOptions,
): Promise<RecoveredRun> {
  const { result, session, recoveries } = await trainOnDevice<RecsysBackend, Saved, SegmentedResult>({
    policy: 'resume',
    maxRecoveries: rec.maxRecoveries ?? 2,
    open: async (saved, attempt) => {
      const s = await rec.open(saved?.state, attempt)
      await restoreKept(s.backend, saved)
      return s
    },
    run: runSegments(o, rec.checkpointEvery),
    onRecover: (from, reason) => rec.onRecover?.(from?.loop.step ?? 0, reason),
    exhausted: resumeExhausted,
  })
  return { loop: result, session, recoveries, timing: result.timing }
}

/** One segment from `saved` on `session`'s backend, the backend guarded so a lost device stops it at the next call. */
function segment(
  o: Omit<TrainLoopOptions, 'backend' | 'resume' | 'stopAtStep'>,
  session: DeviceSession,
  saved: Saved,
  watch: LostWatch,
  stopAtStep?: number,
): Promise<TrainLoopResult> {
  const offset = saved.elapsedMs
  return trainLoop({
    ...o,
    backend: session.lost ? guard(session.backend, watch) : session.backend,
    resume: saved.state ? saved.loop : undefined,
    stopAtStep,
    onMetrics: row => {
      row.elapsedMs += offset
      o.onMetrics?.(row)
    },
  })
}

/** The state to resume from, with restore_best's kept weights (they live on the device and die with it). */
async function capture(b: RecsysBackend): Promise<Pick<Saved, 'state' | 'best'>> {
  const best = await b.keptWeights?.()
  return { state: await b.exportState(), best }
}

/**
 * The restored-best row over all segments: the last segment knows only its own rows, and one
 * that began right after the best evaluation restores weights equal to the current ones.
 */
function restoredRow(r: TrainLoopResult, all: MetricRow[]): MetricRow | undefined {
  if (!r.restored) return undefined
  if (all.at(-1)?.step === r.restored.step) return undefined
  return all.find(m => m.step === r.restored!.step) ?? r.restored
}

function lastElapsed(r: TrainLoopResult, saved: Saved): number {
  return r.metrics.length ? r.metrics[r.metrics.length - 1].elapsedMs : saved.elapsedMs
}

/** `b` with every call refused once its device is lost, so the loop stops instead of feeding a dead device. */
function guard(b: RecsysBackend, watch: LostWatch): RecsysBackend {
  const check = (): void => {
    const r = watch.reason()
    if (r) throw new Error(`GPU device lost (${r})`)
  }
  return {
    get shape() {
      return b.shape
    },
    get maxBatch() {
      return b.maxBatch
    },
    step: async (batch, lr) => {
      check()
      await b.step(batch, lr)
    },
    takeLosses: async () => {
      check()
      return b.takeLosses()
    },
    predict: async batch => {
      check()
      return b.predict(batch)
    },
    firstNonFinite: async () => {
      check()
      return b.firstNonFinite()
    },
    exportState: async () => {
      check()
      return b.exportState()
    },
    importState: async s => {
      check()
      await b.importState(s)
    },
    destroy: () => b.destroy(),
    ...(b.timing ? { timing: () => b.timing!() } : {}),
    // restore_best keeps weights in the backend across segments: forward only what it has.
    ...(b.keepWeights
      ? {
          keepWeights: async (w?: ModelWeights) => {
            check()
            await b.keepWeights!(w)
          },
        }
      : {}),
    ...(b.restoreKeptWeights
      ? {
          restoreKeptWeights: async () => {
            check()
            return b.restoreKeptWeights!()
          },
        }
      : {}),
    ...(b.keptWeights
      ? {
          keptWeights: async () => {
            check()
            return b.keptWeights!()
          },
        }
      : {}),
  }
}
