/**
 * Reference for matmul_tiled.wgsl: c[M×N] = op(a) · op(b) in f32, or c += it when `accumulate`.
 * M = rows of c, K = inner dim, N = cols of c; op(a) = a [M×K], or a [K×M] transposed (transA);
 * op(b) = b [K×N], or b [N×K] transposed (transB). Sums p = 0..K−1 in order, rounding to f32
 * after every multiply and add, as the shader does without FMA contraction; tiling changes where
 * operands are read from, not the order of additions.
 */

/** Writes `c` (Float32Array, m·n) = op(`a`) · op(`b`), or adds it to `c` when `accumulate`. */
export function matmulTiled(
  a: Float32Array,
  b: Float32Array,
  c: Float32Array,
  m: number,
  k: number,
  n: number,
  transA = false,
  transB = false,
  accumulate = false,
): void {
  for (let row = 0; row < m; row++) {
    for (let col = 0; col < n; col++) {
      let acc = 0
      for (let p = 0; p < k; p++) {
        // op(a)[row, p] · op(b)[p, col]
        const av = transA ? a[p * m + row] : a[row * k + p]
        const bv = transB ? b[col * k + p] : b[p * n + col]
        acc = Math.fround(acc + Math.fround(av * bv))
      }
      const i = row * n + col
      c[i] = accumulate ? Math.fround(c[i] + acc) : acc
    }
  }
}
