import { describe, test } from 'vitest'
import { matmulTiledCall } from '../../../src/kernels/bench/matmul_tiled.ts'
import { matmulTiled } from '../../../src/kernels/bench/matmul_tiled.ref.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { gpuMatmul, MATMUL_SHAPES, matmulAtol, randomOperands } from './matmul.shared.ts'
import { expectMatch } from './setup.ts'

describe('matmul_tiled matches its reference', () => {
  test.each(MATMUL_SHAPES)('m=%i k=%i n=%i', async (m, k, n) => {
    const s = { m, k, n }
    const { a, b } = randomOperands(m * 7 + k * 3 + n, s)
    const want = new Float32Array(m * n)
    matmulTiled(a, b, want, m, k, n)
    const got = await gpuMatmul((bufs, shape) => matmulTiledCall(bufs, shape), a, b, s)
    expectMatch(compareArrays(got, want, matmulAtol(k), 1e-5), `matmul_tiled ${m}x${k}x${n}`)
  })

  test.each([4, 8, 16])('TILE = %i on a shape no tile divides', async TILE => {
    const s = { m: 45, k: 21, n: 50 }
    const { a, b } = randomOperands(TILE, s)
    const want = new Float32Array(s.m * s.n)
    matmulTiled(a, b, want, s.m, s.k, s.n)
    const got = await gpuMatmul((bufs, shape) => matmulTiledCall(bufs, shape, { TILE }), a, b, s)
    expectMatch(compareArrays(got, want, matmulAtol(s.k), 1e-5), `matmul_tiled TILE=${TILE}`)
  })
})
