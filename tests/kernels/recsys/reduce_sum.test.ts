import { describe, expect, test } from 'vitest'
import { reduceSumCalls, reduceSumScratch } from '../../../src/kernels/recsys/reduce_sum.ts'
import { reduceSum } from '../../../src/kernels/recsys/reduce_sum.ref.ts'
import { Rng } from '../../../src/util/rng.ts'
import { runOnGpu } from './mlp.shared.ts'

/** Sums `x` on the GPU with workgroup size `wg` through all passes; returns out[0]. */
async function gpuSum(x: Float32Array<ArrayBuffer>, wg: number): Promise<number> {
  const scratch = reduceSumScratch(x.length, wg)
  const arrays = {
    inp: x,
    out: new Float32Array([Number.NaN]),
    s0: new Float32Array(scratch[0] ?? 1),
    s1: new Float32Array(scratch[1] ?? 1),
  }
  const got = await runOnGpu(arrays, ['out'], b =>
    reduceSumCalls({ inp: b.inp, out: b.out, scratch: [b.s0, b.s1] }, x.length, { WG: wg }),
  )
  return got.out[0]
}

/** Values spanning several magnitudes (losses: mostly small, a few large), so order matters. */
function values(seed: number, n: number): Float32Array<ArrayBuffer> {
  const rng = new Rng(seed)
  return Float32Array.from({ length: n }, () => rng.uniform(0, 1) * 10 ** rng.int(6))
}

describe('reduce_sum equals its reference bit for bit', () => {
  test.each([0, 1, 63, 255, 256, 257, 1000, 4096, 65_537, 100_003])('n = %i, WG = 256', async n => {
    const x = values(n, n)
    expect(await gpuSum(x, 256)).toBe(reduceSum(x, n, 256))
  })

  test.each([2, 64, 128])('WG = %i on n = 5000 (13 passes at WG 2, 3 at WG 64)', async wg => {
    const x = values(wg, 5000)
    expect(await gpuSum(x, wg)).toBe(reduceSum(x, 5000, wg))
  })

  test('asks for scratch buffers when the sum needs more than one pass', () => {
    expect(reduceSumScratch(256, 256)).toEqual([])
    expect(reduceSumScratch(4096, 256)).toEqual([16])
    expect(reduceSumScratch(100_003, 256)).toEqual([391, 2])
    expect(() => reduceSumCalls({ inp: {} as GPUBuffer, out: {} as GPUBuffer }, 4096)).toThrow(/scratch/)
  })
})
