/** matmul_forward_tiled: out[B×OC] = inp[B×C] · weightᵀ via TILE×TILE tiles (shaders/recsys/matmul_forward_tiled.wgsl). */
import code from '../../../shaders/recsys/matmul_forward_tiled.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import type { MatmulForwardBuffers, MatmulShape } from './matmul_forward.ts'
import { MATMUL_UNIFORMS, matmulForwardBindings, matmulGrid } from './matmul_forward.ts'

/** Spec of matmul_forward_tiled; override TILE = tile edge (TILE² invocations, 2·TILE²·4 bytes shared). */
export const matmulForwardTiledSpec: KernelSpec<MatmulShape> = {
  name: 'matmul_forward_tiled',
  code,
  entryPoint: 'matmul_forward_tiled',
  bindings: matmulForwardBindings(),
  uniforms: MATMUL_UNIFORMS,
  overrides: { TILE: 16 },
  dispatchSize: (s, k) => matmulGrid(s.oc, s.b, k.TILE, k.TILE),
}

/** A call writing `out` (f32 B×OC) = `inp` (B×C) · `weight` (OC×C)ᵀ with the tiled kernel. */
export function matmulForwardTiledCall(
  buffers: MatmulForwardBuffers, shape: MatmulShape, constants: { TILE?: number } = {},
): KernelCall<MatmulShape> {
  return { spec: matmulForwardTiledSpec, shape, buffers, uniforms: { ...shape }, constants }
}
