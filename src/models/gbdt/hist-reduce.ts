/**
 * The data-parallel pieces of the GBDT backends: 64-bit fixed-point sums kept as
 * [lo, hi] u32 pairs are summed over ranks as exact doubles, and gradients are quantised with
 * the global maxima. Both backends (CPU reference and WebGPU) use these, so their distributed
 * runs stay bit-identical. W = u32 words (2 per 64-bit value).
 */
import type { BackendReduce } from './backend.ts'
import { numberToPair, pairToNumber } from './quantiser.ts'
import { quantiseScale, roundHalfEven } from '../../kernels/gbdt/fixed-point.ts'

/**
 * Sums `words` (Uint32Array, W = 2·K: K two's-complement 64-bit integers as [lo, hi]) over
 * ranks; a new array of the same layout. Exact while every partial and total |x| < 2^53, which
 * the quantiser guarantees for fewer than 2^23 rows in all (|q| ≤ 2^30 per row).
 */
export async function allreducePairs(words: Uint32Array, reduce: BackendReduce): Promise<Uint32Array<ArrayBuffer>> {
  const values = new Float64Array(words.length / 2)
  for (let i = 0; i < values.length; i++) values[i] = pairToNumber(words[2 * i], words[2 * i + 1])
  const sums = await reduce.sum(values)
  const out = new Uint32Array(words.length)
  for (let i = 0; i < sums.length; i++) {
    const [lo, hi] = numberToPair(sums[i])
    out[2 * i] = lo
    out[2 * i + 1] = hi
  }
  return out
}

/**
 * quantise.ref's second pass with given maxima (the global ones): writes `qgpair` (Int32Array,
 * 2n) and `scales` = [maxAbsG, maxAbsH, gScale, hScale]. Equal maxima give the R = 1 result.
 */
export function quantiseWithMax(
  gpair: Float32Array,
  n: number,
  qgpair: Int32Array,
  scales: Float32Array,
  maxG: number,
  maxH: number,
): void {
  const gs = quantiseScale(maxG),
    hs = quantiseScale(maxH)
  scales.set([maxG, maxH, gs, hs])
  for (let i = 0; i < n; i++) {
    qgpair[2 * i] = roundHalfEven(gpair[2 * i] * gs)
    qgpair[2 * i + 1] = roundHalfEven(gpair[2 * i + 1] * hs)
  }
}
