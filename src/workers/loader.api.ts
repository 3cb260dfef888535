/**
 * The loader worker's API (comlink), shared by src/workers/loader.worker.ts and the main side
 * (src/data/worker-pool.ts) through `import type`. The logic lives in src/data/loader-service.ts.
 */
import type { HttpOptions } from '../table/types.ts'
import type { DecodeSpec, DecodedUnit, ScanPlan } from '../data/types.ts'
import type { UnitReaderStats } from '../data/unit-reader.ts'

/** HTTP options a worker can receive: everything but an injected fetch (functions do not clone). */
export type WorkerHttpOptions = Omit<HttpOptions, 'fetch'>

/** One loader worker: reads and decodes units of one plan. */
export interface LoaderWorkerApi {
  /** Sets the plan (footers included, so none is refetched), the decode spec and HTTP options. */
  init(plan: ScanPlan, spec: DecodeSpec, http: WorkerHttpOptions): void
  /**
   * Reads unit `unitId` (live rows in unit order); its typed arrays are transferred, never
   * copied. `timing.sentAt` is the wall-clock ms at which the worker handed it over.
   */
  readUnit(unitId: number, opts?: { ids?: boolean }): Promise<DecodedUnit>
  /** Totals since init. */
  stats(): UnitReaderStats
}
