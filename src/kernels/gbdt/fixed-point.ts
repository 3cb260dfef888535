/**
 * The fixed-point formats of GBDT gradient sums (XGBoost GradientQuantiser): the per-round
 * power-of-two scales, round-half-even quantisation, and signed 64-bit integers held as (lo, hi)
 * u32 pairs (shaders/lib/fixed64.wgsl on the GPU side). Shared by the quantise and split kernels,
 * their references and the backends' cross-rank reductions.
 */

/** Largest |q| per row: 2^30, so two rows' sum still fits an i32 and 2^23 rows fit 2^53. */
export const QUANT_BITS = 30

/** Smallest exponent e used for the scale 2^(30 − e); keeps the scale a finite f32 (≤ 2^127). */
const MIN_EXP = QUANT_BITS - 127

/**
 * Scale for a column with max |value| `maxAbs` (a non-negative f32): the power of two
 * 2^(30 − e) with e = ceil(log2(maxAbs)) (clamped to ≥ −97), so |value · scale| ≤ 2^30 and the
 * product is exact in f32. maxAbs = 0 → 2^127 (every value is 0 anyway). Power of two rather than
 * 2^30 / maxAbs: WGSL division is only accurate to 2.5 ULP, a power of two is exact everywhere.
 */
export function quantiseScale(maxAbs: number): number {
  const bits = f32Bits(maxAbs)
  const biased = bits >>> 23
  let e = biased === 0 ? MIN_EXP : biased - 127 + ((bits & 0x7fffff) !== 0 ? 1 : 0)
  e = Math.max(e, MIN_EXP)
  return 2 ** (QUANT_BITS - e)
}

/** Nearest integer, ties to even (exact for any double). */
export function roundHalfEven(x: number): number {
  const r = Math.round(x)
  // Math.round breaks ties towards +∞; an exact tie that landed on an odd integer goes down.
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r
}

/** Signed 64-bit integer of words (lo, hi) as a JS number (exact below 2^53). */
export function int64(lo: number, hi: number): number {
  return (hi | 0) * 4294967296 + (lo >>> 0)
}

/** Writes JS integer `v` as two's complement (lo, hi) at words[at], words[at + 1]. */
export function putInt64(words: Uint32Array, at: number, v: number): void {
  const hi = Math.floor(v / 4294967296)
  words[at] = (v - hi * 4294967296) >>> 0
  words[at + 1] = hi >>> 0
}

function f32Bits(x: number): number {
  const v = new DataView(new ArrayBuffer(4))
  v.setFloat32(0, x, true)
  return v.getUint32(0, true)
}
