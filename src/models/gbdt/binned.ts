/**
 * The binned training matrix (XGBoost `GHistIndexMatrix`), in the feature-major packed u8
 * layout of types.ts: byte (i & 3) of word f·rowWords + (i >> 2) holds row i's byte for feature f.
 * N = rows, F = features.
 */
import type { BinnedMatrix, Cuts } from './types.ts'
import { hasMissing } from './cuts.ts'

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
    binColumn(col, cuts.cutValues.subarray(cuts.cutPtrs[f], cuts.cutPtrs[f + 1]), off[f], bytes, f * rowWords * 4, f)
  }
  // Little-endian u32 words: byte (i & 3) of word (i >> 2) is row i, as the WGSL side reads it.
  return { rows, features, rowWords, bins: new Uint32Array(bytes.buffer), missOff: off }
}

/**
 * Bytes of one feature at `bytes[base …]`: missing → 0 (only with a missing slot, `missOff` 1),
 * else the first b with v < cuts[b] (above every cut: the last bin) plus `missOff` — searchBin's
 * rule. A float32 column is binned through a table over the top 16 bits of each value's
 * order-preserving key (sign-flipped bits): the bin of the smallest float of each key prefix.
 * Bins grow with the value, so when a prefix and the next one start in the same bin every value
 * of the prefix is in it (nearly all values), and otherwise the search runs over the few bins
 * between — no data-dependent branches in the common case, unlike a binary search per value.
 */
function binColumn(
  col: ArrayLike<number>,
  cuts: Float32Array,
  missOff: number,
  bytes: Uint8Array,
  base: number,
  f: number,
): void {
  const bits = col instanceof Float32Array ? new Uint32Array(col.buffer, col.byteOffset, col.length) : undefined
  const start = bits ? prefixBins(cuts) : undefined
  const last = cuts.length - 1
  for (let i = 0; i < col.length; i++) {
    const v = col[i]
    if (Number.isNaN(v)) {
      if (missOff === 0)
        throw new RangeError(`binMatrix: feature ${f} has a missing value at row ${i} but no missing slot`)
      bytes[base + i] = 0
      continue
    }
    let lo = 0,
      hi = last
    if (bits && start) {
      const x = bits[i]
      const p = (x ^ ((x >> 31) | 0x80000000)) >>> 16
      lo = start[p]
      hi = start[p + 1]
    }
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (v < cuts[mid]) hi = mid
      else lo = mid + 1
    }
    bytes[base + i] = lo + missOff
  }
}

/**
 * Bin of the smallest float32 of each 16-bit key prefix (key = bits ^ 0x80000000 for v ≥ +0,
 * ~bits below, so keys order as the values), plus a closing entry: one sweep up the prefixes.
 * NaN patterns at either end of the key range stand for −∞ / +∞ there.
 */
function prefixBins(cuts: Float32Array): Uint16Array {
  const start = new Uint16Array(65537)
  const f = new Float32Array(1),
    u = new Uint32Array(f.buffer)
  const last = cuts.length - 1
  let bin = 0
  for (let p = 0; p < 65536; p++) {
    const key = p << 16
    u[0] = key < 0 ? key ^ 0x80000000 : ~key
    const x = !Number.isNaN(f[0]) ? f[0] : key < 0 ? Infinity : -Infinity
    while (bin < last && !(x < cuts[bin])) bin++
    start[p] = bin
  }
  start[65536] = last
  return start
}

/** Bin of (row, feature), or −1 when missing. */
export function binAt(m: BinnedMatrix, row: number, feature: number): number {
  const word = m.bins[feature * m.rowWords + (row >> 2)]
  const byte = (word >>> ((row & 3) * 8)) & 0xff
  return byte - m.missOff[feature]
}
