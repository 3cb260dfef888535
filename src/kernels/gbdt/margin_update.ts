/** margin_update: margins[i] += leafValue[positions[i]] (shaders/gbdt/margin_update.wgsl). */
import source from '../../../shaders/gbdt/margin_update.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import { defineKernel } from '../wgsl.ts'

/** Problem shape: `rows` = N, `nodes` = K (length of leafValue). */
export interface MarginShape {
  rows: number
  nodes: number
}

/** Spec of margin_update; override WG = workgroup size (one row per invocation). */
export const marginUpdateSpec: KernelSpec<MarginShape> = defineKernel({
  name: 'margin_update',
  source,
  snippets: ['grid'],
  entryPoint: 'margin_update',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'positions', kind: 'read-only-storage' },
    { binding: 2, name: 'leafValue', kind: 'read-only-storage' },
    { binding: 3, name: 'margins', kind: 'storage' },
  ],
  uniforms: [
    { name: 'rows', type: 'u32' },
    { name: 'nodes', type: 'u32' },
  ],
  overrides: { WG: 256 },
  dispatchSize: (shape, c) => linearDispatch(shape.rows, c.WG),
})

/** A call adding `leafValue` (f32 × K) at each row's node (`positions`, u32 × N) to `margins` (f32 × N). */
export function marginUpdateCall(
  buffers: { positions: GPUBuffer; leafValue: GPUBuffer; margins: GPUBuffer },
  shape: MarginShape,
  constants: { WG?: number } = {},
): KernelCall<MarginShape> {
  return { spec: marginUpdateSpec, shape, buffers, uniforms: { ...shape }, constants }
}
