/**
 * Reference for nonfinite_count.wgsl: counts the NaN / ±Infinity elements of an f32 array and
 * finds the first one, by the same bit test as the shader (exponent bits all ones).
 */

/** Count and first index (−1 when the count is 0) of the non-finite elements of x[0 … n). */
export interface NonFiniteCount { count: number; first: number }

/** Counts the non-finite elements of `x` (all of it, or the first `n`). */
export function nonfiniteCount(x: Float32Array, n = x.length): NonFiniteCount {
  const bits = new Uint32Array(x.buffer, x.byteOffset, n)
  let count = 0, first = -1
  for (let i = 0; i < n; i++) {
    if ((bits[i] & 0x7f800000) === 0x7f800000) {
      count++
      if (first < 0) first = i
    }
  }
  return { count, first }
}

/**
 * Decodes the kernel's out words for `slot`: [count, max(n − i)] → { count, first }. `n` is the
 * element count the slot's call scanned.
 */
export function decodeNonFinite(out: Uint32Array, slot: number, n: number): NonFiniteCount {
  const count = out[2 * slot]
  return { count, first: count > 0 ? n - out[2 * slot + 1] : -1 }
}
