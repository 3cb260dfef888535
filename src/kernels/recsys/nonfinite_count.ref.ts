/**
 * Reference for nonfinite_count.wgsl: counts the NaN / ±Infinity elements of an f32 array and
 * finds the first one, by the same bit test as the shader (exponent bits all ones).
 */
import type { NonFiniteCount } from './layout.ts'

/** Counts the non-finite elements of `x` (all of it, or the first `n`). */
export function nonfiniteCount(x: Float32Array, n = x.length): NonFiniteCount {
  const bits = new Uint32Array(x.buffer, x.byteOffset, n)
  let count = 0,
    first = -1
  for (let i = 0; i < n; i++) {
    if ((bits[i] & 0x7f800000) === 0x7f800000) {
      count++
      if (first < 0) first = i
    }
  }
  return { count, first }
}
