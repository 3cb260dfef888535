/** Shared driver for the matmul parity tests (naive and tiled pass the same cases, STYLE §4). */
import { uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import type { KernelCall } from '../../../src/kernels/runner.ts'
import { runKernel } from '../../../src/kernels/runner.ts'
import type { MatmulShape } from '../../../bench/kernels/matmul_naive.ts'
import { Rng } from '../../../src/util/rng.ts'
import { checked, gpuCache } from './setup.ts'

/** Shapes [m, k, n]: empty, 1×1×1, non-multiples of any tile, k = 0 (C = 0), rectangular, larger. */
export const MATMUL_SHAPES: ReadonlyArray<readonly [number, number, number]> = [
  [0, 5, 3],
  [4, 5, 0],
  [1, 1, 1],
  [3, 0, 2],
  [17, 9, 33],
  [31, 70, 15],
  [64, 64, 64],
  [100, 37, 129],
]

/** Random A (m×k) and B (k×n) in [-1, 1) from a seed. */
export function randomOperands(
  seed: number,
  s: MatmulShape,
): { a: Float32Array<ArrayBuffer>; b: Float32Array<ArrayBuffer> } {
  const rng = new Rng(seed)
  return { a: rng.floats(s.m * s.k), b: rng.floats(s.k * s.n) }
}

type MakeCall = (buffers: { a: GPUBuffer; b: GPUBuffer; c: GPUBuffer }, shape: MatmulShape) => KernelCall<MatmulShape>

/** Runs a matmul call on the GPU; C starts as NaN so unwritten elements show up. */
export async function gpuMatmul(
  make: MakeCall,
  a: Float32Array<ArrayBuffer>,
  b: Float32Array<ArrayBuffer>,
  s: MatmulShape,
): Promise<Float32Array> {
  const cache = await gpuCache()
  const { device } = cache
  const ga = uploadBuffer(device, a),
    gb = uploadBuffer(device, b)
  const gc = uploadBuffer(device, new Float32Array(s.m * s.n).fill(Number.NaN))
  try {
    await checked(device, () => runKernel(cache, make({ a: ga, b: gb, c: gc }, s)))
    return await readBuffer(device, gc, Float32Array, s.m * s.n)
  } finally {
    ga.destroy()
    gb.destroy()
    gc.destroy()
  }
}

/** Tolerance for a k-term f32 dot product of values in [-1, 1) (FMA contraction may differ). */
export function matmulAtol(k: number): number {
  return 1e-6 * Math.max(1, k)
}
