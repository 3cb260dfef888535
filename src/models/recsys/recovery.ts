/**
 * Training that survives the loss of its GPU device. The loop runs in segments that end on an
 * evaluation (every `checkpointEvery` evaluations); after each, the weights, optimizer state and
 * loop state (cursor included) are kept in memory as a checkpoint. When the device is lost
 * (GPUDevice.lost: driver reset, `device.destroy()`, a crashed GPU process) the run opens a fresh
 * device, imports the last checkpoint and replays from its cursor — the loop resumes exactly
 * (train-loop.ts), so the final model equals the uninterrupted run's. After `maxRecoveries`
 * rebuilds it stops with a DeviceLostError naming the steps kept.
 */
import type { ModelState, RecsysBackend } from './backend.ts'
import type { ModelWeights } from './types.ts'
import { initialLoopState, trainLoop, type LoopState, type MetricRow, type TrainLoopOptions, type TrainLoopResult } from './train-loop.ts'
import { within } from '../../util/deadline.ts'

/** A backend on one device; `lost` resolves when that device is lost (absent: CPU, never lost); `dispose` destroys both. */
export interface DeviceSession {
  backend: RecsysBackend
  adapter: string
  lost?: Promise<{ reason?: string; message: string }>
  dispose?: () => void
}

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

/** The device was lost and the run could not (or may no longer) rebuild it. */
export class DeviceLostError extends Error {
  constructor(message: string, readonly stepsKept: number) {
    super(message)
    this.name = 'DeviceLostError'
  }
}

/** A checkpoint in memory: state, loop position, the metrics and samples up to it. */
interface Saved { state?: ModelState; best?: ModelWeights; loop: LoopState; metrics: MetricRow[]; samples: number; elapsedMs: number }

/** What trainWithRecovery returns: the loop's result over all segments, the live session, the rebuilds. */
export interface RecoveredRun { loop: TrainLoopResult; session: DeviceSession; recoveries: number }

/**
 * trainLoop over `o` (its backend, resume and stopAtStep are set here) in checkpointed segments.
 * The caller disposes the returned session.
 */
export async function trainWithRecovery(o: Omit<TrainLoopOptions, 'backend' | 'resume' | 'stopAtStep'>, rec: RecoveryOptions): Promise<RecoveredRun> {
  const p = o.params
  const perEpoch = Math.max(1, Math.ceil(o.source.stepsPerEpoch / p.eval_every))
  const seg = p.eval_every * Math.max(1, rec.checkpointEvery ?? perEpoch)
  let saved: Saved = { loop: initialLoopState(), metrics: [], samples: 0, elapsedMs: 0 }
  let session = await rec.open(undefined, 0)
  for (let recoveries = 0; ; ) {
    const watch = watchLost(session)
    try {
      const stopAt = session.lost ? (Math.floor(saved.loop.step / seg) + 1) * seg : undefined
      const run = segment(o, session, saved, watch, stopAt)
      run.catch(() => {}) // after a loss it fails in the background; the race below has already answered
      const r = await Promise.race([run, watch.failed])
      const kept = { loop: r.state, metrics: [...saved.metrics, ...r.metrics], samples: saved.samples + r.samples, elapsedMs: lastElapsed(r, saved) }
      if (r.finished) return { loop: { ...r, metrics: kept.metrics, samples: kept.samples, restored: restoredRow(r, kept.metrics) }, session, recoveries }
      saved = { ...kept, ...await Promise.race([capture(session.backend), watch.failed]) }
    } catch (e) {
      const lost = await watch.settled()
      if (!lost) throw e
      session.dispose?.()
      if (++recoveries > (rec.maxRecoveries ?? 2)) {
        throw new DeviceLostError(`GPU device lost (${lost}) ${recoveries} times; stopped at step ${saved.loop.step} `
          + `(the last checkpoint: ${saved.metrics.length} evaluations kept)`, saved.loop.step)
      }
      rec.onRecover?.(saved.loop.step, lost)
      session = await rec.open(saved.state, recoveries)
      if (saved.best) await session.backend.keepWeights?.(saved.best)
    }
  }
}

/** One segment from `saved` on `session`'s backend, the backend guarded so a lost device stops it at the next call. */
function segment(o: Omit<TrainLoopOptions, 'backend' | 'resume' | 'stopAtStep'>, session: DeviceSession, saved: Saved, watch: LostWatch, stopAtStep?: number): Promise<TrainLoopResult> {
  const offset = saved.elapsedMs
  return trainLoop({
    ...o, backend: session.lost ? guard(session.backend, watch) : session.backend, resume: saved.state ? saved.loop : undefined, stopAtStep,
    onMetrics: row => { row.elapsedMs += offset; o.onMetrics?.(row) },
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

/** The device's loss as a rejecting promise, plus a way to ask (after an error) whether it was lost. */
interface LostWatch { failed: Promise<never>; reason(): string | undefined; settled(): Promise<string | undefined> }

function watchLost(session: DeviceSession): LostWatch {
  let reason: string | undefined
  const failed = new Promise<never>((_, reject) => {
    session.lost?.then(info => {
      reason = `${info.reason ?? 'unknown'}: ${info.message || 'no message'}`
      reject(new Error(`GPU device lost (${reason})`))
    })
  })
  failed.catch(() => {})
  return {
    failed,
    reason: () => reason,
    // An error from a lost device can arrive a moment before `lost` resolves: wait briefly for it.
    async settled() {
      if (reason || !session.lost) return reason
      await within(session.lost, 300)
      return reason
    },
  }
}

/** `b` with every call refused once its device is lost, so the loop stops instead of feeding a dead device. */
function guard(b: RecsysBackend, watch: LostWatch): RecsysBackend {
  const check = (): void => {
    const r = watch.reason()
    if (r) throw new Error(`GPU device lost (${r})`)
  }
  return {
    get shape() { return b.shape },
    get maxBatch() { return b.maxBatch },
    step: async (batch, lr) => { check(); await b.step(batch, lr) },
    takeLosses: async () => { check(); return b.takeLosses() },
    predict: async batch => { check(); return b.predict(batch) },
    firstNonFinite: async () => { check(); return b.firstNonFinite() },
    exportState: async () => { check(); return b.exportState() },
    importState: async s => { check(); await b.importState(s) },
    destroy: () => b.destroy(),
    // restore_best keeps weights in the backend across segments: forward only what it has.
    ...(b.keepWeights ? { keepWeights: async (w?: ModelWeights) => { check(); await b.keepWeights!(w) } } : {}),
    ...(b.restoreKeptWeights ? { restoreKeptWeights: async () => { check(); return b.restoreKeptWeights!() } } : {}),
    ...(b.keptWeights ? { keptWeights: async () => { check(); return b.keptWeights!() } } : {}),
  }
}
