import { describe, expect, test } from 'vitest'
import { nonfiniteCountCall } from '../../../src/kernels/recsys/nonfinite_count.ts'
import { nonfiniteCount } from '../../../src/kernels/recsys/nonfinite_count.ref.ts'
import { decodeNonFinite, type NonFiniteCount } from '../../../src/kernels/recsys/layout.ts'
import { Rng } from '../../../src/util/rng.ts'
import { EDGE_SIZES } from '../bench/setup.ts'
import { runOnGpu } from './mlp.shared.ts'

/** Bit patterns that are not finite: quiet/signalling NaNs with several payloads and signs, ±Infinity. */
const NONFINITE_BITS = [0x7fc00000, 0x7f800001, 0xffffffff, 0xffc00000, 0x7fbfffff, 0x7f800000, 0xff800000]
/** Finite patterns that look close: max float, −0, the smallest subnormal, 1. */
const FINITE_BITS = [0x7f7fffff, 0xff7fffff, 0x80000000, 0x00000001, 0x3f800000]

/** Random finite values with non-finite bit patterns at `bad` indices (cycling through NONFINITE_BITS). */
function caseData(seed: number, n: number, bad: number[]): Float32Array<ArrayBuffer> {
  const rng = new Rng(seed)
  const x = Float32Array.from({ length: n }, () => rng.uniform(-1, 1) * 10 ** rng.int(30))
  const bits = new Uint32Array(x.buffer)
  for (let i = 0; i < Math.min(n, 40); i++) bits[rng.int(n)] = FINITE_BITS[i % FINITE_BITS.length]
  bad.forEach((i, k) => {
    bits[i] = NONFINITE_BITS[k % NONFINITE_BITS.length]
  })
  return x
}

/** Scans each of `inputs` into its own slot of one out buffer; decoded GPU results. */
async function gpuCounts(inputs: Float32Array<ArrayBuffer>[], wg?: number): Promise<NonFiniteCount[]> {
  const arrays: Record<string, Float32Array<ArrayBuffer>> = { out: new Float32Array(2 * inputs.length) }
  // A zero-length buffer cannot be bound: pad with one element the call does not scan.
  inputs.forEach((x, k) => {
    arrays[`x${k}`] = x.length ? x : new Float32Array(1)
  })
  const got = await runOnGpu(arrays, ['out'], b =>
    inputs.map((x, k) => nonfiniteCountCall({ inp: b[`x${k}`], out: b.out }, { n: x.length, slot: k }, { WG: wg })),
  )
  const out = new Uint32Array(got.out.buffer, got.out.byteOffset, got.out.length)
  return inputs.map((x, k) => decodeNonFinite(out, k, x.length))
}

describe('nonfinite_count equals its reference', () => {
  test.each(EDGE_SIZES)('n = %i: random data, NaN/±Inf at random places', async n => {
    const rng = new Rng(n + 1)
    const bad = n === 0 ? [] : Array.from({ length: 1 + rng.int(5) }, () => rng.int(n))
    const x = caseData(n, n, bad),
      clean = caseData(n + 7, n, [])
    const [got, gotClean] = await gpuCounts([x, clean])
    expect(got).toEqual(nonfiniteCount(x))
    expect(got.count).toBe(new Set(bad).size)
    expect(gotClean).toEqual({ count: 0, first: -1 })
  })

  test.each([1, 2, 255, 256, 257, 1000])('n = %i: non-finite at the first and at the last element', async n => {
    const first = caseData(3, n, [0]),
      last = caseData(4, n, [n - 1])
    const [a, b] = await gpuCounts([first, last])
    expect(a).toEqual({ count: 1, first: 0 })
    expect(b).toEqual({ count: 1, first: n - 1 })
  })

  test('every non-finite bit pattern counts, no finite one does', async () => {
    const x = new Float32Array(NONFINITE_BITS.length + FINITE_BITS.length)
    new Uint32Array(x.buffer).set([...FINITE_BITS, ...NONFINITE_BITS])
    const [got] = await gpuCounts([x])
    expect(got).toEqual({ count: NONFINITE_BITS.length, first: FINITE_BITS.length })
  })

  test('strided invocations (WG = 2, 200 003 elements over 256 workgroups: ~390 elements each) count each element once', async () => {
    const n = 200_003
    const bad = [5, 131_070, 131_071, 199_999, n - 1]
    const x = caseData(11, n, bad)
    const [got] = await gpuCounts([x], 2)
    expect(got).toEqual({ count: bad.length, first: 5 })
    expect(got).toEqual(nonfiniteCount(x))
  })
})
