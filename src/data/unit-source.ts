/**
 * Where a loader gets decoded units from: module workers (browser; comlink, buffers transferred)
 * or the loader's own thread (Node and the CLI: `workers: 0`). Which source reads a unit never
 * changes what the unit holds, so the delivered rows do not depend on the choice.
 */
import { wrap, releaseProxy } from 'comlink'
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
 * it is refused rather than silently dropped.
 */
export function workerSource(
  plan: ScanPlan, spec: DecodeSpec, http: HttpOptions, count: number, factory: WorkerFactory = defaultWorkerFactory,
): UnitSource {
  if (http.fetch) throw new RangeError('http.fetch cannot be sent to loader workers; use workers: 0 for an injected fetch')
  const { fetch: _unused, ...cloneable } = http
  const workerHttp: WorkerHttpOptions = cloneable
  const pool = Array.from({ length: count }, (_, i) => {
    const worker = factory()
    const api = wrap<LoaderWorkerApi>(worker)
    const ready = api.init(plan, spec, workerHttp)
    ready.catch(() => {}) // observed by the first read
    return { worker, api, inFlight: 0, ready, ...failure(worker, i) }
  })
  async function read(unitId: number, ids: boolean): Promise<DecodedUnit> {
    const slot = pool.reduce((best, w) => (w.inFlight < best.inFlight ? w : best))
    slot.inFlight++
    try {
      // A worker that dies (script failed to load, out of memory) never answers: race its error.
      await Promise.race([slot.ready, slot.failed])
      return await Promise.race([slot.api.readUnit(unitId, { ids }), slot.failed])
    } finally {
      slot.inFlight--
    }
  }
  function close(): void {
    for (const { worker, api, fail } of pool) {
      fail(new Error('loader closed while a unit was being read')) // a terminated worker never answers
      api[releaseProxy]()
      worker.terminate()
    }
  }
  return { workers: count, read, close }
}

/**
 * `failed` rejects when the worker reports an error event (e.g. its module failed to load) or
 * when `fail` is called (close); it never resolves.
 */
function failure(worker: Worker, index: number): { failed: Promise<never>; fail: (error: Error) => void } {
  let fail: (error: Error) => void = () => {}
  const failed = new Promise<never>((_, reject) => { fail = reject })
  failed.catch(() => {}) // observed by reads that race it
  worker.addEventListener?.('error', (event: ErrorEvent) => {
    fail(new Error(`loader worker ${index} failed: ${event.message || 'worker script error (did it load?)'}`))
  })
  return { failed, fail }
}
