/**
 * Pure pieces of the `loader` suite: the clicks column specs, problem sizes, repeated timing of
 * multi-part samples, and rows built from plain values (shares, seconds) rather than Samples.
 */
import { adapterLabel } from '../src/gpu/device.ts'
import type { LoaderStats } from '../src/data/types.ts'
import { FNV_OFFSET, fmix32, fnv1aStep } from '../src/util/hash.ts'
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
  /** Loader workers in the rows beside DuckDB-Wasm (warm, cached, cold). */
  duckdbWorkers: number
  /** Rows per batch (loader and CSV parser alike). */
  batchSize: number
  warmup: number
  repeats: number
}

/** Full preset (1M-row clicks). */
export const LOADER_SIZES: LoaderSizes = {
  workers: [1, 2, 4],
  exportWorkers: 2,
  duckdbWorkers: 2,
  batchSize: 8192,
  warmup: 1,
  repeats: 3,
}

/** --quick preset (200k-row sample table): same workloads, fewer repeats. */
export const LOADER_SIZES_QUICK: LoaderSizes = {
  workers: [1, 2, 4],
  exportWorkers: 2,
  duckdbWorkers: 2,
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

/**
 * Order-free checksum of delivered rows: per row, FNV-1a over its typed values as 32-bit words
 * (columns in spec order, a list's elements in order, every NaN as one bit pattern), finalised by
 * fmix32; summed and xored over rows. Equal for the same rows in any order and any batching; one
 * changed value changes the row's hash, hence the sum.
 */
export interface RowChecksum {
  rows: number
  sum: number
  xor: number
}

/** An empty checksum (no rows). */
export function rowChecksum(): RowChecksum {
  return { rows: 0, sum: 0, xor: 0 }
}

/** Adds `rows` rows given as typed columns by name (lists flattened, `length` per row). */
export function addChecksum(
  acc: RowChecksum,
  columns: readonly CsvColumnSpec[],
  rows: number,
  cols: Readonly<Record<string, Float32Array | Int32Array | Uint32Array | Uint8Array>>,
): void {
  const h = new Uint32Array(rows).fill(FNV_OFFSET)
  for (const c of columns) {
    const v = cols[c.name]
    const len = c.encoding === 'fixed_list' ? (c.length ?? 1) : 1
    if (!v || v.length !== rows * len)
      throw new RangeError(`checksum: column ${c.name} has ${v?.length ?? 'no'} values, expected ${rows * len}`)
    const words = v instanceof Float32Array ? new Uint32Array(v.buffer, v.byteOffset, v.length) : v
    for (let r = 0, i = 0; r < rows; r++)
      for (let k = 0; k < len; k++, i++) {
        const x = v[i]!
        h[r] = fnv1aStep(h[r]!, Number.isNaN(x) ? 0x7fc00000 : words[i]!)
      }
  }
  let sum = acc.sum
  let xor = acc.xor
  for (let r = 0; r < rows; r++) {
    const f = fmix32(h[r]!)
    sum = (sum + f) >>> 0
    xor = (xor ^ f) >>> 0
  }
  acc.rows += rows
  acc.sum = sum
  acc.xor = xor
}

/** The checksum in words: rows, sum and xor in hex. */
export function checksumText(c: RowChecksum): string {
  return `${c.rows} rows, sum ${c.sum.toString(16).padStart(8, '0')}, xor ${c.xor.toString(16).padStart(8, '0')}`
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
