/** Reference for matmul_backward_dinp_tiled.wgsl: same sums, same order as matmul_backward_dinp. */
import { matmulBackwardDinp } from './matmul_backward_dinp.ref.ts'

/** Writes `dinp` (Float32Array, b·c) = `dout` (b·oc) · `weight` (oc·c). */
export function matmulBackwardDinpTiled(dout: Float32Array, weight: Float32Array, dinp: Float32Array, b: number, c: number, oc: number): void {
  matmulBackwardDinp(dout, weight, dinp, b, c, oc)
}
