import { describe, expect, test } from 'vitest'
import { matmulNaiveCall } from '../../../bench/kernels/matmul_naive.ts'
import { matmulNaive } from '../../../bench/kernels/matmul_naive.ref.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { gpuMatmul, MATMUL_SHAPES, matmulAtol, randomOperands } from './matmul.shared.ts'
import { expectMatch } from './setup.ts'

describe('matmul_naive matches its reference', () => {
  test.each(MATMUL_SHAPES)('m=%i k=%i n=%i', async (m, k, n) => {
    const s = { m, k, n }
    const { a, b } = randomOperands(m * 7 + k * 3 + n, s)
    const want = new Float32Array(m * n)
    matmulNaive(a, b, want, m, k, n)
    const got = await gpuMatmul((bufs, shape) => matmulNaiveCall(bufs, shape), a, b, s)
    expectMatch(compareArrays(got, want, matmulAtol(k), 1e-5), `matmul_naive ${m}x${k}x${n}`)
  })

  test.each([
    [8, 8],
    [16, 16],
    [32, 4],
  ])('workgroup %i×%i', async (WX, WY) => {
    const s = { m: 45, k: 21, n: 50 }
    const { a, b } = randomOperands(WX * WY, s)
    const want = new Float32Array(s.m * s.n)
    matmulNaive(a, b, want, s.m, s.k, s.n)
    const got = await gpuMatmul((bufs, shape) => matmulNaiveCall(bufs, shape, { WX, WY }), a, b, s)
    expectMatch(compareArrays(got, want, matmulAtol(s.k), 1e-5), `matmul_naive WX=${WX} WY=${WY}`)
  })

  test('the reference computes a known product', () => {
    const c = new Float32Array(4)
    matmulNaive(new Float32Array([1, 2, 3, 4, 5, 6]), new Float32Array([1, 0, 0, 1, 1, 1]), c, 2, 3, 2)
    expect([...c]).toEqual([4, 5, 10, 11])
  })
})
