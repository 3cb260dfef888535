/**
 * Where a loader gets decoded units from: module workers (browser; comlink, buffers transferred)
 * or the loader's own thread (Node and the CLI: `workers: 0`). Which source reads a unit never
 * changes what the unit holds, so the delivered rows do not depend on the choice.
 */
import { proxy, wrap, releaseProxy, type Remote } from 'comlink'
import type { HttpOptions } from '../table/types.ts'
import type { LoaderWorkerApi, WorkerHttpOptions } from '../workers/loader.api.ts'
import type { DecodeSpec, DecodedUnit, ScanPlan } from './types.ts'
import { createUnitReader, type UnitReaderStats } from './unit-reader.ts'
import type { Arrival } from './arrivals.ts'

/** Reads decoded units. */
export interface UnitSource {
  /** Number of workers (0 = in-process). */
  workers: number
  read(unitId: number, ids: boolean): Promise<DecodedUnit>
  close(): void
  /** Test hook (worker sources): worker `index` dies as a crash would; its units are re-read on a fresh worker. */
  killWorker?(index: number): void
  /** Dead workers replaced so far (worker sources). */
  restarts?(): number
}

/** Creates a loader worker; the default is the bundled module worker. */
export type WorkerFactory = () => Worker

/** The module worker at src/workers/loader.worker.ts (vite bundles it from this exact pattern). */
export function defaultWorkerFactory(): Worker {
  return new Worker(new URL('../workers/loader.worker.ts', import.meta.url), { type: 'module' })
}

/** Units read on the calling thread by one unit reader. */
export function inProcessSource(plan: ScanPlan, spec: DecodeSpec, http: HttpOptions): UnitSource {
  const reader = createUnitReader(plan, spec, http)
  return { workers: 0, read: (unitId, ids) => reader.read(unitId, { ids }), close: () => {} }
}

/**
 * `count` module workers, each initialised with the plan once; each read goes to the worker with
 * the fewest reads in flight. `http.fetch` cannot cross to a worker (functions do not clone), so
 * it is refused rather than silently dropped. Workers of the default factory come from, and go
 * back to, a page-wide idle pool (see takeWorker).
 */
export function workerSource(
  plan: ScanPlan,
  spec: DecodeSpec,
  http: HttpOptions,
  count: number,
  factory: WorkerFactory = defaultWorkerFactory,
): UnitSource {
  if (http.fetch)
    throw new RangeError('http.fetch cannot be sent to loader workers; use workers: 0 for an injected fetch')
  const { fetch: _unused, resolver, ...cloneable } = http
  // A governed table's resolver stays on this thread (it holds the URLs, tokens and renewals);
  // the workers call it through a comlink proxy, one renewal for all of them.
  const workerHttp: WorkerHttpOptions = cloneable
  const workerResolver = resolver ? proxy(resolver) : undefined
  // A trainer makes one loader per epoch over one plan: a pooled worker that last read this plan
  // with these settings keeps its reader (footers, open files, resolved columns) instead of
  // receiving the whole plan again. A resolver is a proxy per source, so those always re-init.
  const settings = workerResolver ? undefined : JSON.stringify([spec, workerHttp])
  const start = (i: number): Slot => {
    const held = takeWorker(factory)
    const warm = settings !== undefined && held.reads?.plan === plan && held.reads.settings === settings
    const ready = warm ? Promise.resolve() : held.api.init(plan, spec, workerHttp, workerResolver)
    if (!warm) {
      held.reads = undefined
      ready.then(
        () => {
          if (settings !== undefined) held.reads = { plan, settings }
        },
        () => {}, // observed by the first read
      )
    }
    return { held, inFlight: 0, ready, generation: 0, ...failure(held, i) }
  }
  const pool = Array.from({ length: count }, (_, i) => start(i))
  let closed = false,
    restarts = 0
  /** A dead worker (error event, or killWorker) is replaced once per death; reads that raced it retry. */
  function restart(i: number, generation: number, cause: Error): void {
    const slot = pool[i]
    if (slot.generation !== generation) return // another read already replaced it
    if (++restarts > MAX_RESTARTS)
      throw new Error(`${cause.message}; gave up after ${MAX_RESTARTS} loader worker restarts`)
    slot.detach()
    terminate(slot.held)
    pool[i] = { ...start(i), generation: generation + 1 }
  }
  async function read(unitId: number, ids: boolean): Promise<DecodedUnit> {
    for (;;) {
      const i = pool.reduce((best, w, k) => (w.inFlight < pool[best].inFlight ? k : best), 0)
      const slot = pool[i]
      slot.inFlight++
      try {
        // A worker that dies never answers: race its death, then re-read the unit on its replacement.
        await Promise.race([slot.ready, slot.failed])
        const unit = await Promise.race([slot.held.api.readUnit(unitId, { ids }), slot.failed])
        unit.timing.receivedAt = performance.timeOrigin + performance.now()
        return unit
      } catch (e) {
        if (closed || !(e instanceof WorkerDied)) throw e
        restart(i, slot.generation, e)
      } finally {
        slot.inFlight--
      }
    }
  }
  function close(): void {
    closed = true
    for (const slot of pool) {
      slot.fail(new Error('loader closed while a unit was being read')) // a terminated worker never answers
      slot.detach()
      putBack(slot.held, factory, slot.inFlight === 0 && !slot.broken())
    }
  }
  /** Test hook: worker `i` dies as a crash would (terminated; its reads fail and are retried on a new one). */
  function killWorker(i: number): void {
    const slot = pool[i]
    if (!slot) throw new RangeError(`killWorker: no loader worker ${i} (${pool.length} workers)`)
    slot.held.worker.terminate()
    slot.kill()
  }
  return { workers: count, read, close, killWorker, restarts: () => restarts }
}

