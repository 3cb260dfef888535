/**
 * matmul_tiled against the naive references: each of the recommender's three layouts against
 * its naive kernel's reference, the plain layout against the bench's matmul_naive reference, and
 * all four transpose combinations against matmul_tiled.ref.ts, on random and edge-sized input.
 */
import { describe, test } from 'vitest'
import { matmulNaive } from '../../../bench/kernels/matmul_naive.ref.ts'
import { matmulBackwardDinp } from '../../../src/kernels/recsys/matmul_backward_dinp.ref.ts'
import { matmulBackwardDweight } from '../../../src/kernels/recsys/matmul_backward_dweight.ref.ts'
import { matmulForward } from '../../../src/kernels/recsys/matmul_forward.ref.ts'
import {
  matmulBackwardDinpTiledCall,
  matmulBackwardDweightTiledCall,
  matmulForwardTiledCall,
  matmulTiledCall,
} from '../../../src/kernels/recsys/matmul_tiled.ts'
import { matmulTiled } from '../../../src/kernels/recsys/matmul_tiled.ref.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { MATMUL_SHAPES } from '../bench/matmul.shared.ts'
import { DOT_RTOL, dotAtol, expectMatch, MLP_SHAPES, randomArrays, runOnGpu, shapeSeed } from './mlp.shared.ts'

type Tile = { TILE?: number }

async function forward(b: number, c: number, oc: number, constants: Tile = {}): Promise<void> {
  const s = { b, c, oc }
  const { inp, weight } = randomArrays(shapeSeed(s), { inp: b * c, weight: oc * c })
  const want = new Float32Array(b * oc)
  matmulForward(inp, weight, want, b, c, oc)
  const got = await runOnGpu({ inp, weight, out: new Float32Array(b * oc).fill(Number.NaN) }, ['out'], bufs =>
    matmulForwardTiledCall(bufs, s, constants),
  )
  expectMatch(compareArrays(got.out, want, dotAtol(c), DOT_RTOL), `matmul_tiled forward B=${b} C=${c} OC=${oc}`)
}

async function dinp(b: number, c: number, oc: number, accumulate: boolean, constants: Tile = {}): Promise<void> {
  const s = { b, c, oc }
  const { dout, weight, start } = randomArrays(shapeSeed(s) + 1, { dout: b * oc, weight: oc * c, start: b * c })
  const want = start.slice()
  matmulBackwardDinp(dout, weight, want, b, c, oc, accumulate)
  const init = accumulate ? start : new Float32Array(b * c).fill(Number.NaN)
  const got = await runOnGpu({ dout, weight, dinp: init }, ['dinp'], bufs =>
    matmulBackwardDinpTiledCall(bufs, s, accumulate, constants),
  )
  expectMatch(
    compareArrays(got.dinp, want, dotAtol(oc), DOT_RTOL),
    `matmul_tiled dinp B=${b} C=${c} OC=${oc} accumulate=${accumulate}`,
  )
}

async function dweight(b: number, c: number, oc: number, accumulate: boolean, constants: Tile = {}): Promise<void> {
  const s = { b, c, oc }
  const { dout, inp, start } = randomArrays(shapeSeed(s) + 2, { dout: b * oc, inp: b * c, start: oc * c })
  // Overwrite mode starts from NaN (any unwritten or read element shows); accumulate from random values.
  const dw = accumulate ? start : new Float32Array(oc * c).fill(Number.NaN)
  const want = dw.slice()
  matmulBackwardDweight(dout, inp, want, b, c, oc, accumulate)
  const got = await runOnGpu({ dout, inp, dweight: dw }, ['dweight'], bufs =>
    matmulBackwardDweightTiledCall(bufs, s, accumulate, constants),
  )
  expectMatch(
    compareArrays(got.dweight, want, dotAtol(b), DOT_RTOL),
    `matmul_tiled dweight B=${b} C=${c} OC=${oc} acc=${accumulate}`,
  )
}

async function general(
  m: number,
  k: number,
  n: number,
  transA: boolean,
  transB: boolean,
  accumulate: boolean,
  constants: Tile = {},
): Promise<void> {
  const { a, b, start } = randomArrays(m * 7 + k * 3 + n + (transA ? 1 : 0) + (transB ? 2 : 0), {
    a: m * k,
    b: k * n,
    start: m * n,
  })
  const c = accumulate ? start : new Float32Array(m * n).fill(Number.NaN)
  const want = c.slice()
  matmulTiled(a, b, want, m, k, n, transA, transB, accumulate)
  const got = await runOnGpu({ a, b, c }, ['c'], bufs =>
    matmulTiledCall(bufs, { m, k, n }, { transA, transB, accumulate }, constants),
  )
  expectMatch(
    compareArrays(got.c, want, dotAtol(k), DOT_RTOL),
    `matmul_tiled ${m}x${k}x${n} transA=${transA} transB=${transB} acc=${accumulate}`,
  )
}

describe("matmul_tiled, forward layout, matches matmul_forward's reference", () => {
  test.each(MLP_SHAPES)('B=%i C=%i OC=%i', (b, c, oc) => forward(b, c, oc))
  test.each([4, 8, 16])('TILE = %i on 45×21×50 (no tile divides it)', TILE => forward(45, 21, 50, { TILE }))
})

describe("matmul_tiled, dinp layout, matches matmul_backward_dinp's reference", () => {
  test.each(MLP_SHAPES)('B=%i C=%i OC=%i, overwrite', (b, c, oc) => dinp(b, c, oc, false))
  test.each(MLP_SHAPES)('B=%i C=%i OC=%i, accumulate', (b, c, oc) => dinp(b, c, oc, true))
  test.each([4, 8, 16])('TILE = %i on 45×21×50 (no tile divides it)', TILE => dinp(45, 21, 50, false, { TILE }))
})

describe("matmul_tiled, dweight layout, matches matmul_backward_dweight's reference", () => {
  test.each(MLP_SHAPES)('B=%i C=%i OC=%i, overwrite', (b, c, oc) => dweight(b, c, oc, false))
  test.each(MLP_SHAPES)('B=%i C=%i OC=%i, accumulate', (b, c, oc) => dweight(b, c, oc, true))
  test.each([4, 8, 16])('TILE = %i on 45×21×50 (no tile divides it)', TILE => dweight(45, 21, 50, false, { TILE }))
})

describe("matmul_tiled, plain layout (the bench's product), matches matmul_naive's reference", () => {
  test.each(MATMUL_SHAPES)('m=%i k=%i n=%i', async (m, k, n) => {
    const { a, b } = randomArrays(m * 7 + k * 3 + n, { a: m * k, b: k * n })
    const want = new Float32Array(m * n)
    matmulNaive(a, b, want, m, k, n)
    const got = await runOnGpu({ a, b, c: new Float32Array(m * n).fill(Number.NaN) }, ['c'], bufs =>
      matmulTiledCall(bufs, { m, k, n }),
    )
    expectMatch(compareArrays(got.c, want, dotAtol(k), DOT_RTOL), `matmul_tiled plain ${m}x${k}x${n}`)
  })
})

describe('matmul_tiled matches its reference in every layout', () => {
  const layouts = [
    [false, false],
    [true, false],
    [false, true],
    [true, true],
  ] as const
  test.each(layouts)('transA=%s transB=%s on 1×1×1, 0-inner and 37×19×23', async (transA, transB) => {
    await general(1, 1, 1, transA, transB, false)
    await general(3, 0, 2, transA, transB, true)
    await general(37, 19, 23, transA, transB, false, { TILE: 8 })
    await general(37, 19, 23, transA, transB, true)
  })
})
