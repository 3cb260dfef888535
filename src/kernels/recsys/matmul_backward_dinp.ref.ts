/**
 * Reference for matmul_backward_dinp.wgsl, the input half of llm.c's matmul_backward:
 * dinp[B×C] = dout[B×OC] · weight[OC×C]. B = batch rows, C = input channels, OC = output
 * channels. Overwrites dinp (an MLP layer's input gradient is produced once per step), or, with
 * `accumulate`, adds the product to it (a cross layer's input gradient: residual + product). Sums
 * o = 0..OC−1 in order in f32, then adds.
 */

/** Writes `dinp` (Float32Array, b·c) = `dout` (b·oc) · `weight` (oc·c), or adds it when `accumulate`. */
export function matmulBackwardDinp(
  dout: Float32Array,
  weight: Float32Array,
  dinp: Float32Array,
  b: number,
  c: number,
  oc: number,
  accumulate = false,
): void {
  for (let row = 0; row < b; row++) {
    for (let k = 0; k < c; k++) {
      let acc = 0
      // dout[row, o] · weight[o, k]
      for (let o = 0; o < oc; o++) acc = Math.fround(acc + Math.fround(dout[row * oc + o] * weight[o * c + k]))
      const i = row * c + k
      dinp[i] = accumulate ? Math.fround(dinp[i] + acc) : acc
    }
  }
}
