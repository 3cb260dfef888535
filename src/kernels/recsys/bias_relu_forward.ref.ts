/**
 * Reference for bias_relu_forward.wgsl: out[b, c] = max(0, inp[b, c] + bias[c]) over [B×C], or
 * just inp + bias when `relu` is false (the output layer's bias). B = batch rows, C = channels.
 */

/** Writes `out` (Float32Array, b·c) from `inp` (b·c) and `bias` (c). */
export function biasReluForward(
  inp: Float32Array,
  bias: Float32Array,
  out: Float32Array,
  b: number,
  c: number,
  relu: boolean,
): void {
  for (let row = 0; row < b; row++) {
    for (let k = 0; k < c; k++) {
      const x = Math.fround(inp[row * c + k] + bias[k])
      out[row * c + k] = relu ? Math.max(0, x) : x
    }
  }
}
