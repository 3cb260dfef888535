/**
 * Reference for histogram_build.wgsl (and histogram_build_wg.wgsl, same output): per node slot
 * and global bin, exact 64-bit sums of the quantised gradient pairs of the rows in that node.
 * N = rows, F = features, B = total bins (cutPtrs[F]), S = histogram slots.
 * Layouts (src/models/gbdt/types.ts): bins u8-in-u32 feature-major; qgpair Int32Array (qg, qh) × N;
 * hist Uint32Array of S·B·4 words, [gLo, gHi, hLo, hHi] at (slot·B + bin)·4, two's complement.
 */
import { ROW_UNUSED } from './layout.ts'

/**
 * Adds the signed 32-bit `v` to the 64-bit two's-complement pair at `hist[i]` (lo), `hist[i+1]`
 * (hi), wrapping at 2^64 — what the kernel does with a carry-checked atomicAdd.
 */
export function add64(hist: Uint32Array, i: number, v: number): void {
  const lo = v >>> 0
  const old = hist[i]
  const sum = (old + lo) >>> 0
  const carry = sum < old ? 1 : 0
  hist[i] = sum
  hist[i + 1] = (hist[i + 1] + (v < 0 ? 0xffffffff : 0) + carry) >>> 0
}

/** The signed 64-bit value of the pair at `hist[i]`, `hist[i+1]` as a BigInt. */
export function pairToBigInt(hist: Uint32Array, i: number): bigint {
  return BigInt.asIntN(64, (BigInt(hist[i + 1]) << 32n) | BigInt(hist[i]))
}

/** The pair as a double: exact while |value| ≤ 2^53 (N·2^30 with N ≤ 2^23 rows). */
export function pairToNumber(hist: Uint32Array, i: number): number {
  return (hist[i + 1] | 0) * 4294967296 + hist[i]
}

/** Stored byte of (row i, feature f) in the feature-major binned matrix. */
export function binByte(bins: Uint32Array, rowWords: number, i: number, f: number): number {
  return (bins[f * rowWords + (i >>> 2)] >>> ((i & 3) * 8)) & 0xff
}

/**
 * Accumulates into `hist` (Uint32Array, length ≥ S·b·4; not cleared first) the quantised pairs of
 * rows [0, n): row i with node p = positions[i] (skipped when ROW_UNUSED or p ≥ nodeSlot.length)
 * goes to slot nodeSlot[p] (skipped when < 0); for each feature f < nf, its stored byte s gives
 * bin s − missOff[f] (skipped when missing, s < missOff[f], or past the feature's last bin).
 * Arguments in the kernel's binding order, then the uniforms (N, F, rowWords, B, classes).
 *
 * `classes` = K > 1 (multiclass: the round's K class trees at once): qgpair and positions hold
 * K entries per row, (row i, class c) at i·K + c, each with its own node; row i's bins are read
 * once and its K pairs go to their K nodes' slots — one pass for the K trees.
 */
export function histogramBuild(
  bins: Uint32Array,
  missOff: Uint32Array,
  cutPtrs: Uint32Array,
  qgpair: Int32Array,
  positions: Uint32Array,
  nodeSlot: Int32Array,
  hist: Uint32Array,
  n: number,
  nf: number,
  rowWords: number,
  b: number,
  classes = 1,
): void {
  for (let i = 0; i < n; i++)
    addRow(bins, missOff, cutPtrs, qgpair, positions, nodeSlot, hist, i, nf, rowWords, b, classes)
}

/**
 * histogram_build_rows: as histogramBuild, over the rows listed in `rows[0 .. min(count, n))`
 * (entries ≥ n skipped) instead of rows [0, n). A row listed twice is added twice.
 */
export function histogramBuildRows(
  bins: Uint32Array,
  missOff: Uint32Array,
  cutPtrs: Uint32Array,
  qgpair: Int32Array,
  positions: Uint32Array,
  nodeSlot: Int32Array,
  hist: Uint32Array,
  rows: Uint32Array,
  count: number,
  n: number,
  nf: number,
  rowWords: number,
  b: number,
): void {
  const k = Math.min(count, n, rows.length)
  for (let j = 0; j < k; j++) {
    if (rows[j] < n) addRow(bins, missOff, cutPtrs, qgpair, positions, nodeSlot, hist, rows[j], nf, rowWords, b)
  }
}

function addRow(
  bins: Uint32Array,
  missOff: Uint32Array,
  cutPtrs: Uint32Array,
  qgpair: Int32Array,
  positions: Uint32Array,
  nodeSlot: Int32Array,
  hist: Uint32Array,
  i: number,
  nf: number,
  rowWords: number,
  b: number,
  classes = 1,
): void {
  const slots: number[] = [],
    entries: number[] = []
  for (let c = 0; c < classes; c++) {
    const e = i * classes + c
    const p = positions[e]
    if (p === ROW_UNUSED || p >= nodeSlot.length || nodeSlot[p] < 0) continue
    slots.push(nodeSlot[p])
    entries.push(e)
  }
  if (slots.length === 0) return
  for (let f = 0; f < nf; f++) {
    const s = binByte(bins, rowWords, i, f)
    if (s < missOff[f]) continue
    const bin = cutPtrs[f] + s - missOff[f]
    if (bin >= cutPtrs[f + 1]) continue
    for (let j = 0; j < slots.length; j++) {
      const at = (slots[j] * b + bin) * 4
      if (at + 4 > hist.length) continue
      add64(hist, at, qgpair[2 * entries[j]])
      add64(hist, at + 2, qgpair[2 * entries[j] + 1])
    }
  }
}
