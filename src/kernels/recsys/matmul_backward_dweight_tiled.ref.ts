/** Reference for matmul_backward_dweight_tiled.wgsl: same sums, same order as matmul_backward_dweight. */
import { matmulBackwardDweight } from './matmul_backward_dweight.ref.ts'

/** Writes `dweight` (Float32Array, oc·c) = `dout` (b·oc)ᵀ · `inp` (b·c), or adds it when `accumulate`. */
export function matmulBackwardDweightTiled(
  dout: Float32Array, inp: Float32Array, dweight: Float32Array, b: number, c: number, oc: number, accumulate: boolean,
): void {
  matmulBackwardDweight(dout, inp, dweight, b, c, oc, accumulate)
}
