/** Reference for copy.wgsl: dst[i] = src[i] for i < n. */

/** Copies the first `n` words of `src` into `dst` (both Uint32Array, length ≥ n). */
export function copy(src: Uint32Array, dst: Uint32Array, n: number): void {
  for (let i = 0; i < n; i++) dst[i] = src[i]
}
