/**
 * Where a loader gets decoded units from: module workers (browser; comlink, buffers transferred)
 * or the loader's own thread (Node and the CLI: `workers: 0`). Which source reads a unit never
 * changes what the unit holds, so the delivered rows do not depend on the choice.
 */
import { wrap, releaseProxy, type Remote } from 'comlink'
import type { HttpOptions } from '../table/types.ts'
import type { LoaderWorkerApi, WorkerHttpOptions } from '../workers/loader.api.ts'
import type { DecodeSpec, DecodedUnit, ScanPlan } from './types.ts'
import { createUnitReader } from './unit-reader.ts'

/** Reads decoded units. */
export interface UnitSource {
  /** Number of workers (0 = in-process). */
  workers: number
  read(unitId: number, ids: boolean): Promise<DecodedUnit>
  close(): void
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
  plan: ScanPlan, spec: DecodeSpec, http: HttpOptions, count: number, factory: WorkerFactory = defaultWorkerFactory,
): UnitSource {
  if (http.fetch) throw new RangeError('http.fetch cannot be sent to loader workers; use workers: 0 for an injected fetch')
  const { fetch: _unused, ...cloneable } = http
  const workerHttp: WorkerHttpOptions = cloneable
  const pool = Array.from({ length: count }, (_, i) => {
    const held = takeWorker(factory)
    const ready = held.api.init(plan, spec, workerHttp)
    ready.catch(() => {}) // observed by the first read
    return { held, inFlight: 0, ready, ...failure(held, i) }
  })
  async function read(unitId: number, ids: boolean): Promise<DecodedUnit> {
    const slot = pool.reduce((best, w) => (w.inFlight < best.inFlight ? w : best))
    slot.inFlight++
    try {
      // A worker that dies (script failed to load, out of memory) never answers: race its error.
      await Promise.race([slot.ready, slot.failed])
      const unit = await Promise.race([slot.held.api.readUnit(unitId, { ids }), slot.failed])
      unit.timing.receivedAt = performance.timeOrigin + performance.now()
      return unit
    } finally {
      slot.inFlight--
    }
  }
  function close(): void {
    for (const slot of pool) {
      slot.fail(new Error('loader closed while a unit was being read')) // a terminated worker never answers
      slot.detach()
      putBack(slot.held, factory, slot.inFlight === 0 && !slot.broken())
    }
  }
  return { workers: count, read, close }
}

/** A started worker and its comlink proxy (kept together: a released proxy stops the worker answering). */
interface HeldWorker { worker: Worker; api: Remote<LoaderWorkerApi>; timer?: ReturnType<typeof setTimeout> }

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
function failure(held: HeldWorker, index: number): { failed: Promise<never>; fail: (error: Error) => void; detach: () => void; broken: () => boolean } {
  let fail: (error: Error) => void = () => {}
  let broken = false
  const failed = new Promise<never>((_, reject) => { fail = reject })
  failed.catch(() => {}) // observed by reads that race it
  const onError = (event: ErrorEvent): void => {
    broken = true
    fail(new Error(`loader worker ${index} failed: ${event.message || 'worker script error (did it load?)'}`))
  }
  held.worker.addEventListener?.('error', onError)
  return { failed, fail, detach: () => held.worker.removeEventListener?.('error', onError), broken: () => broken }
}
