/** Reference for stream_rmw.wgsl: a[i] = a[i]·s + b[i] in f32, for i < n. */

/** Updates `a` in place (f32, length ≥ n) from `b` (f32, length ≥ n) with scale `s`. */
export function streamRmw(a: Float32Array, b: Float32Array, n: number, s: number): void {
  const sf = Math.fround(s)
  for (let i = 0; i < n; i++) a[i] = Math.fround(a[i] * sf) + b[i]
}
