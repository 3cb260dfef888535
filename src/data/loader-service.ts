/**
 * What a loader worker does, as a plain object (so tests can call it without a worker): hold one
 * unit reader and hand decoded units over with their buffers marked for transfer; and run the
 * tasks registered from above (loader-tasks.ts: a GBDT run's sketch and bin), with this worker's
 * scratch state.
 */
import { transfer } from 'comlink'
import type { LoaderWorkerApi, WorkerHttpOptions } from '../workers/loader.api.ts'
import type { DecodeSpec, DecodedUnit, ScanPlan } from './types.ts'
import type { UrlResolver } from '../table/types.ts'
import { createUnitReader, type UnitReader } from './unit-reader.ts'
import { loadLoaderTask } from './loader-tasks.ts'
import { recordArrivals, recordedArrivals } from './arrivals.ts'

/** The API object a loader worker exposes. */
export function createLoaderService(): LoaderWorkerApi {
  let reader: UnitReader | undefined
  const state = new Map<string, unknown>()
  return {
    init(plan: ScanPlan, spec: DecodeSpec, http: WorkerHttpOptions, resolver?: UrlResolver) {
      recordArrivals()
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
      return { ...reader.stats(), arrivals: recordedArrivals() }
    },
    async runTask(name: string, args: unknown[]) {
      const { value, transfer: buffers } = await (await loadLoaderTask(name))(args, state)
      return buffers?.length ? transfer(value, buffers) : value
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
