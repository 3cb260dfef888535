import { describe, expect, test } from 'vitest'
import { embeddingSegments } from '../../../src/models/recsys/segments.ts'
import { Rng } from '../../../src/util/rng.ts'

/** Checks the contract: every position once, grouped by row in ascending row order, ascending within. */
function expectSegments(rows: Uint32Array): void {
  const { uniq, segStart, order } = embeddingSegments(rows)
  expect(segStart.length).toBe(uniq.length + 1)
  expect(segStart[0]).toBe(0)
  expect(segStart[uniq.length]).toBe(rows.length)
  expect(Array.from(order).sort((a, b) => a - b)).toEqual(Array.from({ length: rows.length }, (_, p) => p))
  for (let u = 0; u < uniq.length; u++) {
    if (u > 0) expect(uniq[u]).toBeGreaterThan(uniq[u - 1])
    expect(segStart[u + 1]).toBeGreaterThan(segStart[u])
    for (let k = segStart[u]; k < segStart[u + 1]; k++) {
      expect(rows[order[k]]).toBe(uniq[u])
      if (k > segStart[u]) expect(order[k]).toBeGreaterThan(order[k - 1])
    }
  }
  expect(uniq.length).toBe(new Set(rows).size)
}

describe('embeddingSegments', () => {
  test('a small batch, by hand', () => {
    const s = embeddingSegments(Uint32Array.from([5, 1, 5, 9, 1, 5]))
    expect(Array.from(s.uniq)).toEqual([1, 5, 9])
    expect(Array.from(s.segStart)).toEqual([0, 2, 5, 6])
    expect(Array.from(s.order)).toEqual([1, 4, 0, 2, 5, 3])
  })

  test('empty batch: U = 0, segStart = [0]', () => {
    const s = embeddingSegments(new Uint32Array(0))
    expect(s.uniq.length).toBe(0)
    expect(Array.from(s.segStart)).toEqual([0])
    expect(s.order.length).toBe(0)
  })

  test.each([
    [1, 10],
    [257, 3],
    [4096, 1000],
    [3000, 0xffffffff],
  ])('random batch of %i positions over %i rows', (n, rows) => {
    const rng = new Rng(n)
    expectSegments(Uint32Array.from({ length: n }, () => (rng.int(4) === 0 ? rows - 1 : rng.int(rows))))
  })

  test('one row repeated across the whole batch is one segment in position order', () => {
    const s = embeddingSegments(new Uint32Array(1000).fill(42))
    expect(Array.from(s.uniq)).toEqual([42])
    expect(Array.from(s.segStart)).toEqual([0, 1000])
    expect(Array.from(s.order)).toEqual(Array.from({ length: 1000 }, (_, p) => p))
  })

  test('rows ≥ totalRows throw naming the position', () => {
    expect(() => embeddingSegments(Uint32Array.from([0, 3, 4]), 4)).toThrow(/rows\[2\] = 4 is not below totalRows 4/)
    expect(embeddingSegments(Uint32Array.from([0, 3]), 4).uniq.length).toBe(2)
  })
})
