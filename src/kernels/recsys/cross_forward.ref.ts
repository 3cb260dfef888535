/**
 * Reference for cross_forward.wgsl, the elementwise half of a DCN-v2 cross layer:
 * out[b, c] = x0[b, c] · (z[b, c] + bias[c]) + xl[b, c], with z = W·xl from the matmul kernels.
 * B = batch rows, C = C0 cross width. Rounds to f32 after each operation, as the shader does
 * without FMA contraction.
 */

/** Writes `out` (Float32Array, b·c) from `x0`, `xl`, `z` (b·c each; x0 may be xl) and `bias` (c). */
export function crossForward(
  x0: Float32Array,
  xl: Float32Array,
  z: Float32Array,
  bias: Float32Array,
  out: Float32Array,
  b: number,
  c: number,
): void {
  for (let i = 0; i < b * c; i++) {
    out[i] = Math.fround(Math.fround(x0[i] * Math.fround(z[i] + bias[i % c])) + xl[i])
  }
}
