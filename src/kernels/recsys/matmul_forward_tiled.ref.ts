/**
 * Reference for matmul_forward_tiled.wgsl: the same product as matmul_forward, summed in the same
 * order (tiling changes where operands are read from, not the order of additions).
 */
import { matmulForward } from './matmul_forward.ref.ts'

/** Writes `out` (Float32Array, b·oc) = `inp` (b·c) · `weight` (oc·c)ᵀ. */
export function matmulForwardTiled(inp: Float32Array, weight: Float32Array, out: Float32Array, b: number, c: number, oc: number): void {
  matmulForward(inp, weight, out, b, c, oc)
}
