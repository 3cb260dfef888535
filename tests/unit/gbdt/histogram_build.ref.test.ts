import { describe, expect, test } from 'vitest'
import {
  add64,
  binByte,
  histogramBuild,
  pairToBigInt,
  pairToNumber,
} from '../../../src/kernels/gbdt/histogram_build.ref.ts'
import { ROW_UNUSED } from '../../../src/kernels/gbdt/layout.ts'
import { Rng } from '../../../src/util/rng.ts'

/** Random signed 31-bit values, some near ±2^30 so the low word wraps often. */
function values(rng: Rng, n: number): number[] {
  return Array.from(
    { length: n },
    () => (rng.int(2) ? 1 : -1) * (rng.int(4) === 0 ? 2 ** 30 - rng.int(16) : rng.int(2 ** 30)),
  )
}

describe('add64 / pairToBigInt', () => {
  test('matches BigInt sums through carries and sign changes', () => {
    const rng = new Rng(7)
    const hist = new Uint32Array(2)
    let want = 0n
    for (const v of values(rng, 20_000)) {
      add64(hist, 0, v)
      want += BigInt(v)
      expect(pairToBigInt(hist, 0)).toBe(want)
    }
  })

  test('wraps at 2^64 and crosses zero exactly', () => {
    const hist = new Uint32Array([0xffffffff, 0xffffffff]) // −1
    add64(hist, 0, 1)
    expect([...hist]).toEqual([0, 0])
    add64(hist, 0, -1)
    expect([...hist]).toEqual([0xffffffff, 0xffffffff])
    expect(pairToNumber(hist, 0)).toBe(-1)
  })

  test('pairToNumber equals the BigInt value', () => {
    const hist = new Uint32Array([123, 0xfff00001])
    expect(BigInt(pairToNumber(hist, 0))).toBe(pairToBigInt(hist, 0))
  })
})

describe('histogramBuild', () => {
  test('equals a naive BigInt sum per (slot, bin)', () => {
    const rng = new Rng(3)
    const n = 301,
      nf = 3,
      rowWords = Math.ceil(n / 4)
    const missOff = Uint32Array.from([1, 0, 1])
    const cutPtrs = Uint32Array.from([0, 5, 261, 264])
    const widths = [5, 256, 3]
    const bytes = Array.from({ length: nf }, (_, f) => Array.from({ length: n }, () => rng.int(widths[f] + missOff[f])))
    const bins = new Uint32Array(nf * rowWords)
    bytes.forEach((col, f) =>
      col.forEach((s, i) => {
        bins[f * rowWords + (i >> 2)] |= s << ((i & 3) * 8)
      }),
    )
    const q = Int32Array.from(values(rng, 2 * n))
    const positions = Uint32Array.from({ length: n }, () => (rng.int(10) === 0 ? ROW_UNUSED : rng.int(4)))
    const nodeSlot = Int32Array.from([1, -1, 0, 2])
    const b = cutPtrs[nf]
    const hist = new Uint32Array(3 * b * 4)
    histogramBuild(bins, missOff, cutPtrs, q, positions, nodeSlot, hist, n, nf, rowWords, b)
    const want = new Array<bigint>(3 * b * 2).fill(0n)
    for (let i = 0; i < n; i++) {
      const slot = positions[i] === ROW_UNUSED ? -1 : nodeSlot[positions[i]]
      for (let f = 0; f < nf && slot >= 0; f++) {
        expect(binByte(bins, rowWords, i, f)).toBe(bytes[f][i])
        if (bytes[f][i] < missOff[f]) continue
        const at = slot * b + cutPtrs[f] + bytes[f][i] - missOff[f]
        want[2 * at] += BigInt(q[2 * i])
        want[2 * at + 1] += BigInt(q[2 * i + 1])
      }
    }
    const got = Array.from({ length: want.length }, (_, k) => pairToBigInt(hist, 2 * k))
    expect(got).toEqual(want)
  })
})
