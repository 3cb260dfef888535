import { describe, expect, test } from 'vitest'
import { checkBudget, estimateMemory, peakSlots, planChunks } from '../../../src/models/gbdt/gpu-chunks.ts'

describe('GPU backend chunk plan', () => {
  test('everything in one tile when it fits', () => {
    expect(planChunks(1000, 28, 300, 1 << 27)).toEqual({
      rows: [[0, 1000]],
      features: [[0, 28]],
      validRows: [[0, 300]],
    })
  })

  test('1 KiB bindings: rows by the 8-byte pairs, features by the column bytes, validation by row width', () => {
    const a = planChunks(490, 5, 210, 1024)
    expect(a.rows).toEqual([
      [0, 128],
      [128, 256],
      [256, 384],
      [384, 490],
    ])
    expect(a.features).toEqual([[0, 5]])
    expect(a.validRows.length).toBe(5)
    expect(a.validRows[0]).toEqual([0, 51])
    const b = planChunks(280, 20, 120, 1024)
    expect(b.rows.length).toBe(3)
    expect(b.features).toEqual([
      [0, 8],
      [8, 16],
      [16, 20],
    ])
    expect(b.validRows.length).toBe(10)
    // Row chunks start on whole u32 words of packed bins.
    for (const [s] of [...a.rows, ...b.rows]) expect(s % 4).toBe(0)
  })

  test('a validation row wider than a binding is refused', () => {
    expect(() => planChunks(10, 100, 5, 64)).toThrow(/one validation row \(100 features/)
  })

  test('peak histogram slots by grow policy', () => {
    expect(peakSlots({ max_depth: 6, max_leaves: 0, grow_policy: 'depthwise' })).toBe(48)
    expect(peakSlots({ max_depth: 1, max_leaves: 0, grow_policy: 'depthwise' })).toBe(1)
    expect(peakSlots({ max_depth: 0, max_leaves: 8, grow_policy: 'lossguide' })).toBe(10)
  })

  test('memory budget: refused with the size and what to change', () => {
    const e = estimateMemory(1_000_000, 28, 28 * 256, 48, 0, false)
    expect(e.bins).toBe(28_000_000)
    expect(e.histograms).toBe(48 * 28 * 256 * 16)
    expect(() => checkBudget(e, e.total, 1_000_000, 28)).not.toThrow()
    expect(() => checkBudget(e, 50_000_000, 1_000_000, 28)).toThrow(
      /needs about 63\.4 MiB.*1000000 rows × 28 features.*fewer features/,
    )
  })
})
