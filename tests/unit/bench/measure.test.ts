import { describe, expect, test } from 'vitest'
import { betterRatio, higherIsBetter, measure, metricValues, summarize } from '../../../bench/measure.ts'

describe('summarize', () => {
  test('odd count: middle value; order of input does not matter', () => {
    expect(summarize([5, 1, 3])).toEqual({ min: 1, median: 3, max: 5 })
  })
  test('even count: mean of the middle two', () => {
    expect(summarize([4, 1, 10, 2])).toEqual({ min: 1, median: 3, max: 10 })
  })
  test('one value', () => {
    expect(summarize([7])).toEqual({ min: 7, median: 7, max: 7 })
  })
  test('empty throws', () => {
    expect(() => summarize([])).toThrow(RangeError)
  })
  test("does not sort the caller's array", () => {
    const v = [3, 1, 2]
    summarize(v)
    expect(v).toEqual([3, 1, 2])
  })
})

describe('ratio direction', () => {
  test('throughput units: higher is better, ratio = value / peer', () => {
    for (const u of ['GB/s', 'GFLOP/s', 'M ops/s', 'AUC']) expect(higherIsBetter(u)).toBe(true)
    expect(betterRatio(20, 10, 'GB/s')).toBe(2)
    expect(betterRatio(0.8, 0.5, 'AUC')).toBeCloseTo(1.6)
    expect(betterRatio(5, 10, 'GFLOP/s')).toBe(0.5)
  })
  test('time units: lower is better, ratio = peer / value', () => {
    for (const u of ['µs', 'ms', 's', 'ns']) expect(higherIsBetter(u)).toBe(false)
    expect(betterRatio(5, 10, 'µs')).toBe(2)
    expect(betterRatio(20, 10, 'µs')).toBe(0.5)
  })
  test('unknown unit is refused by name', () => {
    expect(() => higherIsBetter('furlongs')).toThrow(/furlongs/)
  })
})

describe('metricValues', () => {
  test('uses GPU time when every sample has it', () => {
    const r = metricValues(
      [
        { wallMs: 10, gpuMs: 2 },
        { wallMs: 10, gpuMs: 4 },
      ],
      s => 1 / s,
    )
    expect(r.timing).toBe('gpu')
    expect(r.values).toEqual([500, 250])
  })
  test('falls back to wall time when any sample lacks GPU time', () => {
    const r = metricValues([{ wallMs: 10, gpuMs: 2 }, { wallMs: 20 }], s => 1 / s)
    expect(r.timing).toBe('wall')
    expect(r.values).toEqual([100, 50])
  })
})

describe('measure', () => {
  test('runs warmup + repeats and keeps only the timed samples', async () => {
    let calls = 0
    const samples = await measure(async () => ({ wallMs: ++calls }), { warmup: 2, repeats: 3 })
    expect(calls).toBe(5)
    expect(samples.map(s => s.wallMs)).toEqual([3, 4, 5])
  })
})
