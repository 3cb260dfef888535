import { describe, expect, test } from 'vitest'
import { cutRange, filterLive, liveAfterDeletes, liveRowAt, makeUnit } from '../../../src/data/units.ts'

describe('units', () => {
  test('cutRange covers the range with contiguous pieces of at most maxRows, evenly', () => {
    for (const [start, end, max] of [
      [0, 10, 3],
      [5, 70_005, 65_536],
      [0, 1, 1],
      [7, 7, 4],
      [0, 100, 100],
    ]) {
      const ranges = cutRange(start, end, max)
      let at = start
      for (const r of ranges) {
        expect(r.start).toBe(at)
        expect(r.end - r.start).toBeLessThanOrEqual(max)
        expect(r.end).toBeGreaterThan(r.start)
        at = r.end
      }
      expect(at).toBe(end)
      if (ranges.length > 1) {
        const sizes = ranges.map(r => r.end - r.start)
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1)
      }
    }
    expect(cutRange(5, 70_005, 65_536).map(r => r.end - r.start)).toEqual([35_000, 35_000])
    expect(() => cutRange(0, 10, 0)).toThrow(/maxUnitRows must be a positive integer, got 0/)
  })

  test('liveAfterDeletes: undefined when no deleted row is in range, else live rows', () => {
    expect(liveAfterDeletes([], 0, 5)).toBeUndefined()
    expect(liveAfterDeletes([1, 9], 2, 9)).toBeUndefined()
    expect([...liveAfterDeletes([1, 3, 9], 0, 5)!]).toEqual([0, 2, 4])
    expect([...liveAfterDeletes([5, 6], 5, 7)!]).toEqual([])
  })

  test('filterLive keeps rows passing the predicate, with or without a mask', () => {
    expect([...filterLive(undefined, 10, 15, i => i % 2 === 0)!]).toEqual([10, 12, 14])
    expect([...filterLive(Uint32Array.from([10, 12, 13]), 10, 15, i => i !== 2)!]).toEqual([10, 13])
    expect(filterLive(undefined, 10, 15, () => true)).toBeUndefined()
  })

  test('makeUnit: liveRows == live?.length ?? rowEnd - rowStart; liveRowAt maps positions to rows', () => {
    const full = makeUnit(3, 1, 2, { start: 100, end: 110 })
    expect(full).toEqual({ id: 3, fileIndex: 1, rowGroup: 2, rowStart: 100, rowEnd: 110, liveRows: 10 })
    expect(liveRowAt(full, 4)).toBe(104)
    const masked = makeUnit(0, 0, 0, { start: 100, end: 110 }, Uint32Array.from([101, 107]))
    expect(masked.liveRows).toBe(2)
    expect(liveRowAt(masked, 1)).toBe(107)
  })
})
