/** matmul_backward_dinp_tiled: dinp = dout · weight via TILE×TILE tiles (shaders/recsys/matmul_backward_dinp_tiled.wgsl). */
import code from '../../../shaders/recsys/matmul_backward_dinp_tiled.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import type { MatmulBackwardDinpBuffers } from './matmul_backward_dinp.ts'
import { matmulBackwardDinpBindings } from './matmul_backward_dinp.ts'
import type { MatmulShape } from './matmul_forward.ts'
import { MATMUL_UNIFORMS, matmulGrid } from './matmul_forward.ts'

/** Spec of matmul_backward_dinp_tiled; override TILE = tile edge. */
export const matmulBackwardDinpTiledSpec: KernelSpec<MatmulShape> = {
  name: 'matmul_backward_dinp_tiled',
  code,
  entryPoint: 'matmul_backward_dinp_tiled',
  bindings: matmulBackwardDinpBindings(),
  uniforms: MATMUL_UNIFORMS,
  overrides: { TILE: 16 },
  dispatchSize: (s, k) => matmulGrid(s.c, s.b, k.TILE, k.TILE),
}

/** A call writing `dinp` (f32 B×C) = `dout` (B×OC) · `weight` (OC×C) with the tiled kernel. */
export function matmulBackwardDinpTiledCall(
  buffers: MatmulBackwardDinpBuffers, shape: MatmulShape, constants: { TILE?: number } = {},
): KernelCall<MatmulShape> {
  return { spec: matmulBackwardDinpTiledSpec, shape, buffers, uniforms: { ...shape }, constants }
}
