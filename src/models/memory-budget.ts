/**
 * The up-front memory check of a training run: before any data file is read or any GPU buffer
 * made, estimate what the run will hold — host (the page's typed arrays) and GPU — and refuse a
 * run over budget with the size needed and what to change (fewer columns, a filter, a sample,
 * smaller parameters). A run over one buffer's limit but within budget is not refused here: the
 * GBDT backend chunks it (gpu-chunks.ts). N = rows, F = features, V = validation rows,
 * R = embedding rows, D = embedding dim.
 */
import type { Snapshot } from '../table/types.ts'
import { estimateMemory, mib, peakSlots } from './gbdt/gpu-chunks.ts'
import type { GbdtParams } from './gbdt/types.ts'
import { crossOf, denseTensors, inputWidth } from './recsys/layout.ts'
import type { ModelShape, RecsysParams } from './recsys/types.ts'

/** Bytes a run may use; either field absent = the default. */
export interface MemoryBudget {
  /** Host memory for the training data in the page (default DEFAULT_HOST_BUDGET). */
  hostBytes?: number
  /** GPU memory (default 4 × the adapter's maxBufferSize: WebGPU reports no total). */
  gpuBytes?: number
}

/** What a run needs, bytes, with the parts named for the message. */
export interface MemoryNeed {
  total: number
  parts: Record<string, number>
}

/** Default host budget: about what one Chromium tab holds in typed arrays before it is killed. */
export const DEFAULT_HOST_BUDGET = 4 * 2 ** 30

/** Rows of the snapshot from the log's per-file stats (minus deletion vectors); undefined when a file has none. */
export function rowsFromLog(snapshot: Pick<Snapshot, 'files'>): number | undefined {
  let rows = 0
  for (const f of snapshot.files) {
    if (f.stats?.numRecords === undefined) return undefined
    rows += f.stats.numRecords - (f.deletionVector?.cardinality ?? 0)
  }
  return rows
}

/**
 * GBDT: host = the float32 columns, labels and the u8 binned matrix, twice the columns when a
 * validation fraction is split off (the split copies them); GPU = the backend's own estimate.
 */
export function gbdtMemoryNeed(
  n: number,
  f: number,
  validFraction: number | undefined,
  p: GbdtParams,
): { host: MemoryNeed; gpu: MemoryNeed } {
  const v = validFraction === undefined ? 0 : Math.ceil(n * validFraction)
  const columns = 4 * n * (f + 1)
  const host = { columns, split: validFraction === undefined ? 0 : columns, binned: n * f }
  const g = estimateMemory(n - v, f, f * (p.max_bin + 1), peakSlots(p), v, false)
  return {
    host: {
      total: host.columns + host.split + host.binned,
      parts: { 'feature columns': host.columns, 'validation split copy': host.split, 'binned matrix': host.binned },
    },
    gpu: {
      total: g.total,
      parts: { 'binned matrix': g.bins, 'per-row buffers': g.rows, histograms: g.histograms, validation: g.valid },
    },
  }
}

/**
 * Recommender GPU memory: embeddings R×D plus their optimizer state (adagrad: 1 copy, rowwise
 * Adam: 2 + a step per row), dense tensors ×4 (weights, gradients, Adam m and v) and the
 * per-batch activations (about 6 × B × widest layer plus the gathered embeddings, double-buffered inputs;
 * a cross network adds x_k and z_k per layer, B × C0 each, its t_k [B × r] and two B × C0 scratch buffers).
 */
export function recsysMemoryNeed(shape: ModelShape, p: RecsysParams): MemoryNeed {
  const rd = shape.totalRows * shape.dim * 4
  const optCopies = p.embedding_optimizer === 'rowwise_adam' ? 2 : 1
  const dense = denseTensors(shape).reduce((s, t) => s + t.length, 0) * 4 * 4
  const width = inputWidth(shape)
  const lookups = shape.sparse + (shape.bags ?? 0) // S + K: bags add a pooled vector and (about) one item per row each
  const widest = Math.max(width, ...shape.layers)
  const cross = crossOf(shape)
  const crossFloats = cross.layers === 0 ? 0 : (2 * cross.layers + 2) * width + (cross.layers + 1) * cross.rank
  const batch =
    p.batch_size * 4 * (6 * widest + 3 * lookups * shape.dim + 2 * (2 * lookups + shape.dense + 1) + 8 + crossFloats)
  const parts = {
    embeddings: rd,
    'embedding optimizer state': rd * optCopies + (optCopies === 2 ? shape.totalRows * 4 : 0),
    'dense weights and state': dense,
    'batch buffers': batch,
  }
  return { total: Object.values(parts).reduce((s, x) => s + x, 0), parts }
}