/** Restarts of dead loader workers one source allows before a read fails (a worker that keeps dying is a bug, not bad luck). */
const MAX_RESTARTS = 8

/** One pool slot: its worker, its reads in flight, its death; `generation` counts replacements. */
type Slot = { held: HeldWorker; inFlight: number; ready: Promise<void>; generation: number } & ReturnType<
  typeof failure
>

/** The error of a read whose worker died: the unit is read again on a fresh worker. */
export class WorkerDied extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'WorkerDied'
  }
}

/** A started worker and its comlink proxy (kept together: a released proxy stops the worker answering). */
interface HeldWorker {
  worker: Worker
  api: Remote<LoaderWorkerApi>
  timer?: ReturnType<typeof setTimeout>
  /** The plan and settings (spec, HTTP options) its reader was initialised with, once that succeeded. */
  reads?: { plan: ScanPlan; settings: string }
}

/**
 * Idle workers of the default factory. Starting a module worker costs ~150 ms of module loading
 * plus a cold JIT for the first units (measured in Chromium), paid again by every loader — one per
 * epoch in a training run — so a closed loader's idle workers wait here for the next loader.
 */
const idle: HeldWorker[] = []

/** How long an idle worker waits for reuse before it is terminated. */
const IDLE_MS = 20_000

function takeWorker(factory: WorkerFactory): HeldWorker {
  const reused = factory === defaultWorkerFactory ? idle.pop() : undefined
  if (reused) {
    clearTimeout(reused.timer)
    return reused
  }
  const worker = factory()
  return { worker, api: wrap<LoaderWorkerApi>(worker) }
}

/** Pools a reusable worker of the default factory; terminates any other (busy, broken, custom). */
function putBack(held: HeldWorker, factory: WorkerFactory, reusable: boolean): void {
  if (reusable && factory === defaultWorkerFactory) {
    held.timer = setTimeout(() => {
      const at = idle.indexOf(held)
      if (at >= 0) idle.splice(at, 1)
      terminate(held)
    }, IDLE_MS)
    idle.push(held)
    return
  }
  terminate(held)
}

function terminate(held: HeldWorker): void {
  held.api[releaseProxy]()
  held.worker.terminate()
}

/** Reader totals of the pooled idle workers that hold a reader (the bench's wire rows; a worker that fails to answer is left out). */
export async function idleWorkerStats(): Promise<(UnitReaderStats & { arrivals: Arrival[] })[]> {
  const answers = await Promise.all(idle.filter(h => h.reads).map(h => h.api.stats().catch(() => undefined)))
  return answers.filter(s => s !== undefined)
}

/** Terminates the idle pooled workers now (cold-start measurements, page teardown). */
export function releaseIdleWorkers(): void {
  for (const held of idle.splice(0)) {
    clearTimeout(held.timer)
    terminate(held)
  }
}

/**
 * `failed` rejects when the worker reports an error event (e.g. its module failed to load) or
 * when `fail` is called (close); it never resolves. `detach` removes the listener (pooled reuse).
 */
function failure(
  held: HeldWorker,
  index: number,
): {
  failed: Promise<never>
  fail: (error: Error) => void
  kill: () => void
  detach: () => void
  broken: () => boolean
} {
  let fail: (error: Error) => void = () => {}
  let broken = false
  const failed = new Promise<never>((_, reject) => {
    fail = reject
  })
  failed.catch(() => {}) // observed by reads that race it
  const onError = (event: ErrorEvent): void => {
    broken = true
    fail(new WorkerDied(`loader worker ${index} failed: ${event.message || 'worker script error (did it load?)'}`))
  }
  const kill = (): void => {
    broken = true
    fail(new WorkerDied(`loader worker ${index} died`))
  }
  held.worker.addEventListener?.('error', onError)
  return { failed, fail, kill, detach: () => held.worker.removeEventListener?.('error', onError), broken: () => broken }
}
