/**
 * Reference for matmul_tiled.wgsl: the same product as matmul_naive, summed in the same order
 * (tiling changes where operands come from, not the order of additions).
 */
import { matmulNaive } from './matmul_naive.ref.ts'

/** Writes `c` (Float32Array, m·n) = `a` (m·k) · `b` (k·n). */
export function matmulTiled(a: Float32Array, b: Float32Array, c: Float32Array, m: number, k: number, n: number): void {
  matmulNaive(a, b, c, m, k, n)
}
