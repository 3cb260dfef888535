/**
 * Reference for cross_backward.wgsl, the elementwise half of a cross layer's backward
 * (out = x0 ⊙ (z + bias) + xl). B = batch rows, C = C0 cross width. From dout = ∂L/∂out [B×C]:
 * dz = dout ⊙ x0; dbias[c] = Σ_b dz[b, c] in row order b = 0..B−1 (overwritten); x0's share
 * v = dout ⊙ (z + bias), plus dout when `residual` (layer 0: xl is x0), written into dx0 or, with
 * `accumulate`, added to it (x0 feeds every layer). xl's residual gradient is dout itself.
 */

/** Writes `dz` (Float32Array, b·c), `dbias` (c) and `dx0` (b·c; += when `accumulate`). */
export function crossBackward(
  dout: Float32Array,
  x0: Float32Array,
  z: Float32Array,
  bias: Float32Array,
  dz: Float32Array,
  dx0: Float32Array,
  dbias: Float32Array,
  b: number,
  c: number,
  accumulate: boolean,
  residual: boolean,
): void {
  for (let k = 0; k < c; k++) {
    let acc = 0
    for (let row = 0; row < b; row++) {
      const i = row * c + k
      const d = dout[i]
      const g = Math.fround(d * x0[i])
      dz[i] = g
      acc = Math.fround(acc + g)
      let v = Math.fround(d * Math.fround(z[i] + bias[k]))
      if (residual) v = Math.fround(v + d)
      if (accumulate) v = Math.fround(dx0[i] + v)
      dx0[i] = v
    }
    dbias[k] = acc
  }
}
