/**
 * The loader worker's API (comlink), shared by src/workers/loader.worker.ts and the main side
 * (src/data/worker-pool.ts) through `import type`. The logic lives in src/data/loader-service.ts.
 */
import type { HttpOptions, UrlResolver } from '../table/types.ts'
import type { DecodeSpec, DecodedUnit, ScanPlan } from '../data/types.ts'
import type { UnitReaderStats } from '../data/unit-reader.ts'
import type { Arrival } from '../data/arrivals.ts'

/** HTTP options a worker can receive: everything but an injected fetch and the resolver (they do not clone). */
export type WorkerHttpOptions = Omit<HttpOptions, 'fetch' | 'resolver'>

/** One loader worker: reads and decodes units of one plan. */
export interface LoaderWorkerApi {
  /**
   * Sets the plan (footers included, so none is refetched), the decode spec and HTTP options;
   * `resolver`: a governed table's, as a comlink proxy of the coordinator's (comlink proxies
   * top-level arguments only, so it is one).
   */
  init(plan: ScanPlan, spec: DecodeSpec, http: WorkerHttpOptions, resolver?: UrlResolver): void
  /**
   * Reads unit `unitId` (live rows in unit order); its typed arrays are transferred, never
   * copied. `timing.sentAt` is the wall-clock ms at which the worker handed it over.
   */
  readUnit(unitId: number, opts?: { ids?: boolean }): Promise<DecodedUnit>
  /**
   * Totals since init, and when the worker's fetch answers arrived by its Resource Timing
   * (src/data/arrivals.ts: every answer this worker has had, not only this reader's).
   */
  stats(): UnitReaderStats & { arrivals: Arrival[] }
  /**
   * Runs the task `name` registered from above (src/data/loader-tasks.ts; the GBDT's sketch and
   * bin, src/models/loader-tasks.ts) on `args`; its value, buffers transferred. Needs no init.
   */
  runTask(name: string, args: unknown[]): Promise<unknown>
}
