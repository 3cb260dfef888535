/**
 * What a loader worker runs for a GBDT run's quantisation (bin-workers.ts drives it, through the
 * tasks src/models/loader-tasks.ts registers): the sketch parts and missing flags of its range of
 * training rows, then their binned bytes with the merged cuts — sketch.ts and binned.ts, the code
 * the page's thread runs, so every path bins alike.
 */
import type { LoaderTask } from '../../data/loader-tasks.ts'
import { hasMissing } from './cuts.ts'
import { binMatrix } from './binned.ts'
import { chunkParts, type ChunkPart } from './sketch.ts'
import type { BinnedMatrix, Cuts } from './types.ts'

/** What a loader worker's sketch of some training rows returns. */
export interface RowSketch {
  /** Per feature: sketch.ts chunkParts of these rows. */
  parts: ChunkPart[][]
  /** Per feature: whether these rows hold a missing value. */
  missing: boolean[]
}

/**
 * Arguments of the sketch task: columns (transferred), weights, the first row's sketch place, all
 * rows, max_bin, all places (sketch.ts sketchPlaces; default all rows).
 */
export type SketchArgs = [Float32Array[], Float32Array | undefined, number, number, number, number?]
/** Arguments of the bin task: merged cuts and the missing offsets of all rows. */
export type BinArgs = [Cuts, Uint32Array]

/** Loader task names (src/models/loader-tasks.ts registers them). */
export const SKETCH_TASK = 'gbdt-sketch'
export const BIN_TASK = 'gbdt-bin'

/**
 * chunkParts of each column (training rows of `total`, the first at sketch place `lo` of
 * `places`) and whether it has a missing value.
 */
export function sketchRows(
  columns: Float32Array[],
  weights: Float32Array | undefined,
  lo: number,
  total: number,
  maxBin: number,
  places = total,
): RowSketch {
  return {
    parts: columns.map(c => chunkParts(c, weights, lo, total, maxBin, places)),
    missing: columns.map(hasMissing),
  }
}

/** binMatrix of these rows with the merged cuts and the missing offsets of all rows. */
export function binRows(columns: Float32Array[], cuts: Cuts, missOff: Uint32Array): BinnedMatrix {
  return binMatrix(columns, cuts, missOff)
}

/**
 * The sketch task: sketchRows, keeping the columns in the worker for the bin task. The parts'
 * arrays are transferred, not copied (a feature's chunk summaries share one buffer per array).
 */
export const sketchTask: LoaderTask = (args, state) => {
  const [columns, weights, lo, total, maxBin, places] = args as SketchArgs
  state.set(SKETCH_TASK, columns)
  const value = sketchRows(columns, weights, lo, total, maxBin, places)
  const buffers = new Set<ArrayBuffer>()
  for (const parts of value.parts)
    for (const p of parts) {
      const arrays = 'summary' in p ? Object.values(p.summary) : [p.values, p.weights]
      for (const a of arrays) if (a) buffers.add(a.buffer as ArrayBuffer)
    }
  return { value, transfer: [...buffers] }
}

/** The bin task: binRows of the columns the sketch task kept, which it then drops. */
export const binTask: LoaderTask = (args, state) => {
  const rows = state.get(SKETCH_TASK) as Float32Array[] | undefined
  if (!rows) throw new Error(`loader worker: ${BIN_TASK} before ${SKETCH_TASK}`)
  const [cuts, missOff] = args as BinArgs
  const m = binRows(rows, cuts, missOff)
  state.delete(SKETCH_TASK)
  return { value: m, transfer: [m.bins.buffer as ArrayBuffer] }
}
