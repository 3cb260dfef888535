/**
 * Reference for bias_relu_backward.wgsl. B = batch rows, C = channels. With `relu`,
 * dinp = dout · (out > 0) where `out` is the forward output (ReLU'(0) taken as 0); without it,
 * dinp = dout. dbias[c] = Σ_b dinp[b, c], summed in row order b = 0..B−1 (overwritten).
 */

/** Writes `dinp` (Float32Array, b·c) and `dbias` (c) from `dout` (b·c) and forward `out` (b·c; unread without relu). */
export function biasReluBackward(
  dout: Float32Array,
  out: Float32Array,
  dinp: Float32Array,
  dbias: Float32Array,
  b: number,
  c: number,
  relu: boolean,
): void {
  for (let k = 0; k < c; k++) {
    let acc = 0
    for (let row = 0; row < b; row++) {
      const i = row * c + k
      const d = relu && !(out[i] > 0) ? 0 : dout[i]
      dinp[i] = d
      acc = Math.fround(acc + d)
    }
    dbias[k] = acc
  }
}
