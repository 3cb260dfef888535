/** matmul_tiled: C = A·B via TILE×TILE workgroup tiles (shaders/bench/matmul_tiled.wgsl). */
import code from '../../../shaders/bench/matmul_tiled.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import type { MatmulShape } from './matmul_naive.ts'
import { gridFor, matmulBindings } from './matmul_naive.ts'

/** Spec of matmul_tiled; override TILE = tile edge (TILE² invocations, 2·TILE²·4 bytes shared). */
export const matmulTiledSpec: KernelSpec<MatmulShape> = {
  name: 'matmul_tiled',
  code,
  entryPoint: 'matmul_tiled',
  bindings: matmulBindings(),
  uniforms: [{ name: 'm', type: 'u32' }, { name: 'k', type: 'u32' }, { name: 'n', type: 'u32' }],
  overrides: { TILE: 16 },
  dispatchSize: (s, c) => gridFor(s, c.TILE, c.TILE),
}

/** A call computing `c` (f32 × m·n) = `a` (f32 × m·k) · `b` (f32 × k·n). */
export function matmulTiledCall(
  buffers: { a: GPUBuffer; b: GPUBuffer; c: GPUBuffer }, shape: MatmulShape, constants: { TILE?: number } = {},
): KernelCall<MatmulShape> {
  return { spec: matmulTiledSpec, shape, buffers, uniforms: { ...shape }, constants }
}
