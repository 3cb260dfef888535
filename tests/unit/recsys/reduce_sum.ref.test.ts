import { describe, expect, test } from 'vitest'
import { reduceSum, reduceSumPass } from '../../../src/kernels/recsys/reduce_sum.ref.ts'
import { reduceSumLevels } from '../../../src/kernels/recsys/layout.ts'
import { Rng } from '../../../src/util/rng.ts'

describe('reduceSum reference', () => {
  test('levels shrink by WG per pass down to one partial', () => {
    expect(reduceSumLevels(0, 256)).toEqual([1])
    expect(reduceSumLevels(1, 256)).toEqual([1])
    expect(reduceSumLevels(256, 256)).toEqual([1])
    expect(reduceSumLevels(257, 256)).toEqual([2, 1])
    expect(reduceSumLevels(4096, 256)).toEqual([16, 1])
    expect(reduceSumLevels(65_537, 256)).toEqual([257, 2, 1])
    expect(() => reduceSumLevels(10, 96)).toThrow(/power of two/)
  })

  test('adds in tree order, not left to right', () => {
    // WG = 2: (1e8 + 1) + (−1e8 + 1) rounds each pair in f32 → 0; a left-to-right sum gives 1.
    expect(reduceSum(new Float32Array([1e8, 1, -1e8, 1]), 4, 2)).toBe(0)
    // WG = 4, one block: strides 2 then 1: (1e8 + −1e8) + (1 + 1) = 2.
    expect(reduceSum(new Float32Array([1e8, 1, -1e8, 1]), 4, 4)).toBe(2)
  })

  test('sums integers exactly at every size and workgroup width', () => {
    for (const wg of [2, 64, 256]) {
      for (const n of [0, 1, 63, 255, 257, 1000, 65_537]) {
        const x = Float32Array.from({ length: n }, (_, i) => (i % 7) - 3)
        const want = x.reduce((s, v) => s + v, 0)
        expect(reduceSum(x, n, wg), `n=${n} wg=${wg}`).toBe(want)
      }
    }
  })

  test('is close to the f64 sum on random floats, and a pass writes one partial per block', () => {
    const rng = new Rng(2),
      n = 10_000,
      x = rng.floats(n)
    const want = x.reduce((s, v) => s + v, 0)
    expect(Math.abs(reduceSum(x, n, 256) - want)).toBeLessThan(1e-3)
    const partials = new Float32Array(40)
    reduceSumPass(x, partials, n, 256)
    expect(partials[39]).toBe(reduceSum(x.subarray(39 * 256), n - 39 * 256, 256))
  })
})
