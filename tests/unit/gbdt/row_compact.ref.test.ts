import { describe, expect, test } from 'vitest'
import { ROW_UNUSED } from '../../../src/kernels/gbdt/layout.ts'
import { rowCompact, rowCompactArgs } from '../../../src/kernels/gbdt/row_compact.ref.ts'

describe('rowCompact', () => {
  test('rows of built nodes by slot, then row; skips unused rows, nodes past the table, slots ≥ S', () => {
    const positions = Uint32Array.from([0, 1, 2, ROW_UNUSED, 0, 5, 2, 3])
    const nodeSlot = Int32Array.from([1, -1, 0, 2])
    expect(Array.from(rowCompact(positions, nodeSlot, 2, 8))).toEqual([2, 6, 0, 4])
    expect(Array.from(rowCompact(positions, nodeSlot, 3, 8))).toEqual([2, 6, 0, 4, 7])
    expect(Array.from(rowCompact(positions, nodeSlot, 2, 3))).toEqual([2, 0])
    expect(rowCompact(positions, nodeSlot, 2, 0).length).toBe(0)
  })
})

describe('rowCompactArgs', () => {
  test('ceil(count · groups / wg) workgroups, zero grid when empty', () => {
    expect(rowCompactArgs(0, 1, 256)).toEqual([0, 0, 0])
    expect(rowCompactArgs(257, 1, 256)).toEqual([2, 1, 1])
    expect(rowCompactArgs(100, 3, 64)).toEqual([5, 1, 1])
  })

  test('folds into y past 65535 workgroups, covering every item', () => {
    const [x, y, z] = rowCompactArgs(200_000, 1, 1)
    expect(x).toBeLessThanOrEqual(65535)
    expect(x * y).toBeGreaterThanOrEqual(200_000)
    expect(z).toBe(1)
  })
})
