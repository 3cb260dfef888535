/**
 * Data shared by every trial of a sweep: the family loads the table once per (model, table,
 * version, label, features, filter, validation, split seed) through its own load path
 * (ModelFamily.loadShared, src/run/family.ts), never per trial. GBDT keeps the float columns and,
 * per max_bin, the cuts and binned matrix; the recommender keeps the decoded rows and, per feature
 * layout (buckets, log1p), the featurized rows.
 */
import { rowColumnsOf } from '../eval/row-columns.ts'
import type { TrainConfig } from '../run/config.ts'
import type { ModelFamily } from '../run/family.ts'
import { loadFamily } from '../models/registry.ts'
import { openTables } from '../run/pipeline.ts'
import type { ReadOptions, StageListener, SweepConfig } from '../tune/types.ts'
import { sweepGaucGroup } from './plan.ts'
import { DEFAULT_VALID_FRACTION, validationSet } from '../eval/validation.ts'

export type { ReadOptions, StageListener } from '../tune/types.ts'

/** A sweep's shared data: its family and what the family loaded for its trials. */
export interface SweepData {
  family: ModelFamily
  shared: unknown
}

/** Which rows a sweep trains and validates on (the cache key's parts). */
export function dataKey(c: SweepConfig): string {
  return JSON.stringify([
    c.model,
    c.table,
    c.version ?? 'latest',
    c.label,
    c.features ?? null,
    c.filter ?? null,
    c.weight ?? null,
    c.baseMargin ?? null,
    c.qid ?? null,
    c.validTable ?? null,
    c.validVersion ?? null,
    validFraction(c) ?? null,
    c.splitKey ?? null,
    c.seed ?? 0,
    c.allowOrigins ?? null,
    c.http?.allowInsecureHttp ?? null,
    sweepGaucGroup(c) ?? null,
  ])
}

/** The sweep's validation fraction: given, else the default unless a validation table is named. */
export function validFraction(c: SweepConfig): number | undefined {
  const v = validationSet(c, DEFAULT_VALID_FRACTION)
  return v.kind === 'fraction' ? v.fraction : undefined
}

/**
 * The run config of a sweep's trials (a trial is this run with its own parameters): the sweep's
 * tables, label, filter, validation and seed, read with `read` (loader workers, HTTP options; a
 * bearer token only to the training table's origin, httpFor).
 */
export function sweepRunConfig(c: SweepConfig, read: ReadOptions = {}): TrainConfig {
  const { headers, ...http } = read.http ?? {}
  return {
    model: c.model,
    table: c.table,
    tablePath: c.tablePath,
    tableAddress: c.tableAddress,
    version: c.version,
    label: c.label,
    ...rowColumnsOf(c),
    features: c.features,
    filter: c.filter,
    validTable: c.validTable,
    validTablePath: c.validTablePath,
    validTableAddress: c.validTableAddress,
    validVersion: c.validVersion,
    validFraction: validFraction(c),
    splitKey: c.splitKey,
    seed: c.seed ?? 0,
    workers: read.workers,
    headers: headers ?? c.headers,
    allowOrigins: c.allowOrigins ?? http.allowOrigins,
    ...((read.access ?? c.access) ? { access: read.access ?? c.access } : {}),
    http: { ...c.http, ...http },
  }
}

/** A small cache of loaded sweep data (the last `capacity` keys), page- or process-wide. */
export class DataCache {
  private readonly entries = new Map<string, Promise<SweepData>>()
  constructor(
    private readonly read: ReadOptions = {},
    private readonly capacity = 2,
  ) {}

  /** The shared data of sweep `c`, loaded once by its family. `onStage` hears the loading steps. */
  load(c: SweepConfig, onStage: StageListener = () => {}): Promise<SweepData> {
    const key = dataKey(c)
    let hit = this.entries.get(key)
    if (!hit) {
      hit = loadShared(c, this.read, onStage)
      // A failed load is not cached: the next sweep tries again.
      hit.catch(() => this.entries.delete(key))
      this.entries.set(key, hit)
      while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!)
    }
    return hit
  }
}

async function loadShared(c: SweepConfig, read: ReadOptions, onStage: StageListener): Promise<SweepData> {
  const family = await loadFamily(c.model)
  const config = sweepRunConfig(c, read)
  const input = { config, onProgress: () => {}, hooks: {}, ...(await openTables(config)) }
  // The gauc group column is decoded with the rows, so a space's fixed value counts as fixed here.
  const group = sweepGaucGroup(c)
  const fixed = group === undefined ? c.fixed : { ...c.fixed, gauc_group: group }
  return { family, shared: await family.loadShared(input, fixed, onStage) }
}
