/**
 * Pure pieces of the `loader` suite: the clicks column specs, problem sizes, repeated timing of
 * multi-part samples, and rows built from plain values (shares, seconds) rather than Samples.
 */
import { adapterLabel } from '../src/gpu/device.ts'
import type { LoaderStats } from '../src/data/types.ts'
import type { CsvColumnSpec } from './loader-csv.ts'
import { summarize } from './measure.ts'
import type { BenchRow, SuiteContext } from './types.ts'

/**
 * Every column of `clicks` with the encoding a trainer uses: int64 ids and strings hashed to 32
 * bits, small ints as int32, floats as float32 (null → NaN), the embedding as a flat n × 8 array.
 */
export const CLICKS_COLUMNS: readonly CsvColumnSpec[] = [
  { name: 'user_id', encoding: 'hash32', source: 'integer' },
  { name: 'item_id', encoding: 'hash32', source: 'integer' },
  { name: 'device', encoding: 'hash32', source: 'string' },
  { name: 'country', encoding: 'hash32', source: 'string' },
  { name: 'ad_format', encoding: 'hash32', source: 'string' },
  { name: 'hour', encoding: 'int32' },
  { name: 'category', encoding: 'int32' },
  { name: 'publisher', encoding: 'int32' },
  ...Array.from({ length: 8 }, (_, i): CsvColumnSpec => ({ name: `dense_${i}`, encoding: 'float32' })),
  { name: 'emb', encoding: 'fixed_list', length: 8 },
  { name: 'label', encoding: 'int32' },
]

/** Sizes and repeats of the loader suite. */
export interface LoaderSizes {
  /** Loader worker counts measured for throughput. */
  workers: number[]
  /** Workers of the direct read in the export-path comparison. */
  exportWorkers: number
  /** Rows per batch (loader and CSV parser alike). */
  batchSize: number
  warmup: number
  repeats: number
}

/** Full preset (1M-row clicks). */
export const LOADER_SIZES: LoaderSizes = {
  workers: [1, 2, 4],
  exportWorkers: 2,
  batchSize: 8192,
  warmup: 1,
  repeats: 3,
}

/** --quick preset (200k-row sample table): same workloads, fewer repeats. */
export const LOADER_SIZES_QUICK: LoaderSizes = {
  workers: [1, 2, 4],
  exportWorkers: 2,
  batchSize: 8192,
  warmup: 1,
  repeats: 1,
}

/** Runs `once` warmup + repeats times and returns the timed results only. */
export async function repeat<T>(once: () => Promise<T>, z: Pick<LoaderSizes, 'warmup' | 'repeats'>): Promise<T[]> {
  for (let i = 0; i < z.warmup; i++) await once()
  const out: T[] = []
  for (let i = 0; i < z.repeats; i++) out.push(await once())
  return out
}

/** One part of each timed result (seconds). */
export function firstAndFull(samples: readonly { first: number; full: number }[], part: 'first' | 'full'): number[] {
  return samples.map(s => s[part])
}

/**
 * Per sample, the percentage of the workers' time spent waiting on the network, decoding, and
 * moving decoded units to the loader (fetchMs : decodeMs : transferMs of LoaderStats).
 */
export function shareValues(stats: readonly LoaderStats[]): {
  network: number[]
  decode: number[]
  transfer: number[]
} {
  const out = { network: [] as number[], decode: [] as number[], transfer: [] as number[] }
  for (const s of stats) {
    const total = s.fetchMs + s.decodeMs + s.transferMs
    if (!(total > 0)) continue
    out.network.push((100 * s.fetchMs) / total)
    out.decode.push((100 * s.decodeMs) / total)
    out.transfer.push((100 * s.transferMs) / total)
  }
  return out
}

/** A row from plain values in `unit` (median/min/max over them), stamped like makeRow's; wall time. */
export function valueRow(
  ctx: Pick<SuiteContext, 'suite' | 'adapter' | 'commit' | 'date'>,
  workload: string,
  metric: string,
  unit: string,
  values: readonly number[],
): BenchRow {
  const { min, median, max } = summarize(values)
  return {
    suite: ctx.suite,
    workload,
    metric,
    value: median,
    unit,
    repeats: values.length,
    min,
    median,
    max,
    timing: 'wall',
    adapter: adapterLabel(ctx.adapter),
    commit: ctx.commit,
    date: ctx.date,
  }
}
