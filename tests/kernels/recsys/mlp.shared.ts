/** Shared driver of the MLP kernels' parity tests: upload named arrays, run calls, read outputs back. */
import { uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import type { KernelCall } from '../../../src/kernels/runner.ts'
import { prepareKernel } from '../../../src/kernels/runner.ts'
import type { MatmulShape } from '../../../src/kernels/recsys/matmul_forward.ts'
import { Rng } from '../../../src/util/rng.ts'
import { checked, gpuCache } from '../bench/setup.ts'

export { expectMatch } from '../bench/setup.ts'

/** Shapes [B, C, OC]: empty B / OC / C, ones, 17 and 64 (tile multiples and not), large-ish 257×129×65. */
export const MLP_SHAPES: ReadonlyArray<readonly [number, number, number]> = [
  [0, 5, 3],
  [4, 5, 0],
  [3, 0, 2],
  [1, 1, 1],
  [1, 17, 64],
  [17, 64, 1],
  [17, 17, 17],
  [64, 64, 64],
  [33, 1, 17],
  [257, 129, 65],
]

/** Cross layer shapes [B, C0]: empty B, ones, widths not a multiple of 4 or 16, one row, a long column, a wide block. */
export const CROSS_SHAPES = [
  [0, 5],
  [1, 1],
  [1, 37],
  [7, 13],
  [33, 147],
  [4096, 1],
  [300, 64],
] as const

/** Seeded f32 arrays in [-1, 1) for each named length. */
export function randomArrays<K extends string>(
  seed: number,
  lengths: Record<K, number>,
): Record<K, Float32Array<ArrayBuffer>> {
  const rng = new Rng(seed)
  const out = {} as Record<K, Float32Array<ArrayBuffer>>
  for (const k of Object.keys(lengths) as K[]) out[k] = rng.floats(lengths[k])
  return out
}

/** Seed derived from a matmul shape, so every case draws different numbers. */
export function shapeSeed(s: MatmulShape): number {
  return s.b * 7919 + s.c * 104_729 + s.oc * 13
}

/**
 * Uploads `arrays` as storage buffers by name, encodes `make(buffers)` (one call or several, in
 * order, in one compute pass) inside GPU error scopes, and reads back the buffers named in `read`
 * (their uploaded length). Outputs should start as NaN or a sentinel so unwritten elements show.
 */
export async function runOnGpu<K extends string>(
  arrays: Record<K, Float32Array<ArrayBuffer>>,
  read: readonly NoInfer<K>[],
  make: (buffers: Record<K, GPUBuffer>) => KernelCall<unknown> | KernelCall<unknown>[],
): Promise<Record<K, Float32Array>> {
  const cache = await gpuCache()
  const { device } = cache
  const bufs = {} as Record<K, GPUBuffer>
  for (const k of Object.keys(arrays) as K[]) bufs[k] = uploadBuffer(device, arrays[k])
  try {
    await checked(device, async () => {
      const calls = [make(bufs)].flat()
      const prepared = calls.map(c => prepareKernel(cache, c))
      const enc = device.createCommandEncoder()
      const pass = enc.beginComputePass()
      prepared.forEach(p => p.encode(pass))
      pass.end()
      device.queue.submit([enc.finish()])
      await device.queue.onSubmittedWorkDone()
      prepared.forEach(p => p.destroy())
    })
    const out = {} as Record<K, Float32Array>
    for (const k of read) out[k] = await readBuffer(device, bufs[k], Float32Array, arrays[k].length)
    return out
  } finally {
    Object.values<GPUBuffer>(bufs).forEach(b => b.destroy())
  }
}

/** Absolute tolerance of a k-term f32 dot product of values in [-1, 1) (order / FMA may differ). */
export function dotAtol(k: number): number {
  return 1e-6 * Math.max(1, k)
}

/** Relative tolerance used with dotAtol. */
export const DOT_RTOL = 1e-5

/** Logits mostly in [−20, 20], some huge (±1e4) and exact 0s; binary labels; weights in [0, 3). */
export function bceCase(
  seed: number,
  n: number,
): { logits: Float32Array<ArrayBuffer>; labels: Float32Array<ArrayBuffer>; weights: Float32Array<ArrayBuffer> } {
  const rng = new Rng(seed)
  const logits = Float32Array.from({ length: n }, () => [0, 1e4, -1e4][rng.int(40)] ?? rng.uniform(-20, 20))
  return { logits, labels: Float32Array.from({ length: n }, () => rng.int(2)), weights: rng.floats(n, 0, 3) }
}
