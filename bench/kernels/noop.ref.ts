/** Reference for noop.wgsl: computes nothing and touches no memory. */

/** Does nothing; the parity test checks the GPU side leaves memory untouched too. */
export function noop(): void {
  // Intentionally empty: the kernel exists to time dispatch overhead.
}
