/**
 * Reference for matmul_backward_dweight.wgsl, the weight half of llm.c's matmul_backward:
 * dweight[OC×C] = doutᵀ[OC×B] · inp[B×C]. B = batch rows, C = input channels, OC = output
 * channels. The sum over rows b = 0..B−1 runs in order in f32; then it overwrites dweight, or,
 * with `accumulate`, is added to the value already there (gradient accumulation over micro-batches).
 */

/** Writes `dweight` (Float32Array, oc·c) = `dout` (b·oc)ᵀ · `inp` (b·c), or adds it when `accumulate`. */
export function matmulBackwardDweight(
  dout: Float32Array,
  inp: Float32Array,
  dweight: Float32Array,
  b: number,
  c: number,
  oc: number,
  accumulate: boolean,
): void {
  for (let o = 0; o < oc; o++) {
    for (let k = 0; k < c; k++) {
      let acc = 0
      // dout[row, o] · inp[row, k]
      for (let row = 0; row < b; row++) acc = Math.fround(acc + Math.fround(dout[row * oc + o] * inp[row * c + k]))
      const i = o * c + k
      dweight[i] = accumulate ? Math.fround(dweight[i] + acc) : acc
    }
  }
}
