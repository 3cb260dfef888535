/**
 * The loader worker's API (comlink), shared by src/workers/loader.worker.ts and the main side
 * (src/data/worker-pool.ts) through `import type`. The logic lives in src/data/loader-service.ts.
 */
import type { HttpOptions, UrlResolver } from '../table/types.ts'
import type { DecodeSpec, DecodedUnit, ScanPlan } from '../data/types.ts'
import type { UnitReaderStats } from '../data/unit-reader.ts'
import type { ChunkPart } from '../models/gbdt/sketch.ts'
import type { BinnedMatrix, Cuts } from '../models/gbdt/types.ts'

/** What a loader worker's GBDT sketch of some training rows returns (src/models/gbdt/bin-workers.ts). */
export interface RowSketch {
  /** Per feature: sketch.ts chunkParts of these rows. */
  parts: ChunkPart[][]
  /** Per feature: whether these rows hold a missing value. */
  missing: boolean[]
}

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
  /** Totals since init. */
  stats(): UnitReaderStats
  /**
   * GBDT quantisation off the page's thread (src/models/gbdt/bin-workers.ts): sketch.ts
   * chunkParts of `columns` (transferred), the contiguous training rows [lo, lo + n) of `total`,
   * for `maxBin` bins; the worker keeps the columns for binRows. Needs no init.
   */
  sketchRows(
    columns: Float32Array[],
    weights: Float32Array | undefined,
    lo: number,
    total: number,
    maxBin: number,
  ): RowSketch
  /** binMatrix of the rows sketchRows kept, with the merged cuts and missing offsets; then drops them. */
  binRows(cuts: Cuts, missOff: Uint32Array): BinnedMatrix
}
