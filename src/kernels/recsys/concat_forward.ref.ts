/**
 * Reference for concat_forward.wgsl: inp[b, :] = [emb[b, :E], dense[b, :Cd]], the MLP input.
 * B = batch, E = S·D embedding floats per row, Cd = dense inputs, C0 = E + Cd.
 */

/** Writes `inp` (Float32Array, b·(e + cd)) from `emb` (b·e) and `dense` (b·cd). */
export function concatForward(
  emb: Float32Array,
  dense: Float32Array,
  inp: Float32Array,
  b: number,
  e: number,
  cd: number,
): void {
  const c0 = e + cd
  for (let row = 0; row < b; row++) {
    inp.set(emb.subarray(row * e, row * e + e), row * c0)
    inp.set(dense.subarray(row * cd, row * cd + cd), row * c0 + e)
  }
}
