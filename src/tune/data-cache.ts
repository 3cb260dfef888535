/**
 * Data shared by every trial of a sweep: the table is read and decoded once per (model, table,
 * version, label, features, filter, validation, split seed), never per trial. GBDT keeps the
 * float columns and, per max_bin, the cuts and binned matrix; the recommender keeps the decoded
 * rows (recsys-memory.ts) and, per feature layout (buckets, log1p), the featurized rows.
 */
import { loadDataset, type Dataset } from '../models/gbdt/dataset.ts'
import { httpFor } from '../models/gbdt/train-run.ts'
import { binColumns } from './bin-progress.ts'
import type { BinnedMatrix, Cuts } from '../models/gbdt/types.ts'
import { loadRecsysTable, type RecsysTable } from './recsys-memory.ts'
import type { ReadOptions, StageListener, SweepConfig } from './types.ts'

/** Default validation share when a sweep names no validation table. */
export const DEFAULT_VALID_FRACTION = 0.2

export type { ReadOptions, StageListener } from './types.ts'

/** GBDT data of one sweep: the dataset and, per max_bin, cuts + binned matrix. */
export interface GbdtData {
  dataset: Dataset
  /** Cuts and binned matrix for `maxBin` (computed on first use, then shared); `onStage` hears the binning. */
  binned(maxBin: number, onStage?: StageListener): Promise<{ cuts: Cuts; binned: BinnedMatrix }>
}

/** Which rows a sweep trains and validates on (the cache key's parts). */
export function dataKey(c: SweepConfig): string {
  return JSON.stringify([c.model, c.table, c.version ?? 'latest', c.label, c.features ?? null, c.filter ?? null,
    c.validTable ?? null, c.validVersion ?? null, validFraction(c) ?? null, c.seed ?? 0, c.allowOrigins ?? null])
}

/** The sweep's validation fraction: given, else the default unless a validation table is named. */
export function validFraction(c: SweepConfig): number | undefined {
  return c.validTable ? undefined : c.validFraction ?? DEFAULT_VALID_FRACTION
}


/**
 * `read` for the table at `url` of sweep `c`: its HTTP headers (a bearer token) are kept only when
 * `url` has the origin of `c.table`, so a validation table elsewhere never receives them.
 */
export function readFor(read: ReadOptions, c: SweepConfig, url: string): ReadOptions {
  const { headers, ...http } = read.http ?? {}
  return { ...read, http: { ...http, ...httpFor({ table: c.table, headers }, url) } }
}

/** A small cache of loaded sweep data (the last `capacity` keys), page- or process-wide. */
export class DataCache {
  private readonly entries = new Map<string, Promise<unknown>>()
  constructor(private readonly read: ReadOptions = {}, private readonly capacity = 2) {}

  /** GBDT data of `c`, loaded once. `onStage` hears the loading steps. */
  gbdt(c: SweepConfig, onStage: StageListener = () => {}): Promise<GbdtData> {
    return this.get(dataKey(c), () => loadGbdt(c, this.readOf(c), onStage))
  }

  /** The recommender's decoded rows of `c`, loaded once. */
  recsys(c: SweepConfig, onStage: StageListener = () => {}): Promise<RecsysTable> {
    const read = this.readOf(c)
    return this.get(dataKey(c), () => loadRecsysTable(c, validFraction(c), read, onStage,
      c.validTable ? readFor(read, c, c.validTable) : undefined))
  }

  /** The cache's read options plus the sweep's allow-list of origins, which every table of it keeps. */
  private readOf(c: SweepConfig): ReadOptions {
    return c.allowOrigins ? { ...this.read, http: { ...this.read.http, allowOrigins: c.allowOrigins } } : this.read
  }

  private get<T>(key: string, load: () => Promise<T>): Promise<T> {
    let hit = this.entries.get(key) as Promise<T> | undefined
    if (!hit) {
      hit = load()
      // A failed load is not cached: the next sweep tries again.
      hit.catch(() => this.entries.delete(key))
      this.entries.set(key, hit)
      while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!)
    }
    return hit
  }
}

async function loadGbdt(c: SweepConfig, read: ReadOptions, onStage: StageListener): Promise<GbdtData> {
  const what = `loading ${c.table}${c.version !== undefined ? ` version ${c.version}` : ''}`
  onStage(what)
  const dataset = await loadDataset({
    tableUrl: c.table, version: c.version, label: c.label, features: c.features, filter: c.filter,
    validTable: c.validTable ? { url: c.validTable, version: c.validVersion, http: readFor(read, c, c.validTable).http } : undefined,
    validFraction: validFraction(c), seed: c.seed ?? 0, workers: read.workers, http: read.http,
    onProgress: (done, total) => onStage(`${what}: ${done} of ${total} rows`, total > 0 ? done / total : 1),
  })
  if (!dataset.data.valid) throw new RangeError(`sweep: no validation rows (validFraction ${validFraction(c)} of ${dataset.rowsTrain} rows); the metric needs some`)
  onStage(`loaded ${dataset.rowsTrain} training rows, ${dataset.rowsValid} validation rows, ${dataset.features.length} features`)
  const byBin = new Map<number, Promise<{ cuts: Cuts; binned: BinnedMatrix }>>()
  return {
    dataset,
    binned(maxBin, say = () => {}) {
      let hit = byBin.get(maxBin)
      if (!hit) {
        const F = dataset.features.length
        hit = binColumns(dataset.data.columns, maxBin, dataset.data.weights,
          f => say(`binning ${F} features (max_bin ${maxBin}): ${Math.round(f * F)} done`, f))
        // A failed binning is not kept: the next trial tries again (and fails with its own error).
        hit.catch(() => byBin.delete(maxBin))
        byBin.set(maxBin, hit)
      }
      return hit
    },
  }
}
