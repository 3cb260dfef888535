/**
 * The sweep scheduler: runs a strategy's trials on P slots in parallel (each slot owns its
 * GPUDevice), feeds reports and completions back, and persists the sweep on every trial change.
 * A failed trial is recorded with its error and the sweep goes on; a slot whose device is lost
 * fails its trial with the cause and gets a fresh device. Aborting keeps finished trials and
 * leaves running ones 'pending'; resuming replays the call log into a fresh strategy (replay.ts)
 * and runs only the unfinished trials. Times: GPU-seconds from the runner (busy time of the
 * slot's queue, gpu-busy.ts), wall seconds summed over sessions.
 */
import { replaySweep, type LoggedSweepState, type SweepLogEntry } from '../tune/replay.ts'
import { bestOf, isSweepState, newSweepState, trialRecord, updateTotals } from '../tune/sweep-state.ts'
import type {
  Strategy,
  SweepConfig,
  SweepEvent,
  SweepState,
  SweepStore,
  TrialRecord,
  TrialRequest,
  TrialRunner,
} from '../tune/types.ts'
import { DeviceLostError } from '../gpu/device-lost.ts'
import { within } from '../util/deadline.ts'

/** One worker place: a runner on its own device, and how to notice and release that device. */
export interface TrialSlot {
  runner: TrialRunner
  /** Resolves with the cause when the slot's device is lost or destroyed (never, for devices that cannot be). */
  lost: Promise<string>
  dispose(): void
}

/** Makes slot `index` (0 … P−1), again after a device loss. */
export type SlotFactory = (index: number) => Promise<TrialSlot>

/** Options of runSweep beyond the contract's arguments. */
export interface SchedulerOptions {
  /** Trials in parallel (default: config.parallel ?? 1). */
  parallel?: number
  /** Sweep id of a new sweep (default: a random one). */
  id?: string
  /** What the configurations would cost at full budget, GPU-seconds (cost.ts); default: 0. */
  fullBudget?: (state: SweepState) => number
}

/** A scheduler run's moving parts. */
interface Run {
  state: LoggedSweepState
  store: SweepStore
  log: SweepLogEntry[]
  strategy: Strategy
  slots: Array<TrialSlot | undefined>
  makeSlot: SlotFactory
  reported: Map<number, number>
  signal: AbortSignal
  emit: (e: SweepEvent) => void
  persist: () => void
  opts: SchedulerOptions
}

/**
 * Runs (or resumes, given a stored state) a sweep to its end or until `signal` aborts. Resolves
 * with the final state (status 'finished' or 'stopped'); store writes happen on every change.
 */
export async function runSweep(
  init: SweepState | SweepConfig,
  strategy: Strategy,
  runner: TrialRunner | SlotFactory,
  store: SweepStore,
  onEvent: (e: SweepEvent) => void = () => {},
  signal: AbortSignal = new AbortController().signal,
  opts: SchedulerOptions = {},
): Promise<SweepState> {
  const state: LoggedSweepState = isSweepState(init) ? structuredClone(init) : newSweepState(init, opts.id)
  const { rerun, reported, log } = replaySweep(strategy, state)
  state.log = log
  state.status = 'running'
  delete state.error
  const writer = createWriter(store, state)
  const run: Run = {
    state,
    store,
    log,
    strategy,
    slots: [],
    makeSlot: typeof runner === 'function' ? runner : () => Promise.resolve(fixedSlot(runner)),
    reported,
    signal,
    emit: onEvent,
    persist: writer.schedule,
    opts,
  }
  const t0 = performance.now(),
    wall0 = state.wallSeconds
  const tick = (): void => {
    state.wallSeconds = wall0 + (performance.now() - t0) / 1000
  }
  try {
    await schedule(run, rerun, opts.parallel ?? state.config.parallel ?? 1, tick)
    state.status = signal.aborted ? 'stopped' : 'finished'
  } catch (e) {
    state.status = 'failed'
    state.error = (e as Error).message
    throw e
  } finally {
    tick()
    finishTotals(run)
    for (const s of run.slots) s?.dispose()
    writer.schedule()
    await writer.flush()
    onEvent({ kind: 'state', state: publicState(state) })
  }
  return publicState(state)
}

