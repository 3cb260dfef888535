import { describe, expect, test } from 'vitest'
import { nonfiniteCount } from '../../../src/kernels/recsys/nonfinite_count.ref.ts'
import { decodeNonFinite } from '../../../src/kernels/recsys/layout.ts'

describe('nonfinite_count reference', () => {
  test('counts NaN, ±Infinity by bit pattern; finds the first; ignores the tail beyond n', () => {
    const x = Float32Array.from([1, NaN, -0, Infinity, 3.4e38, -Infinity, NaN])
    expect(nonfiniteCount(x)).toEqual({ count: 4, first: 1 })
    expect(nonfiniteCount(x, 1)).toEqual({ count: 0, first: -1 })
    expect(nonfiniteCount(new Float32Array(0))).toEqual({ count: 0, first: -1 })
    expect(nonfiniteCount(x.subarray(3))).toEqual({ count: 3, first: 0 })
  })

  test('decodes the kernel words [count, n − first]', () => {
    const out = Uint32Array.from([0, 0, 3, 7])
    expect(decodeNonFinite(out, 0, 10)).toEqual({ count: 0, first: -1 })
    expect(decodeNonFinite(out, 1, 10)).toEqual({ count: 3, first: 3 })
  })
})
