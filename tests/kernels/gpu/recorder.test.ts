/**
 * The command recorder both models use: per-dispatch bindings freed after the submit (`run`,
 * GBDT), bind groups and uniforms kept per call position across submits (`encode`, recsys),
 * uniforms rewritten when their values change, one read-back per batch, GPU errors surfaced.
 */
import { describe, expect, test } from 'vitest'
import { uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import { GpuRecorder } from '../../../src/gpu/recorder.ts'
import { matmulTiledCall } from '../../../src/kernels/recsys/matmul_tiled.ts'
import { matmulTiled } from '../../../src/kernels/recsys/matmul_tiled.ref.ts'
import { Rng } from '../../../src/util/rng.ts'
import { checked, gpuCache } from '../bench/setup.ts'

const m = 5,
  k = 7,
  n = 3

function operands(seed: number): { a: Float32Array<ArrayBuffer>; b: Float32Array<ArrayBuffer> } {
  const rng = new Rng(seed)
  return { a: rng.floats(m * k), b: rng.floats(k * n) }
}

function product(a: Float32Array, b: Float32Array, times: number): Float32Array {
  const c = new Float32Array(m * n)
  for (let i = 0; i < times; i++) matmulTiled(a, b, c, m, k, n, false, false, i > 0)
  return c
}

describe('GpuRecorder', () => {
  test('encode keeps one bind group and uniform per call position and rewrites changed uniforms', async () => {
    const cache = await gpuCache()
    const { device } = cache
    const { a, b } = operands(1)
    const ga = uploadBuffer(device, a),
      gb = uploadBuffer(device, b),
      gc = uploadBuffer(device, new Float32Array(m * n)),
      gd = uploadBuffer(device, new Float32Array(m * n))
    const rec = new GpuRecorder(cache, { label: 'test' })
    const step = (accumulate: boolean, c: GPUBuffer): void => {
      const enc = device.createCommandEncoder()
      const pass = enc.beginComputePass()
      rec.encode(pass, [matmulTiledCall({ a: ga, b: gb, c }, { m, k, n }, { accumulate })])
      pass.end()
      device.queue.submit([enc.finish()])
    }
    try {
      await checked(device, async () => {
        step(false, gc)
        step(true, gc)
        step(true, gc)
      })
      expect(rec.cachedCalls).toBe(1)
      const got = await readBuffer(device, gc, Float32Array, m * n)
      const want = product(a, b, 3)
      got.forEach((v, i) => expect(v).toBeCloseTo(want[i], 5))
      await checked(device, async () => step(false, gd))
      expect(rec.cachedCalls).toBe(2)
    } finally {
      rec.destroy()
      expect(rec.cachedCalls).toBe(0)
      ga.destroy()
      gb.destroy()
      gc.destroy()
      gd.destroy()
    }
  })

  test('run batches dispatches and uploads until one read submits them', async () => {
    const cache = await gpuCache()
    const { a, b } = operands(2)
    const rec = new GpuRecorder(cache)
    const c = uploadBuffer(cache.device, new Float32Array(m * n).fill(Number.NaN))
    try {
      rec.run(matmulTiledCall({ a: rec.upload(a), b: rec.upload(b), c }, { m, k, n }))
      rec.barrier()
      rec.encoder().clearBuffer(c, 0, 4)
      const [bytes] = await rec.read([[c, m * n * 4]])
      const got = new Float32Array(bytes)
      const want = product(a, b, 1)
      want[0] = 0
      got.forEach((v, i) => expect(v).toBeCloseTo(want[i], 5))
    } finally {
      c.destroy()
    }
  })

  test('a GPU error in a batch surfaces at the read', async () => {
    const cache = await gpuCache()
    const rec = new GpuRecorder(cache)
    const small = cache.device.createBuffer({ size: 4, usage: GPUBufferUsage.COPY_SRC })
    try {
      // Copying 8 bytes out of a 4-byte buffer is a validation error.
      rec.encoder().copyBufferToBuffer(small, 0, small, 0, 8)
      await expect(rec.read([])).rejects.toThrow(/GPU validation error/)
    } finally {
      small.destroy()
    }
  })
})
