/**
 * How the GPU backend splits its data to fit the device: the binned matrix (F × rowWords u32,
 * feature-major) and the per-row buffers go into tiles of row ranges × feature ranges, each tile
 * small enough for one storage binding; the validation features (V × F f32, row-major) into row
 * ranges. Plus the up-front memory estimate that refuses a run which cannot fit at all.
 * N = rows, F = features, V = validation rows, B = total bins, S = histogram slots.
 */

/** A half-open range [start, end). */
export type Range = readonly [number, number]

/** Tiling of one training run. */
export interface ChunkPlan {
  /** Training row ranges; every start is a multiple of 4 (a u32 word of 4 packed u8 bins). */
  rows: Range[]
  /** Feature ranges of the binned matrix (each feature is one contiguous slice). */
  features: Range[]
  /** Validation row ranges (row-major f32 features). */
  validRows: Range[]
}

/** Largest per-row buffer: gradient pairs, vec2<f32> / vec2<i32> = 8 bytes per row. */
const PAIR_BYTES = 8

/**
 * Tiles for N rows × F features (+ V validation rows) with at most `maxBindingBytes` per
 * binding. Rows are split only when one feature's column or the row pairs do not fit; features
 * are then grouped as many per tile as fit. Throws RangeError when one validation row alone is
 * wider than a binding.
 */
export function planChunks(n: number, f: number, v: number, maxBindingBytes: number): ChunkPlan {
  const rowsPer =
    n * PAIR_BYTES <= maxBindingBytes ? Math.max(n, 1) : Math.max(4, Math.floor(maxBindingBytes / PAIR_BYTES / 4) * 4)
  const rows = ranges(n, rowsPer)
  const columnBytes = Math.ceil(Math.min(rowsPer, n) / 4) * 4
  const features = ranges(f, Math.max(1, Math.floor(maxBindingBytes / Math.max(columnBytes, 4))))
  if (f * 4 > maxBindingBytes && v > 0) {
    throw new RangeError(
      `GPU backend: one validation row (${f} features × 4 bytes) exceeds the ${maxBindingBytes}-byte binding limit`,
    )
  }
  const validRows = ranges(v, Math.max(1, Math.floor(maxBindingBytes / (4 * Math.max(f, 1)))))
  return { rows, features, validRows }
}

/** [0, total) cut into pieces of at most `per` (none for total = 0). */
function ranges(total: number, per: number): Range[] {
  const out: Range[] = []
  for (let s = 0; s < total; s += per) out.push([s, Math.min(total, s + per)])
  return out
}

/**
 * Histogram slots a tree needs at its peak. Depthwise with depth d: the parents of the last
 * level with histograms (2^(d−2)) plus their children (2^(d−1)); lossguide: the open queue
 * (≤ max_leaves) plus the pair being built. Unbounded growth counts as depth 10 (it grows).
 */
export function peakSlots(p: { max_depth: number; max_leaves: number; grow_policy: string }): number {
  const d = p.max_depth > 0 ? Math.min(p.max_depth, 16) : 10
  const depthwise = d <= 1 ? 1 : 2 ** (d - 2) + 2 ** (d - 1)
  if (p.grow_policy === 'lossguide' && p.max_leaves > 0) return Math.min(depthwise, p.max_leaves + 2)
  return depthwise
}

/** Bytes the GPU backend allocates, by kind. */
export interface MemoryEstimate {
  bins: number
  rows: number
  histograms: number
  valid: number
  total: number
}

/**
 * Estimate for N rows × F features, B bins, S slots, V validation rows; `weighted` adds the
 * weights buffer. Per row: margins, labels, positions (4 each), gradient pairs f32 and i32 (8
 * each), the root-sum zero bins (1), the compacted row list (4); per validation row: features (4·F), margins, scratch,
 * identity positions (4 each).
 */
export function estimateMemory(
  n: number,
  f: number,
  b: number,
  s: number,
  v: number,
  weighted: boolean,
): MemoryEstimate {
  const bins = f * Math.ceil(n / 4) * 4
  const rows = n * (33 + (weighted ? 4 : 0))
  const histograms = s * b * 16
  const valid = v * (4 * f + 12)
  return { bins, rows, histograms, valid, total: bins + rows + histograms + valid }
}

const MiB = 1024 * 1024

/** Megabytes with one decimal, for messages. */
export function mib(bytes: number): string {
  return `${(bytes / MiB).toFixed(1)} MiB`
}

/**
 * Throws a RangeError naming the size needed and what to change when `e.total` exceeds
 * `budgetBytes`.
 */
export function checkBudget(e: MemoryEstimate, budgetBytes: number, n: number, f: number): void {
  if (e.total <= budgetBytes) return
  throw new RangeError(
    `GPU memory: training needs about ${mib(e.total)} (binned matrix ${mib(e.bins)} for ${n} rows × ${f} features, ` +
      `per-row buffers ${mib(e.rows)}, histograms ${mib(e.histograms)}, validation ${mib(e.valid)}) but the budget is ${mib(budgetBytes)}; ` +
      'use fewer rows (--filter or a smaller table), fewer features (--features), a smaller max_depth / max_bin, or raise memoryBudgetBytes',
  )
}
