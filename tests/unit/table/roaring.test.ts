import { describe, expect, test } from 'vitest'
import { countDeletedIn, decodeDeletionBitmap, isDeleted, liveRowMask, RoaringFormatError } from '../../../src/table/roaring.ts'
import { deltaBitmap, type ContainerKind } from './roaring-fixtures.ts'

const kinds: ContainerKind[] = ['plain', 'run']

describe('roaring: Delta DV bitmap decoding', () => {
  for (const kind of kinds) {
    test(`${kind} containers, several 16-bit keys`, () => {
      const values = [0, 1, 2, 3, 70, 65535, 65536, 65537, 200_000, 200_001, 1_000_000]
      expect(decodeDeletionBitmap(deltaBitmap(values, kind))).toEqual(values)
    })
  }

  test('run containers with 4+ containers carry an offset header', () => {
    const values = [5, 65536 + 5, 2 * 65536 + 5, 3 * 65536 + 5, 4 * 65536 + 5]
    expect(decodeDeletionBitmap(deltaBitmap(values, 'run'))).toEqual(values)
  })

  test('a dense bitmap container (more than 4096 values)', () => {
    const values = Array.from({ length: 5000 }, (_, i) => i * 3)
    expect(decodeDeletionBitmap(deltaBitmap(values, 'plain'))).toEqual(values)
  })

  for (const kind of kinds) {
    test(`row indexes beyond 2^32 use several buckets (${kind}, under 4 containers each)`, () => {
      const values = [7, 2 ** 32 + 1, 2 ** 32 + 65536, 3 * 2 ** 32]
      expect(decodeDeletionBitmap(deltaBitmap(values, kind))).toEqual(values)
    })
  }

  test('an empty bitmap decodes to no rows', () => {
    expect(decodeDeletionBitmap(deltaBitmap([], 'plain'))).toEqual([])
  })

  test('bad magic, truncation and a wrong bitmap cardinality are errors', () => {
    const good = deltaBitmap([1, 2, 3], 'plain')
    const badMagic = good.slice(); badMagic[0] ^= 0xff
    expect(() => decodeDeletionBitmap(badMagic)).toThrow(/bad magic number/)
    expect(() => decodeDeletionBitmap(good.subarray(0, good.length - 1))).toThrow(RoaringFormatError)
    const dense = deltaBitmap(Array.from({ length: 5000 }, (_, i) => i), 'plain')
    const lying = dense.slice(); lying[dense.length - 1] = 0xff // adds bits the header did not count
    expect(() => decodeDeletionBitmap(lying)).toThrow(/header says 5000/)
  })

  test('isDeleted and liveRowMask agree with the list', () => {
    const deleted = [0, 4, 9]
    expect([0, 1, 4, 8, 9, 10].map((r) => isDeleted(deleted, r))).toEqual([true, false, true, false, true, false])
    expect(Array.from(liveRowMask(deleted, 6))).toEqual([0, 1, 1, 1, 0, 1])
    expect([countDeletedIn(deleted, 0, 10), countDeletedIn(deleted, 1, 4), countDeletedIn(deleted, 4, 9), countDeletedIn([], 0, 5)])
      .toEqual([3, 0, 1, 0])
  })
})