/** Fills free slots from the re-run queue, then the strategy, until nothing runs and nothing is left. */
async function schedule(run: Run, rerun: TrialRequest[], parallel: number, tick: () => void): Promise<void> {
  const running = new Map<number, Promise<void>>()
  let done = false
  for (;;) {
    for (let slot = 0; slot < parallel && !run.signal.aborted && !done; slot++) {
      if (running.has(slot)) continue
      const req = rerun.shift() ?? nextRequest(run)
      if (req === 'done') done = true
      if (typeof req === 'string') break
      running.set(
        slot,
        runTrial(run, req, slot).finally(() => {
          running.delete(slot)
          tick()
        }),
      )
    }
    if (running.size === 0) return
    await Promise.race([...running.values(), aborted(run.signal)])
    if (run.signal.aborted) {
      await Promise.all(running.values())
      return
    }
  }
}

/** strategy.next(), logged. */
function nextRequest(run: Run): TrialRequest | 'wait' | 'done' {
  const req = run.strategy.next()
  if (typeof req !== 'string') run.log.push(['n', req.id])
  else if (req === 'wait') run.log.push(['w'])
  return req
}

/** Runs one trial on `slot` and records how it ended; never throws. */
async function runTrial(run: Run, req: TrialRequest, slotIndex: number): Promise<void> {
  const rec = upsertTrial(run.state, req)
  const t0 = performance.now()
  let ended = false,
    stopped = false
  const report = (resource: number, metric: number): 'continue' | 'stop' => {
    if (ended || run.signal.aborted) return 'stop'
    rec.curve.push({ resource, metric, elapsedMs: performance.now() - t0 })
    rec.metric = metric
    // A re-run trial's reports up to what the strategy already heard are not repeated.
    let answer: 'continue' | 'stop' = 'continue'
    if (resource > (run.reported.get(req.id) ?? 0)) {
      run.log.push(['r', req.id, resource, metric])
      answer = run.strategy.report(req.id, resource, metric)
    }
    if (answer === 'stop') stopped = true
    changed(run, rec, false)
    return answer
  }
  changed(run, rec, true)
  let slot: TrialSlot | undefined
  try {
    slot = await getSlot(run, slotIndex)
    const trialAbort = new AbortController()
    const onAbort = (): void => trialAbort.abort(run.signal.reason)
    run.signal.addEventListener('abort', onAbort)
    try {
      const work = slot.runner.run(req, report, trialAbort.signal)
      // After a device loss the runner may still reject later; that is no longer news.
      work.catch(() => {})
      const out = await Promise.race([
        work,
        slot.lost.then(cause => {
          throw new DeviceLostError(cause)
        }),
      ])
      rec.gpuSeconds = out.gpuSeconds
      if (out.params) rec.params = out.params
      if (out.artifacts && !run.signal.aborted) await saveArtifacts(run, req.id, out.artifacts)
    } finally {
      run.signal.removeEventListener('abort', onAbort)
      trialAbort.abort()
    }
    end(run, rec, run.signal.aborted ? 'pending' : stopped ? 'stopped' : 'completed')
  } catch (e) {
    const lostCause = e instanceof DeviceLostError ? e.message : slot && (await lostSoon(slot))
    if (lostCause !== undefined) replaceSlot(run, slotIndex)
    if (!run.signal.aborted) rec.error = lostCause ?? (e instanceof Error ? e.message : String(e))
    end(run, rec, run.signal.aborted ? 'pending' : 'failed')
  } finally {
    ended = true
    rec.wallSeconds = (performance.now() - t0) / 1000
    changed(run, rec, true)
  }
}

