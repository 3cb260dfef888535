/**
 * Reference for quantise.wgsl (XGBoost GradientQuantiser): gradient pairs → fixed-point i32 pairs
 * with per-round power-of-two scales, so the GPU and this reference agree bit for bit.
 * N = rows; gpair Float32Array (g, h) × N; qgpair Int32Array (qg, qh) × N.
 *
 * The scales buffer is 4 words: [maxAbsG, maxAbsH, gScale, hScale] as f32 bit patterns (the
 * kernel's pass 1 atomicMax-es the bit patterns of |g| and |h| into words 0, 1: for non-negative
 * floats the u32 order of the bits is the float order). Read it as a Float32Array.
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

/** Pass 1: [max |g|, max |h|] over rows [0, n) of `gpair` (f32 values). */
export function quantiseMax(gpair: Float32Array, n: number): [number, number] {
  let mg = 0, mh = 0
  for (let i = 0; i < n; i++) {
    mg = Math.max(mg, Math.abs(gpair[2 * i]))
    mh = Math.max(mh, Math.abs(gpair[2 * i + 1]))
  }
  return [mg, mh]
}

/**
 * Both passes: writes `qgpair` (Int32Array, length ≥ 2n) = roundHalfEven(g · gScale),
 * roundHalfEven(h · hScale) and `scales` (Float32Array, length 4) = [maxAbsG, maxAbsH, gScale,
 * hScale]. Round half to even is WGSL's `round`.
 */
export function quantise(gpair: Float32Array, n: number, qgpair: Int32Array, scales: Float32Array): void {
  const [mg, mh] = quantiseMax(gpair, n)
  const gs = quantiseScale(mg), hs = quantiseScale(mh)
  scales.set([mg, mh, gs, hs])
  for (let i = 0; i < n; i++) {
    qgpair[2 * i] = roundHalfEven(gpair[2 * i] * gs)
    qgpair[2 * i + 1] = roundHalfEven(gpair[2 * i + 1] * hs)
  }
}

/** Nearest integer, ties to even (exact for any double). */
export function roundHalfEven(x: number): number {
  const r = Math.round(x)
  // Math.round breaks ties towards +∞; an exact tie that landed on an odd integer goes down.
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r
}

/** Dequantises a fixed-point sum (exact integer as a double) with `scale`. */
export function dequantise(sum: number, scale: number): number {
  return sum / scale
}

function f32Bits(x: number): number {
  const v = new DataView(new ArrayBuffer(4))
  v.setFloat32(0, x, true)
  return v.getUint32(0, true)
}
