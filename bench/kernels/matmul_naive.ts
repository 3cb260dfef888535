/** matmul_naive: C = A·B, f32 row-major (bench/shaders/matmul_naive.wgsl). M×K · K×N → M×N. */
import code from '../shaders/matmul_naive.wgsl?raw'
import type { KernelCall } from '../../src/kernels/runner.ts'
import type { Dispatch, KernelSpec } from '../../src/kernels/spec.ts'

/** Problem shape: A is m×k, B is k×n, C is m×n. */
export interface MatmulShape {
  m: number
  k: number
  n: number
}

/** Spec of matmul_naive; overrides WX × WY = workgroup tile of C elements. */
export const matmulNaiveSpec: KernelSpec<MatmulShape> = {
  name: 'matmul_naive',
  code,
  entryPoint: 'matmul_naive',
  bindings: matmulBindings(),
  uniforms: [
    { name: 'm', type: 'u32' },
    { name: 'k', type: 'u32' },
    { name: 'n', type: 'u32' },
  ],
  overrides: { WX: 16, WY: 16 },
  dispatchSize: (s, c) => gridFor(s, c.WX, c.WY),
}

/** Bindings of matmul_naive: params, a, b (read), c (write), as the product's matmul_tiled. */
export function matmulBindings(): KernelSpec<MatmulShape>['bindings'] {
  return [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'a', kind: 'read-only-storage' },
    { binding: 2, name: 'b', kind: 'read-only-storage' },
    { binding: 3, name: 'c', kind: 'storage' },
  ]
}

/** Workgroups covering the m×n output with tx×ty tiles: [ceil(n/tx), ceil(m/ty), 1] (0s when empty). */
export function gridFor(s: MatmulShape, tx: number, ty: number): Dispatch {
  if (s.m === 0 || s.n === 0) return [0, 0, 0]
  return [Math.ceil(s.n / tx), Math.ceil(s.m / ty), 1]
}

/** Floating-point operations of one m×k·k×n product (a multiply and an add per term). */
export function matmulFlops(s: MatmulShape): number {
  return 2 * s.m * s.k * s.n
}

/** A call computing `c` (f32 × m·n) = `a` (f32 × m·k) · `b` (f32 × k·n). */
export function matmulNaiveCall(
  buffers: { a: GPUBuffer; b: GPUBuffer; c: GPUBuffer },
  shape: MatmulShape,
  constants: { WX?: number; WY?: number } = {},
): KernelCall<MatmulShape> {
  return { spec: matmulNaiveSpec, shape, buffers, uniforms: { ...shape }, constants }
}
