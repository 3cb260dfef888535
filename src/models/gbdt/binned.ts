/**
 * The binned training matrix (XGBoost `GHistIndexMatrix`), in the feature-major packed u8
 * layout of types.ts: byte (i & 3) of word f·rowWords + (i >> 2) holds row i's byte for feature f.
 * N = rows, F = features.
 */
import type { BinnedMatrix, Cuts } from './types.ts'
import { hasMissing, searchBin } from './cuts.ts'

/**
 * Bins `columns` (F Float32Arrays of N values, NaN = missing) with `cuts`. A feature with a
 * missing value in these columns stores bin + 1 and 0 for missing (missOff = 1). Pass
 * `missOff` to reuse the training matrix's offsets (e.g. for a validation matrix).
 */
export function binMatrix(columns: ArrayLike<number>[], cuts: Cuts, missOff?: Uint32Array): BinnedMatrix {
  const features = columns.length
  const rows = features > 0 ? columns[0].length : 0
  const rowWords = Math.ceil(rows / 4)
  const off = missOff ?? new Uint32Array(columns.map(c => (hasMissing(c) ? 1 : 0)))
  const bytes = new Uint8Array(features * rowWords * 4)
  for (let f = 0; f < features; f++) {
    const col = columns[f]
    if (col.length !== rows) throw new RangeError(`binMatrix: column ${f} has ${col.length} rows, expected ${rows}`)
    if (off[f] + cuts.cutPtrs[f + 1] - cuts.cutPtrs[f] > 256) {
      throw new RangeError(
        `binMatrix: feature ${f} has missing values and ${cuts.cutPtrs[f + 1] - cuts.cutPtrs[f]} bins; at most 255 fit beside the missing byte`,
      )
    }
    const base = f * rowWords * 4
    for (let i = 0; i < rows; i++) {
      const v = col[i]
      if (Number.isNaN(v)) {
        if (off[f] === 0)
          throw new RangeError(`binMatrix: feature ${f} has a missing value at row ${i} but no missing slot`)
        bytes[base + i] = 0
      } else {
        bytes[base + i] = searchBin(cuts, f, v) + off[f]
      }
    }
  }
  // Little-endian u32 words: byte (i & 3) of word (i >> 2) is row i, as the WGSL side reads it.
  return { rows, features, rowWords, bins: new Uint32Array(bytes.buffer), missOff: off }
}

/** Bin of (row, feature), or −1 when missing. */
export function binAt(m: BinnedMatrix, row: number, feature: number): number {
  const word = m.bins[feature * m.rowWords + (row >> 2)]
  const byte = (word >>> ((row & 3) * 8)) & 0xff
  return byte - m.missOff[feature]
}
