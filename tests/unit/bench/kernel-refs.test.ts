/** The bench kernels' references checked on hand-computed cases, in Node (no GPU needed). */
import { describe, expect, test } from 'vitest'
import { atomicAddStorage } from '../../../bench/kernels/atomic_add_storage.ref.ts'
import { atomicAddWorkgroup } from '../../../bench/kernels/atomic_add_workgroup.ref.ts'
import { copy } from '../../../bench/kernels/copy.ref.ts'
import { matmulNaive } from '../../../bench/kernels/matmul_naive.ref.ts'
import { streamRmw } from '../../../bench/kernels/stream_rmw.ref.ts'

describe('bench kernel references', () => {
  test('streamRmw rounds like f32 and stops at n', () => {
    const a = new Float32Array([1, 2, 3]),
      b = new Float32Array([0.1, 0.2, 0.3])
    streamRmw(a, b, 2, 1 / 3)
    expect(a[0]).toBe(Math.fround(Math.fround(1 * Math.fround(1 / 3)) + Math.fround(0.1)))
    expect(a[2]).toBe(3)
  })

  test('copy copies only n words', () => {
    const dst = new Uint32Array([9, 9, 9])
    copy(new Uint32Array([1, 2, 3]), dst, 2)
    expect([...dst]).toEqual([1, 2, 9])
  })

  test('atomic histograms count keys modulo k, accumulate, and agree', () => {
    const keys = new Uint32Array([0, 1, 1, 5, 4, 2])
    const s = new Uint32Array([10, 0, 0]),
      w = new Uint32Array([10, 0, 0])
    atomicAddStorage(keys, s, 6, 3)
    atomicAddWorkgroup(keys, w, 6, 3)
    expect([...s]).toEqual([11, 3, 2])
    expect([...w]).toEqual([...s])
  })

  test('counters wrap at 2^32 like u32 atomics', () => {
    const c = new Uint32Array([0xffffffff])
    atomicAddStorage(new Uint32Array([0]), c, 1, 1)
    expect(c[0]).toBe(0)
  })

  test('matmul: identity and a rectangular product', () => {
    const a = new Float32Array([1, 2, 3, 4, 5, 6]) // 2×3
    const id = new Float32Array([1, 0, 0, 0, 1, 0, 0, 0, 1])
    const c = new Float32Array(6)
    matmulNaive(a, id, c, 2, 3, 3)
    expect([...c]).toEqual([...a])
    const b = new Float32Array([1, 2, 3, 4, 5, 6]) // 3×2
    const c1 = new Float32Array(4)
    matmulNaive(a, b, c1, 2, 3, 2)
    expect([...c1]).toEqual([22, 28, 49, 64])
  })
})
