/**
 * Reference for quantise.wgsl (XGBoost GradientQuantiser): gradient pairs → fixed-point i32 pairs
 * with per-round power-of-two scales, so the GPU and this reference agree bit for bit.
 * N = rows; gpair Float32Array (g, h) × N; qgpair Int32Array (qg, qh) × N.
 *
 * The scales buffer is 4 words: [maxAbsG, maxAbsH, gScale, hScale] as f32 bit patterns (the
 * kernel's pass 1 atomicMax-es the bit patterns of |g| and |h| into words 0, 1: for non-negative
 * floats the u32 order of the bits is the float order). Read it as a Float32Array.
 */
import { quantiseScale, roundHalfEven } from './fixed-point.ts'

/** Pass 1: [max |g|, max |h|] over rows [0, n) of `gpair` (f32 values). */
export function quantiseMax(gpair: Float32Array, n: number): [number, number] {
  let mg = 0,
    mh = 0
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
  const gs = quantiseScale(mg),
    hs = quantiseScale(mh)
  scales.set([mg, mh, gs, hs])
  for (let i = 0; i < n; i++) {
    qgpair[2 * i] = roundHalfEven(gpair[2 * i] * gs)
    qgpair[2 * i + 1] = roundHalfEven(gpair[2 * i + 1] * hs)
  }
}

/** Dequantises a fixed-point sum (exact integer as a double) with `scale`. */
export function dequantise(sum: number, scale: number): number {
  return sum / scale
}
