/**
 * What a loader worker does, as a plain object (so tests can call it without a worker): hold one
 * unit reader and hand decoded units over with their buffers marked for transfer; and sketch and
 * bin a GBDT run's training rows (src/models/gbdt/bin-workers.ts), with the same sketch.ts and
 * binned.ts code the page's thread would run.
 */
import { transfer } from 'comlink'
import type { LoaderWorkerApi, WorkerHttpOptions } from '../workers/loader.api.ts'
import type { DecodeSpec, DecodedUnit, ScanPlan } from './types.ts'
import type { UrlResolver } from '../table/types.ts'
import { createUnitReader, type UnitReader } from './unit-reader.ts'
import { binRows, sketchRows } from '../models/gbdt/row-quantise.ts'

/** The API object a loader worker exposes. */
export function createLoaderService(): LoaderWorkerApi {
  let reader: UnitReader | undefined
  let rows: Float32Array[] | undefined
  return {
    init(plan: ScanPlan, spec: DecodeSpec, http: WorkerHttpOptions, resolver?: UrlResolver) {
      reader = createUnitReader(plan, spec, resolver ? { ...http, resolver } : http)
    },
    async readUnit(unitId: number, opts: { ids?: boolean } = {}) {
      if (!reader) throw new Error('loader worker: readUnit before init')
      const unit = await reader.read(unitId, opts)
      unit.timing.sentAt = performance.timeOrigin + performance.now()
      return transfer(unit, transferables(unit))
    },
    stats() {
      if (!reader) throw new Error('loader worker: stats before init')
      return reader.stats()
    },
    sketchRows(columns, weights, lo, total, maxBin) {
      rows = columns
      return sketchRows(columns, weights, lo, total, maxBin)
    },
    binRows(cuts, missOff) {
      if (!rows) throw new Error('loader worker: binRows before sketchRows')
      const m = binRows(rows, cuts, missOff)
      rows = undefined
      return transfer(m, [m.bins.buffer as ArrayBuffer])
    },
  }
}

/** The distinct ArrayBuffers behind a decoded unit's typed arrays. */
export function transferables(unit: DecodedUnit): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>()
  for (const c of Object.values(unit.columns)) {
    buffers.add(c.values.buffer as ArrayBuffer)
    if (c.offsets) buffers.add(c.offsets.buffer as ArrayBuffer)
  }
  if (unit.rowIds) buffers.add(unit.rowIds.buffer as ArrayBuffer)
  if (unit.keys) buffers.add(unit.keys.buffer as ArrayBuffer)
  return [...buffers]
}