/** Records the trial's end and tells the strategy (an aborted trial stays pending: resume runs it again). */
function end(run: Run, rec: TrialRecord, status: TrialRecord['status']): void {
  rec.status = status
  rec.endedAt = new Date().toISOString()
  if (status === 'pending') {
    rec.curve = []
    delete rec.metric
    delete rec.endedAt
    delete rec.params
    return
  }
  if (status === 'failed') delete rec.metric
  run.log.push(['c', rec.id, status as 'completed' | 'stopped' | 'failed', rec.metric ?? null])
  run.strategy.complete(rec.id, status as 'completed' | 'stopped' | 'failed', rec.metric)
  run.reported.delete(rec.id)
}

/** The trial's record, new or reset for a re-run, marked running. */
function upsertTrial(state: SweepState, req: TrialRequest): TrialRecord {
  let rec = state.trials.find(t => t.id === req.id)
  if (!rec) {
    rec = trialRecord(req)
    state.trials.push(rec)
  }
  Object.assign(rec, {
    status: 'running',
    curve: [],
    gpuSeconds: 0,
    wallSeconds: 0,
    startedAt: new Date().toISOString(),
  })
  delete rec.metric
  delete rec.error
  delete rec.endedAt
  delete rec.params
  return rec
}

/** A trial changed: totals, best, persistence and events (whole state only when `major`). */
function changed(run: Run, rec: TrialRecord, major: boolean): void {
  finishTotals(run)
  run.state.updatedAt = new Date().toISOString()
  run.persist()
  run.emit({ kind: 'trial', trial: structuredClone(rec) })
  if (major) run.emit({ kind: 'state', state: publicState(run.state) })
}

function finishTotals(run: Run): void {
  updateTotals(run.state)
  run.state.best = bestOf(run.state)
  run.state.gpuSecondsFullBudget = run.opts.fullBudget?.(run.state) ?? run.state.gpuSecondsFullBudget
}

async function getSlot(run: Run, index: number): Promise<TrialSlot> {
  run.slots[index] ??= await run.makeSlot(index)
  return run.slots[index]!
}

function replaceSlot(run: Run, index: number): void {
  run.slots[index]?.dispose()
  run.slots[index] = undefined
}

async function saveArtifacts(
  run: Run,
  trial: number,
  a: NonNullable<Awaited<ReturnType<TrialRunner['run']>>['artifacts']>,
): Promise<void> {
  await run.store.putArtifacts(run.state.id, trial, a)
}

/**
 * The loss cause when the slot's device is lost now or within a moment: a destroyed device
 * often fails the trial's GPU calls (mapAsync …) before its `lost` promise settles, and the
 * trial should fail with the cause, not the symptom.
 */
function lostSoon(slot: TrialSlot, ms = 100): Promise<string | undefined> {
  return within(slot.lost, ms)
}

/** A slot around a runner that owns no device (tests, CPU runners). */
function fixedSlot(runner: TrialRunner): TrialSlot {
  return { runner, lost: new Promise(() => {}), dispose: () => {} }
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise(resolve => {
    if (signal.aborted) resolve()
    else signal.addEventListener('abort', () => resolve(), { once: true })
  })
}

/** The state without the scheduler's log (what events carry and callers get). */
function publicState(s: LoggedSweepState): SweepState {
  const { log: _log, ...rest } = s
  return structuredClone(rest)
}

/**
 * Store writes that never pile up: a change while a write is in flight marks the state dirty and
 * one more write follows, so the store always ends with the latest state.
 */
function createWriter(
  store: SweepStore,
  state: LoggedSweepState,
): { schedule: () => void; flush: () => Promise<void> } {
  let inFlight: Promise<void> | undefined,
    dirty = false,
    failure: unknown
  const write = async (): Promise<void> => {
    try {
      while (dirty) {
        dirty = false
        await store.put(structuredClone(state))
      }
    } catch (e) {
      failure ??= e
    } finally {
      inFlight = undefined
    }
  }
  return {
    schedule: () => {
      dirty = true
      inFlight ??= write()
    },
    flush: async () => {
      while (inFlight) await inFlight
      if (failure) throw new Error(`saving sweep ${state.id}: ${(failure as Error).message ?? failure}`)
    },
  }
}
