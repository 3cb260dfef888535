/**
 * Reference for matmul_forward.wgsl (llm.c layout, no bias): out[B×OC] = inp[B×C] · weightᵀ with
 * weight [OC×C] row-major. B = batch rows, C = input channels, OC = output channels. Sums
 * c = 0..C−1 in order, rounding to f32 after every multiply and add, as the shader does without
 * FMA contraction.
 */

/** Writes `out` (Float32Array, b·oc) = `inp` (b·c) · `weight` (oc·c)ᵀ. */
export function matmulForward(
  inp: Float32Array,
  weight: Float32Array,
  out: Float32Array,
  b: number,
  c: number,
  oc: number,
): void {
  for (let row = 0; row < b; row++) {
    for (let o = 0; o < oc; o++) {
      let acc = 0
      // inp[row, k] · weight[o, k]: both rows are contiguous in k.
      for (let k = 0; k < c; k++) acc = Math.fround(acc + Math.fround(inp[row * c + k] * weight[o * c + k]))
      out[row * oc + o] = acc
    }
  }
}
