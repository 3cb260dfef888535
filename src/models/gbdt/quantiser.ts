/**
 * Gradient quantisation (XGBoost `GradientQuantiser`): per-round power-of-two scales so each
 * row's fixed-point |qg|, |qh| ≤ 2^30, and 64-bit histogram sums stored as [lo, hi] u32 pairs.
 * The scale rule itself lives in the quantise kernel's reference; this module wraps it for the
 * CPU stages and adds the 64-bit pair helpers. N = rows.
 */
import { quantiseScale } from '../../kernels/gbdt/fixed-point.ts'

/** Quantisation scales of one round. */
export interface QuantScales {
  gScale: number
  hScale: number
}

/**
 * Scales for gradients with max |g| = `maxAbsG`, max |h| = `maxAbsH` over `n` rows: powers of two
 * with |g·gScale| ≤ 2^30. Sums of n rows then stay below 2^30·n, i.e. exact in a double up to
 * 2^23 rows and in the GPU's 64-bit pairs for any realistic n.
 */
export function quantiseScales(maxAbsG: number, maxAbsH: number, n: number): QuantScales {
  void n // the per-row bound already keeps 64-bit sums exact for n < 2^33
  return { gScale: quantiseScale(Math.fround(maxAbsG)), hScale: quantiseScale(Math.fround(maxAbsH)) }
}

/** Value of a two's-complement 64-bit integer given as u32 words [lo, hi]. */
export function pairToNumber(lo: number, hi: number): number {
  return (hi | 0) * 4294967296 + (lo >>> 0)
}

/** [lo, hi] u32 words of an integer |x| < 2^63 (exact for |x| < 2^53). */
export function numberToPair(x: number): [number, number] {
  const hi = Math.floor(x / 4294967296)
  return [(x - hi * 4294967296) >>> 0, hi >>> 0]
}

/** Dequantised value of a fixed-point sum held as [lo, hi] with `scale`. */
export function dequantisePair(lo: number, hi: number, scale: number): number {
  return pairToNumber(lo, hi) / scale
}