/** Throws RangeError when `need` exceeds `budget`, naming what is counted and `advice`. */
export function checkMemory(kind: 'host' | 'GPU', need: MemoryNeed, budget: number, advice: string): void {
  if (need.total <= budget) return
  const parts = Object.entries(need.parts)
    .filter(([, b]) => b > 0)
    .map(([k, b]) => `${k} ${mib(b)}`)
    .join(', ')
  throw new RangeError(
    `${kind} memory: training needs about ${mib(need.total)} (${parts}) but the budget is ${mib(budget)}; ${advice}`,
  )
}

/** What to change for a GBDT run over budget. */
export const GBDT_ADVICE =
  'train on fewer columns (--features), fewer rows (--filter, or a sample of the table), or lower max_bin / max_depth; ' +
  'or raise the budget (memoryBudget)'

/** What to change for a recommender run over budget. */
export const RECSYS_ADVICE =
  'use fewer id columns (--features), fewer buckets, a smaller embedding_dim, batch_size or layers, ' +
  "or embedding_optimizer 'adagrad' (one state copy instead of two); or raise the budget (memoryBudget)"

/** The default adapter's limits, or undefined without WebGPU. */
async function adapterLimits(): Promise<GPUSupportedLimits | undefined> {
  const gpu = typeof navigator === 'undefined' ? undefined : (navigator as Navigator & { gpu?: GPU }).gpu
  return (await gpu?.requestAdapter())?.limits
}

/**
 * The GPU budget of this page: `budget.gpuBytes`, else 4 × maxBufferSize of the default adapter,
 * else (no WebGPU: the CPU backend) unlimited.
 */
export async function gpuBudget(budget: MemoryBudget | undefined): Promise<number> {
  if (budget?.gpuBytes !== undefined) return budget.gpuBytes
  const limits = await adapterLimits()
  return limits ? 4 * limits.maxBufferSize : Infinity
}

/**
 * The recommender's check before its GPU model is made: first each buffer against the adapter's
 * per-buffer limits (gpu-buffers.ts checkLimits: names the batch_size that fits), then the total
 * against the budget.
 */
export async function checkRecsysMemory(shape: ModelShape, p: RecsysParams, budget?: MemoryBudget): Promise<void> {
  const limits = await adapterLimits()
  if (limits) (await import('./recsys/gpu-buffers.ts')).checkLimits({ limits } as GPUDevice, shape, p.batch_size)
  checkMemory(
    'GPU',
    recsysMemoryNeed(shape, p),
    budget?.gpuBytes ?? (limits ? 4 * limits.maxBufferSize : Infinity),
    RECSYS_ADVICE,
  )
}

/**
 * The GBDT check from the table's log alone (no data file read): N from the per-file stats, F
 * from the chosen features. Skipped when a file has no row count in the log, and with a row
 * filter (the log's count is then only an upper bound; the GPU backend checks the exact one).
 */
export async function checkGbdtMemory(
  snapshot: Pick<Snapshot, 'files'>,
  features: number,
  opts: { validFraction?: number; filtered: boolean },
  p: GbdtParams,
  backend: 'gpu' | 'cpu',
  budget?: MemoryBudget,
): Promise<void> {
  const n = rowsFromLog(snapshot)
  if (n === undefined || opts.filtered) return
  const validFraction = opts.validFraction
  const need = gbdtMemoryNeed(n, features, validFraction, p)
  checkMemory('host', need.host, budget?.hostBytes ?? DEFAULT_HOST_BUDGET, GBDT_ADVICE)
  if (backend === 'gpu') checkMemory('GPU', need.gpu, await gpuBudget(budget), GBDT_ADVICE)
}
