import { describe, expect, test } from 'vitest'
import { countDeletedIn, decodeDeletionBitmap, isDeleted, RoaringFormatError } from '../../../src/table/roaring.ts'
import { craftedBitmap, deltaBitmap, type ContainerKind } from './roaring-fixtures.ts'

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
    const badMagic = good.slice()
    badMagic[0] ^= 0xff
    expect(() => decodeDeletionBitmap(badMagic)).toThrow(/bad magic number/)
    expect(() => decodeDeletionBitmap(good.subarray(0, good.length - 1))).toThrow(RoaringFormatError)
    const dense = deltaBitmap(
      Array.from({ length: 5000 }, (_, i) => i),
      'plain',
    )
    const lying = dense.slice()
    lying[dense.length - 1] = 0xff // adds bits the header did not count
    expect(() => decodeDeletionBitmap(lying)).toThrow(/header says 5000/)
  })

  test('isDeleted and countDeletedIn agree with the list', () => {
    const deleted = [0, 4, 9]
    expect([0, 1, 4, 8, 9, 10].map(r => isDeleted(deleted, r))).toEqual([true, false, true, false, true, false])
    expect([
      countDeletedIn(deleted, 0, 10),
      countDeletedIn(deleted, 1, 4),
      countDeletedIn(deleted, 4, 9),
      countDeletedIn([], 0, 5),
    ]).toEqual([3, 0, 1, 0])
  })
})

describe('roaring: bitmaps that break the format are refused', () => {
  const refuse = (bytes: Uint8Array) => expect(() => decodeDeletionBitmap(bytes)).toThrow(RoaringFormatError)

  test('a crafted bitmap that keeps the rules decodes (the crafting is sound)', () => {
    const bytes = craftedBitmap([
      { key: 0, kind: 'array', values: [1, 5] },
      {
        key: 2,
        kind: 'run',
        runs: [
          [0, 1],
          [10, 0],
        ],
      },
    ])
    expect(decodeDeletionBitmap(bytes)).toEqual([1, 5, 131072, 131073, 131082])
  })

  test('array container values out of order', () => {
    const bytes = craftedBitmap([{ key: 0, kind: 'array', values: [1, 4, 8, 9, 7] }])
    expect(() => decodeDeletionBitmap(bytes)).toThrow(
      'array container 0 of bucket 0: values not strictly ascending at index 4 (7 after 9)',
    )
  })

  test('array container with a duplicate value', () => {
    const bytes = craftedBitmap([
      { key: 0, kind: 'array', values: [2] },
      { key: 1, kind: 'array', values: [3, 3] },
    ])
    expect(() => decodeDeletionBitmap(bytes)).toThrow(
      'array container 1 of bucket 0: values not strictly ascending at index 1 (3 after 3)',
    )
  })

  test('run container with overlapping runs', () => {
    const bytes = craftedBitmap([
      {
        key: 0,
        kind: 'run',
        runs: [
          [0, 4],
          [3, 1],
        ],
      },
    ])
    expect(() => decodeDeletionBitmap(bytes)).toThrow(
      "run container 0 of bucket 0: run 1 starts at 3, not after the previous run's end 4",
    )
  })

  test('run container with unsorted runs', () => {
    refuse(
      craftedBitmap([
        {
          key: 0,
          kind: 'run',
          runs: [
            [10, 0],
            [2, 0],
          ],
        },
      ]),
    )
  })

  test('run container header cardinality that disagrees with its runs', () => {
    const bytes = craftedBitmap([{ key: 0, kind: 'run', runs: [[0, 2]], cardinality: 5 }])
    expect(() => decodeDeletionBitmap(bytes)).toThrow('run container 0 of bucket 0: holds 3 values, its header says 5')
    refuse(craftedBitmap([{ key: 0, kind: 'run', runs: [], cardinality: 1 }]))
  })

  test('array container header cardinality that disagrees with its values', () => {
    // Header says 2 of 3 written values: the third is left over after the last container.
    const under = craftedBitmap([{ key: 0, kind: 'array', values: [1, 2, 3], cardinality: 2 }])
    expect(() => decodeDeletionBitmap(under)).toThrow(/2 bytes left after the last container/)
    // Header says 4 of 3: the bitmap ends before the fourth.
    refuse(craftedBitmap([{ key: 0, kind: 'array', values: [1, 2, 3], cardinality: 4 }]))
  })

  test('a run that leaves its container, trailing bytes, and unsorted container keys', () => {
    refuse(craftedBitmap([{ key: 0, kind: 'run', runs: [[65535, 1]] }]))
    const trailing = craftedBitmap([{ key: 0, kind: 'array', values: [1] }], 3)
    expect(() => decodeDeletionBitmap(trailing)).toThrow(/3 bytes left/)
    const keys = craftedBitmap([
      { key: 3, kind: 'array', values: [1] },
      { key: 1, kind: 'array', values: [1] },
    ])
    expect(() => decodeDeletionBitmap(keys)).toThrow('bucket 0: container 1 key 1 not above the previous key 3')
  })
})
