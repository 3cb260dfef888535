/**
 * What a loader worker runs for a GBDT run's quantisation (bin-workers.ts drives it): the sketch
 * parts and missing flags of its range of training rows, then their binned bytes with the merged
 * cuts — sketch.ts and binned.ts, the code the page's thread runs, so every path bins alike.
 */
import type { RowSketch } from '../../workers/loader.api.ts'
import { hasMissing } from './cuts.ts'
import { binMatrix } from './binned.ts'
import { chunkParts } from './sketch.ts'
import type { BinnedMatrix, Cuts } from './types.ts'

/** chunkParts of each column (training rows [lo, lo + n) of `total`) and whether it has a missing value. */
export function sketchRows(
  columns: Float32Array[],
  weights: Float32Array | undefined,
  lo: number,
  total: number,
  maxBin: number,
): RowSketch {
  return { parts: columns.map(c => chunkParts(c, weights, lo, total, maxBin)), missing: columns.map(hasMissing) }
}

/** binMatrix of these rows with the merged cuts and the missing offsets of all rows. */
export function binRows(columns: Float32Array[], cuts: Cuts, missOff: Uint32Array): BinnedMatrix {
  return binMatrix(columns, cuts, missOff)
}
