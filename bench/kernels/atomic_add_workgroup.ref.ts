/**
 * Reference for atomic_add_workgroup.wgsl: counters[keys[i] % K] += 1 for i < n. Privatising in
 * workgroup memory changes only the order of additions, and integer sums do not depend on order,
 * so the reference is the plain histogram.
 */

/** Accumulates into `counters` (Uint32Array, length ≥ K) from `keys` (Uint32Array, length ≥ n). */
export function atomicAddWorkgroup(keys: Uint32Array, counters: Uint32Array, n: number, K: number): void {
  for (let i = 0; i < n; i++) {
    const bin = keys[i] % K
    counters[bin] = (counters[bin] + 1) >>> 0
  }
}
