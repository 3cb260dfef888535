/**
 * Data shared by every trial of a sweep: the table is read and decoded once per (model, table,
 * version, label, features, filter, validation, split seed), never per trial. GBDT keeps the
 * float columns and, per max_bin, the cuts and binned matrix; the recommender keeps the decoded
 * rows (recsys-memory.ts) and, per feature layout (buckets, log1p), the featurized rows.
 */
import { loadDataset, type Dataset } from '../models/gbdt/dataset.ts'
import { buildCuts } from '../models/gbdt/cuts.ts'
import { binMatrix } from '../models/gbdt/binned.ts'
import type { BinnedMatrix, Cuts } from '../models/gbdt/types.ts'
import { loadRecsysTable, type RecsysTable } from './recsys-memory.ts'
import type { HttpOptions } from '../table/types.ts'
import type { SweepConfig } from './types.ts'

/** Default validation share when a sweep names no validation table. */
export const DEFAULT_VALID_FRACTION = 0.2

/** GBDT data of one sweep: the dataset and, per max_bin, cuts + binned matrix. */
export interface GbdtData {
  dataset: Dataset
  /** Cuts and binned matrix for `maxBin` (computed on first use, then shared). */
  binned(maxBin: number): { cuts: Cuts; binned: BinnedMatrix }
}

/** Which rows a sweep trains and validates on (the cache key's parts). */
export function dataKey(c: SweepConfig): string {
  return JSON.stringify([c.model, c.table, c.version ?? 'latest', c.label, c.features ?? null, c.filter ?? null,
    c.validTable ?? null, c.validVersion ?? null, validFraction(c) ?? null, c.seed ?? 0])
}

/** The sweep's validation fraction: given, else the default unless a validation table is named. */
export function validFraction(c: SweepConfig): number | undefined {
  return c.validTable ? undefined : c.validFraction ?? DEFAULT_VALID_FRACTION
}

/** How the cache reads tables: loader workers (default the loader's) and HTTP options (tests: a fetch). */
export interface ReadOptions { workers?: number; http?: HttpOptions }

/** A small cache of loaded sweep data (the last `capacity` keys), page- or process-wide. */
export class DataCache {
  private readonly entries = new Map<string, Promise<unknown>>()
  constructor(private readonly read: ReadOptions = {}, private readonly capacity = 2) {}

  /** GBDT data of `c`, loaded once. `onStage` hears the loading steps. */
  gbdt(c: SweepConfig, onStage: (message: string) => void = () => {}): Promise<GbdtData> {
    return this.get(dataKey(c), () => loadGbdt(c, this.read, onStage))
  }

  /** The recommender's decoded rows of `c`, loaded once. */
  recsys(c: SweepConfig, onStage: (message: string) => void = () => {}): Promise<RecsysTable> {
    return this.get(dataKey(c), () => loadRecsysTable(c, validFraction(c), this.read, onStage))
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

async function loadGbdt(c: SweepConfig, read: ReadOptions, onStage: (message: string) => void): Promise<GbdtData> {
  onStage(`loading ${c.table}${c.version !== undefined ? ` version ${c.version}` : ''}`)
  const dataset = await loadDataset({
    tableUrl: c.table, version: c.version, label: c.label, features: c.features, filter: c.filter,
    validTable: c.validTable ? { url: c.validTable, version: c.validVersion } : undefined,
    validFraction: validFraction(c), seed: c.seed ?? 0, workers: read.workers, http: read.http,
  })
  if (!dataset.data.valid) throw new RangeError(`sweep: no validation rows (validFraction ${validFraction(c)} of ${dataset.rowsTrain} rows); the metric needs some`)
  onStage(`loaded ${dataset.rowsTrain} training rows, ${dataset.rowsValid} validation rows, ${dataset.features.length} features`)
  const byBin = new Map<number, { cuts: Cuts; binned: BinnedMatrix }>()
  return {
    dataset,
    binned(maxBin) {
      let hit = byBin.get(maxBin)
      if (!hit) {
        const cuts = buildCuts(dataset.data.columns, maxBin, dataset.data.weights)
        hit = { cuts, binned: binMatrix(dataset.data.columns, cuts) }
        byBin.set(maxBin, hit)
      }
      return hit
    },
  }
}
