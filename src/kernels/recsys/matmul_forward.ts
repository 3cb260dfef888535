/**
 * matmul_forward: out[B×OC] = inp[B×C] · weightᵀ, llm.c layout (shaders/recsys/matmul_forward.wgsl).
 * Also the shape, grid and FLOP helpers every recsys matmul kernel shares.
 */
import source from '../../../shaders/recsys/matmul_forward.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { Dispatch, KernelSpec, UniformField } from '../spec.ts'
import { MAX_WORKGROUPS_PER_DIM } from '../spec.ts'
import { defineKernel } from '../wgsl.ts'

/** Dense-layer shape: b = B batch rows, c = C input channels, oc = OC output channels. */
export interface MatmulShape {
  b: number
  c: number
  oc: number
}

/** Uniform fields b, c, oc (u32), the Params struct of the forward and dinp kernels. */
export const MATMUL_UNIFORMS: readonly UniformField[] = [
  { name: 'b', type: 'u32' },
  { name: 'c', type: 'u32' },
  { name: 'oc', type: 'u32' },
]

/** Spec of matmul_forward (naive, version 1); overrides WX × WY = workgroup tile of out elements. */
export const matmulForwardSpec: KernelSpec<MatmulShape> = defineKernel({
  name: 'matmul_forward',
  source,
  entryPoint: 'matmul_forward',
  bindings: matmulForwardBindings(),
  uniforms: MATMUL_UNIFORMS,
  overrides: { WX: 16, WY: 16 },
  dispatchSize: (s, k) => matmulGrid(s.oc, s.b, k.WX, k.WY),
})

/** Bindings of both forward kernels: params, inp, weight (read), out (write). */
export function matmulForwardBindings(): KernelSpec<MatmulShape>['bindings'] {
  return [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'inp', kind: 'read-only-storage' },
    { binding: 2, name: 'weight', kind: 'read-only-storage' },
    { binding: 3, name: 'out', kind: 'storage' },
  ]
}

/**
 * Workgroups covering a rows×cols output with tx×ty tiles: [ceil(cols/tx), ceil(rows/ty), 1]
 * (all 0 when empty). Throws past the 65535-per-dimension grid limit (e.g. B > 1 048 560 at ty 16).
 */
export function matmulGrid(cols: number, rows: number, tx: number, ty: number): Dispatch {
  if (rows === 0 || cols === 0) return [0, 0, 0]
  const grid: Dispatch = [Math.ceil(cols / tx), Math.ceil(rows / ty), 1]
  if (grid[0] > MAX_WORKGROUPS_PER_DIM || grid[1] > MAX_WORKGROUPS_PER_DIM) {
    throw new RangeError(
      `matmul: ${rows}×${cols} output needs grid ${grid[0]}×${grid[1]}, over ${MAX_WORKGROUPS_PER_DIM} per dimension`,
    )
  }
  return grid
}

/** Floating-point operations of one B×C·C×OC product (a multiply and an add per term). */
export function matmulFlops(s: MatmulShape): number {
  return 2 * s.b * s.c * s.oc
}

/** Buffers of a forward call: inp f32 [B×C], weight f32 [OC×C], out f32 [B×OC]. */
export type MatmulForwardBuffers = { inp: GPUBuffer; weight: GPUBuffer; out: GPUBuffer }

/** A call writing `out` = `inp` · `weight`ᵀ with the naive kernel. */
export function matmulForwardCall(
  buffers: MatmulForwardBuffers,
  shape: MatmulShape,
  constants: { WX?: number; WY?: number } = {},
): KernelCall<MatmulShape> {
  return { spec: matmulForwardSpec, shape, buffers, uniforms: { ...shape }, constants }
}
