/**
 * Reference for concat_backward.wgsl: demb[b, k] = dinp[b, k] for k < E (the embedding slice
 * of the MLP input's gradient). B = batch, E = S·D, Cd = dense inputs, C0 = E + Cd.
 */

/** Writes `demb` (Float32Array, b·e) from `dinp` (b·(e + cd)). */
export function concatBackward(dinp: Float32Array, demb: Float32Array, b: number, e: number, cd: number): void {
  const c0 = e + cd
  for (let row = 0; row < b; row++) demb.set(dinp.subarray(row * c0, row * c0 + e), row * e)
}
