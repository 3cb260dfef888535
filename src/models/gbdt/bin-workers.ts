/**
 * A run's quantisation (cuts + binned matrix) off the page's thread, in loader workers: each
 * worker gets a contiguous range of the training rows, returns sketch.ts chunkParts of them (the
 * sketch chunks are fixed global row ranges, so who summarised which rows never matters), the
 * parts are merged here by mergeParts in row order — the one merge buildCuts and the ranks run —
 * and the workers then bin their rows with the merged cuts (binned.ts binMatrix, the same code).
 * Equal to buildCuts + binMatrix on all rows for any worker count (tests/unit/gbdt and
 * tests/workers). N = training rows, F = features, W = workers.
 */
import { releaseProxy, transfer, wrap } from 'comlink'
import type { LoaderWorkerApi } from '../../workers/loader.api.ts'
import { defaultWorkerFactory } from '../../data/unit-source.ts'
import '../loader-tasks.ts'
import { checkCategoryCodes, cutsFromSketches, type CategoricalFeatures } from './cuts.ts'
import { BIN_TASK, SKETCH_TASK, type BinArgs, type RowSketch, type SketchArgs } from './row-quantise.ts'
import { mergeParts, sketchPlaces } from './sketch.ts'
import type { BinnedMatrix, Cuts } from './types.ts'

/** One loader worker's share of the quantisation (the sketch and bin tasks of row-quantise.ts). */
export interface RowBinner {
  sketchRows(...args: SketchArgs): RowSketch | Promise<RowSketch>
  binRows(...args: BinArgs): BinnedMatrix | Promise<BinnedMatrix>
}

/**
 * The binner over a loader worker's task runner (a worker's comlink proxy, or the service
 * in-process): the sketch's columns are transferred, the binned bytes come back transferred.
 */
export function loaderBinner(worker: Pick<LoaderWorkerApi, 'runTask'>): RowBinner {
  return {
    sketchRows: async (...args) => {
      const moved = args[0].map(c => c.buffer as ArrayBuffer)
      return (await worker.runTask(SKETCH_TASK, transfer(args, moved))) as RowSketch
    },
    binRows: async (...args) => (await worker.runTask(BIN_TASK, args)) as BinnedMatrix,
  }
}

/** Workers a run quantises with (the loader's default count). */
export const BIN_WORKERS = 2

/** True where module workers exist (the page) and the run did not ask to read on its own thread. */
export function canBinOffThread(workers?: number): boolean {
  return typeof Worker !== 'undefined' && (workers ?? BIN_WORKERS) > 0
}

/**
 * buildCuts(columns, maxBin, weights, categorical) + binMatrix, computed by `binners` (W ≥ 1):
 * worker k gets rows [⌊kN/W⌋, ⌊(k+1)N/W⌋) — copies, transferred.
 */
export async function binWith(
  binners: RowBinner[],
  columns: Float32Array[],
  maxBin: number,
  weights?: Float32Array,
  categorical?: CategoricalFeatures,
): Promise<{ cuts: Cuts; binned: BinnedMatrix }> {
  if (binners.length === 0) throw new RangeError('binWith: needs at least one worker')
  if (categorical) columns.forEach((c, f) => categorical.flags[f] && checkCategoryCodes(c, categorical.names[f]))
  const F = columns.length,
    N = F > 0 ? columns[0].length : 0,
    W = binners.length
  const range = (k: number): [number, number] => [Math.floor((k * N) / W), Math.floor(((k + 1) * N) / W)]
  // Sketch places (rows of weight 0 have none): worker k's rows start at the places before them.
  const places = sketchPlaces(weights, 0, N)
  const sketches = await Promise.all(
    binners.map((b, k) => {
      const [lo, hi] = range(k)
      // Copies: loaderBinner transfers them to the worker.
      return b.sketchRows(
        columns.map(c => c.slice(lo, hi)),
        weights?.slice(lo, hi),
        sketchPlaces(weights, 0, lo),
        N,
        maxBin,
        places,
      )
    }),
  )
  const summaries = columns.map((_, f) =>
    mergeParts(
      sketches.map(s => s.parts[f]),
      N,
      maxBin,
      places,
    ),
  )
  const missing = columns.map((_, f) => sketches.some(s => s.missing[f]))
  const cuts = cutsFromSketches(summaries, missing, maxBin, categorical)
  const missOff = Uint32Array.from(missing, m => (m ? 1 : 0))
  const parts = await Promise.all(binners.map(b => b.binRows(cuts, missOff)))
  // Each part is a binMatrix of its rows: copy its byte rows into the full feature-major planes.
  const rowWords = Math.ceil(N / 4)
  const bytes = new Uint8Array(F * rowWords * 4)
  parts.forEach((m, k) => {
    const [lo, hi] = range(k)
    const src = new Uint8Array(m.bins.buffer, m.bins.byteOffset, m.bins.byteLength)
    for (let f = 0; f < F; f++)
      bytes.set(src.subarray(f * m.rowWords * 4, f * m.rowWords * 4 + hi - lo), f * rowWords * 4 + lo)
  })
  return { cuts, binned: { rows: N, features: F, rowWords, bins: new Uint32Array(bytes.buffer), missOff } }
}

/**
 * binWith on `count` fresh loader module workers (terminated afterwards); rejects when one of
 * them fails to start (its error event) instead of waiting forever.
 */
export async function binOffThread(
  columns: Float32Array[],
  maxBin: number,
  weights?: Float32Array,
  categorical?: CategoricalFeatures,
  count = BIN_WORKERS,
): Promise<{ cuts: Cuts; binned: BinnedMatrix }> {
  const started = Array.from({ length: count }, () => {
    const worker = defaultWorkerFactory()
    return { worker, api: wrap<LoaderWorkerApi>(worker) }
  })
  const failed = new Promise<never>((_, reject) => {
    for (const { worker } of started)
      worker.addEventListener('error', e =>
        reject(new Error(`GBDT binning worker failed: ${(e as ErrorEvent).message ?? 'error event'}`)),
      )
  })
  failed.catch(() => {}) // observed by the race below; a late error after it is moot
  try {
    return await Promise.race([
      binWith(
        started.map(s => loaderBinner(s.api)),
        columns,
        maxBin,
        weights,
        categorical,
      ),
      failed,
    ])
  } finally {
    for (const s of started) {
      s.api[releaseProxy]()
      s.worker.terminate()
    }
  }
}
