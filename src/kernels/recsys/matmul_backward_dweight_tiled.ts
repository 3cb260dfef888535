/** matmul_backward_dweight_tiled: dweight = doutᵀ · inp via TILE×TILE tiles (shaders/recsys/matmul_backward_dweight_tiled.wgsl). */
import code from '../../../shaders/recsys/matmul_backward_dweight_tiled.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import type { MatmulBackwardDweightBuffers } from './matmul_backward_dweight.ts'
import { DWEIGHT_UNIFORMS, matmulBackwardDweightBindings } from './matmul_backward_dweight.ts'
import type { MatmulShape } from './matmul_forward.ts'
import { matmulGrid } from './matmul_forward.ts'

/** Spec of matmul_backward_dweight_tiled; override TILE = tile edge. */
export const matmulBackwardDweightTiledSpec: KernelSpec<MatmulShape> = {
  name: 'matmul_backward_dweight_tiled',
  code,
  entryPoint: 'matmul_backward_dweight_tiled',
  bindings: matmulBackwardDweightBindings(),
  uniforms: DWEIGHT_UNIFORMS,
  overrides: { TILE: 16 },
  dispatchSize: (s, k) => matmulGrid(s.c, s.oc, k.TILE, k.TILE),
}

/** A call writing (or with `accumulate`, adding) `dweight` (f32 OC×C) = `dout` (B×OC)ᵀ · `inp` (B×C), tiled. */
export function matmulBackwardDweightTiledCall(
  buffers: MatmulBackwardDweightBuffers, shape: MatmulShape, accumulate = false, constants: { TILE?: number } = {},
): KernelCall<MatmulShape> {
  return { spec: matmulBackwardDweightTiledSpec, shape, buffers, uniforms: { ...shape, accumulate: accumulate ? 1 : 0 }, constants }
}
