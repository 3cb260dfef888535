import { describe, expect, test } from 'vitest'
import { add64, pairToBigInt } from '../../../src/kernels/gbdt/histogram_build.ref.ts'
import { histogramSubtract, sub64 } from '../../../src/kernels/gbdt/histogram_subtract.ref.ts'
import { Rng } from '../../../src/util/rng.ts'

describe('histogramSubtract', () => {
  test('sub64 matches BigInt with borrows', () => {
    const rng = new Rng(11)
    for (let k = 0; k < 2000; k++) {
      const hist = Uint32Array.from([rng.nextU32(), rng.nextU32(), rng.nextU32(), rng.nextU32(), 0, 0])
      sub64(hist, 4, 0, 2)
      expect(pairToBigInt(hist, 4)).toBe(BigInt.asIntN(64, pairToBigInt(hist, 0) - pairToBigInt(hist, 2)))
    }
  })

  test('sibling = parent − built for every bin of every triple; other slots untouched', () => {
    const rng = new Rng(5)
    const b = 7,
      slots = 6
    const hist = new Uint32Array(slots * b * 4)
    for (let k = 0; k < slots * b * 2; k++) for (let r = 0; r < 5; r++) add64(hist, 2 * k, rng.int(2 ** 31) - 2 ** 30)
    const before = hist.slice()
    histogramSubtract(Uint32Array.from([0, 1, 2, 3, 4, 5]), hist, 2, b)
    for (const [p, c, s] of [
      [0, 1, 2],
      [3, 4, 5],
    ]) {
      for (let w = 0; w < b * 2; w++) {
        const want = BigInt.asIntN(
          64,
          pairToBigInt(before, (p * b * 2 + w) * 2) - pairToBigInt(before, (c * b * 2 + w) * 2),
        )
        expect(pairToBigInt(hist, (s * b * 2 + w) * 2)).toBe(want)
      }
    }
    expect(hist.slice(0, 2 * b * 4)).toEqual(before.slice(0, 2 * b * 4))
  })
})
