/** Reference for atomic_add_storage.wgsl: counters[keys[i] % k] += 1 for i < n (u32 wrap). */

/** Accumulates into `counters` (Uint32Array, length ≥ k) from `keys` (Uint32Array, length ≥ n). */
export function atomicAddStorage(keys: Uint32Array, counters: Uint32Array, n: number, k: number): void {
  for (let i = 0; i < n; i++) {
    const bin = keys[i] % k
    counters[bin] = (counters[bin] + 1) >>> 0
  }
}
