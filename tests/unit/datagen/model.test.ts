import { describe, expect, test } from 'vitest'
import { auc } from '../../../src/eval/metrics.ts'
import { interceptFor, sigmoid } from '../../../tools/datagen/logistic.ts'
import { drawClicks, deleteTarget, filesFor, rowGroupRowsFor } from '../../../tools/datagen/clicks.ts'
import { groupSizes, stableUuid } from '../../../tools/datagen/delta-writer.ts'
import { drawMarketing } from '../../../tools/datagen/marketing.ts'
import { fileStats } from '../../../tools/datagen/stats.ts'
import { ZipfSampler } from '../../../tools/datagen/zipf.ts'
import { Rng } from '../../../src/util/rng.ts'

const mean = (a: ArrayLike<number>) => Array.from(a).reduce((s, v) => s + v, 0) / a.length

describe('hidden models', () => {
  test('clicks labels: base rate within 5–15% and the Bayes AUC is well above chance', () => {
    const { frame, prob } = drawClicks(20_000, 5)
    const label = frame.columns.label as Int32Array
    expect(mean(label)).toBeGreaterThan(0.05)
    expect(mean(label)).toBeLessThan(0.15)
    expect(mean(prob)).toBeCloseTo(0.08, 3)
    const bayes = auc(prob, label)
    expect(bayes).toBeGreaterThan(0.7)
    expect(bayes).toBeLessThan(0.95)
  })

  test('clicks ids follow Zipf popularity: many distinct, heavy head', () => {
    const { frame } = drawClicks(20_000, 6)
    const users = Array.from(frame.columns.user_id as BigInt64Array, Number)
    const counts = new Map<number, number>()
    for (const u of users) counts.set(u, (counts.get(u) ?? 0) + 1)
    expect(counts.size).toBeGreaterThan(5_000)
    expect(Math.max(...counts.values())).toBeGreaterThan(50)
    expect(Math.max(...users)).toBeLessThan(100_000)
  })

  test('marketing: ~11% positives, missing values, categorical strings', () => {
    const { frame, prob } = drawMarketing(20_000, 9)
    const y = frame.columns.y as Int32Array
    expect(mean(y)).toBeGreaterThan(0.08)
    expect(mean(y)).toBeLessThan(0.14)
    expect(auc(prob, y)).toBeGreaterThan(0.75)
    const contact = frame.columns.contact as (string | null)[]
    expect(contact.filter(v => v === null).length / contact.length).toBeGreaterThan(0.2)
    expect(new Set(frame.columns.month as string[]).size).toBe(12)
    expect((frame.columns.pdays as (number | null)[]).some(v => v === null)).toBe(true)
  })
})

describe('helpers', () => {
  test("auc (the generator's Bayes AUC): perfect, reversed, ties", () => {
    expect(auc([0.1, 0.2, 0.8, 0.9], [0, 0, 1, 1])).toBe(1)
    expect(auc([0.9, 0.8, 0.2, 0.1], [0, 0, 1, 1])).toBe(0)
    expect(auc([0.5, 0.5, 0.5, 0.5], [0, 1, 0, 1])).toBe(0.5)
    expect(auc([1, 2], [1, 1])).toBeNaN()
  })

  test('interceptFor hits the requested mean probability', () => {
    const logits = new Rng(1).floats(5000, -3, 3)
    const b = interceptFor(logits, 0.1)
    expect(mean(Array.from(logits, l => sigmoid(l + b)))).toBeCloseTo(0.1, 6)
  })

  test('ZipfSampler: rank 0 is the most frequent; ids stay in range', () => {
    const rng = new Rng(2)
    const z = new ZipfSampler(1000, 1.1, rng)
    const counts = new Int32Array(1000)
    for (let i = 0; i < 50_000; i++) counts[z.sample(rng)]++
    expect(counts[z.ids[0]]).toBe(Math.max(...counts))
    expect(counts[z.ids[0]]).toBeGreaterThan(counts[z.ids[10]] * 5)
    expect(() => new ZipfSampler(0, 1, rng)).toThrow(RangeError)
  })

  test('fileStats: bounds skip nulls and NaN markers, arrays get only a null count, -0 becomes 0', () => {
    const stats = fileStats(
      [
        { name: 'a', type: 'double', nullable: true },
        { name: 'e', type: { type: 'array', elementType: 'float', containsNull: false }, nullable: false },
        { name: 's', type: 'string', nullable: false },
        { name: 'l', type: 'long', nullable: false },
        { name: 'f', type: 'float', nullable: true },
      ],
      {
        numRows: 3,
        columns: {
          f: Float32Array.of(NaN, 1.5, NaN),
          a: [null, -0, 2.5],
          e: { width: 1, data: Float32Array.of(1, 2, 3) },
          s: ['b', 'a', 'c'],
          l: BigInt64Array.of(5n, -7n, 3n),
        },
      },
    )
    expect(stats).toEqual({
      numRecords: 3,
      minValues: { a: 0, s: 'a', l: -7, f: 1.5 },
      maxValues: { a: 2.5, s: 'c', l: 5, f: 1.5 },
      nullCount: { a: 1, e: 0, s: 0, l: 0, f: 2 },
    })
  })

  test('layout: 4–8 files, four row groups per file', () => {
    expect(filesFor(3000)).toBe(4)
    expect(filesFor(200_000)).toBe(4)
    expect(filesFor(1_000_000)).toBe(8)
    expect(groupSizes(10, rowGroupRowsFor(10))).toEqual([3, 3, 3, 1])
    expect(groupSizes(50_000, rowGroupRowsFor(50_000))).toEqual([12_500, 12_500, 12_500, 12_500])
  })

  test('deleteTarget picks a value wholly inside one file, nearest 3% of rows; else the rarest', () => {
    const country = ['A', 'A', 'B', 'B', 'B', 'C', 'D', 'D']
    const sorted = Int32Array.from(country.keys())
    expect(
      deleteTarget(country, sorted, [
        [0, 2],
        [2, 8],
      ]),
    ).toBe('C')
    expect(
      deleteTarget(country, sorted, [
        [0, 1],
        [1, 5],
        [5, 8],
      ]),
    ).toBe('C')
    expect(
      deleteTarget(country, sorted, [
        [0, 3],
        [3, 7],
        [7, 8],
      ]),
    ).toBe('C')
    expect(
      deleteTarget(country, sorted, [
        [0, 3],
        [3, 4],
        [4, 8],
      ]),
    ).toBe('C')
    expect(
      deleteTarget(country, sorted, [
        [0, 1],
        [1, 3],
        [3, 6],
        [6, 7],
        [7, 8],
      ]),
    ).toBe('C')
    const big = [...Array(50).fill('A'), 'B', 'B', 'B', 'C', ...Array(46).fill('D')] as string[]
    expect(
      deleteTarget(big, Int32Array.from(big.keys()), [
        [0, 50],
        [50, 100],
      ]),
    ).toBe('B')
    expect(
      deleteTarget(['A', 'A', 'B', 'B', 'B'], Int32Array.of(0, 1, 2, 3, 4), [
        [0, 1],
        [1, 3],
        [3, 5],
      ]),
    ).toBe('A')
  })

  test('stableUuid is UUID-shaped and depends on seed and key', () => {
    expect(stableUuid(1, 'x')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(stableUuid(1, 'x')).toBe(stableUuid(1, 'x'))
    expect(stableUuid(1, 'x')).not.toBe(stableUuid(2, 'x'))
    expect(stableUuid(1, 'x')).not.toBe(stableUuid(1, 'y'))
  })
})
