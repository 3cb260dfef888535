/**
 * Reference for matmul_naive.wgsl: C = A·B in f32, row-major.
 * M = rows of A and C, K = inner dim, N = cols of B and C. Sums p = 0..K-1 in order, rounding to
 * f32 after every multiply and add, as the shader does without FMA contraction.
 */

/** Writes `c` (Float32Array, m·n) = `a` (m·k) · `b` (k·n). */
export function matmulNaive(a: Float32Array, b: Float32Array, c: Float32Array, m: number, k: number, n: number): void {
  for (let row = 0; row < m; row++) {
    for (let col = 0; col < n; col++) {
      let acc = 0
      // a[row, p] · b[p, col]
      for (let p = 0; p < k; p++) acc = Math.fround(acc + Math.fround(a[row * k + p] * b[p * n + col]))
      c[row * n + col] = acc
    }
  }
}
