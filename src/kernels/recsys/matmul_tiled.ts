/**
 * matmul_tiled: c[M×N] = op(a) · op(b) through TILE×TILE tiles (shaders/recsys/matmul_tiled.wgsl),
 * one kernel for every layout; the recommender's forward, dinp and dweight products are three
 * layouts of it, and the bench times it against bench/kernels/matmul_naive.ts.
 */
import source from '../../../shaders/recsys/matmul_tiled.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { defineKernel } from '../wgsl.ts'
import type { MatmulBackwardDinpBuffers } from './matmul_backward_dinp.ts'
import type { MatmulBackwardDweightBuffers } from './matmul_backward_dweight.ts'
import type { MatmulForwardBuffers, MatmulShape } from './matmul_forward.ts'
import { matmulGrid } from './matmul_forward.ts'

/** Product shape: op(a) is m×k, op(b) is k×n, c is m×n. */
export interface GemmShape {
  m: number
  k: number
  n: number
}

/** How the operands are stored: transA = a is [K×M], transB = b is [N×K]; accumulate = c += product. */
export interface GemmLayout {
  transA?: boolean
  transB?: boolean
  accumulate?: boolean
}

/** Spec of matmul_tiled; overrides TILE = tile edge (TILE² invocations, 2·TILE²·4 bytes shared), TRANS_A, TRANS_B (0 / 1). */
export const matmulTiledSpec: KernelSpec<GemmShape> = defineKernel({
  name: 'matmul_tiled',
  source,
  entryPoint: 'matmul_tiled',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'a', kind: 'read-only-storage' },
    { binding: 2, name: 'b', kind: 'read-only-storage' },
    // read_write: accumulate reads it.
    { binding: 3, name: 'c', kind: 'storage' },
  ],
  uniforms: [
    { name: 'm', type: 'u32' },
    { name: 'k', type: 'u32' },
    { name: 'n', type: 'u32' },
    { name: 'accumulate', type: 'u32' },
  ],
  overrides: { TILE: 16, TRANS_A: 0, TRANS_B: 0 },
  dispatchSize: (s, k) => matmulGrid(s.n, s.m, k.TILE, k.TILE),
})

/** Buffers of a matmul_tiled call: a f32 [M×K] (or [K×M]), b f32 [K×N] (or [N×K]), c f32 [M×N]. */
export type GemmBuffers = { a: GPUBuffer; b: GPUBuffer; c: GPUBuffer }

/** A call writing (or with `layout.accumulate`, adding) `c` = op(`a`) · op(`b`). */
export function matmulTiledCall(
  buffers: GemmBuffers,
  shape: GemmShape,
  layout: GemmLayout = {},
  constants: { TILE?: number } = {},
): KernelCall<GemmShape> {
  return {
    spec: matmulTiledSpec,
    shape,
    buffers,
    uniforms: { ...shape, accumulate: layout.accumulate ? 1 : 0 },
    constants: { ...constants, TRANS_A: layout.transA ? 1 : 0, TRANS_B: layout.transB ? 1 : 0 },
  }
}

/** Forward: `out` [B×OC] = `inp` [B×C] · `weight` [OC×C]ᵀ (b stored transposed). */
export function matmulForwardTiledCall(
  buffers: MatmulForwardBuffers,
  s: MatmulShape,
  constants: { TILE?: number } = {},
): KernelCall<GemmShape> {
  const { inp, weight, out } = buffers
  return matmulTiledCall({ a: inp, b: weight, c: out }, { m: s.b, k: s.c, n: s.oc }, { transB: true }, constants)
}

/** Input gradient: `dinp` [B×C] = `dout` [B×OC] · `weight` [OC×C] (no transposes), or += when `accumulate`. */
export function matmulBackwardDinpTiledCall(
  buffers: MatmulBackwardDinpBuffers,
  s: MatmulShape,
  accumulate = false,
  constants: { TILE?: number } = {},
): KernelCall<GemmShape> {
  const { dout, weight, dinp } = buffers
  return matmulTiledCall({ a: dout, b: weight, c: dinp }, { m: s.b, k: s.oc, n: s.c }, { accumulate }, constants)
}

/** Weight gradient: `dweight` [OC×C] = `dout` [B×OC]ᵀ · `inp` [B×C] (a stored transposed), or += when `accumulate`. */
export function matmulBackwardDweightTiledCall(
  buffers: MatmulBackwardDweightBuffers,
  s: MatmulShape,
  accumulate = false,
  constants: { TILE?: number } = {},
): KernelCall<GemmShape> {
  const { dout, inp, dweight } = buffers
  return matmulTiledCall(
    { a: dout, b: inp, c: dweight },
    { m: s.oc, k: s.b, n: s.c },
    { transA: true, accumulate },
    constants,
  )
}
