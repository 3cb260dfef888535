import { describe, expect, it } from 'vitest'
import { RECSYS_SIZES, samplesPerSecond, splitShares, stepTotal, transpose } from '../../../bench/recsys-rows.ts'
import { isSuiteName } from '../../../bench/suites.ts'

describe('recsys bench helpers', () => {
  it('transposes [rows × cols] into [cols × rows]', () => {
    const a = Float32Array.from([1, 2, 3, 4, 5, 6]) // 2 × 3
    expect(Array.from(transpose(a, 2, 3))).toEqual([1, 4, 2, 5, 3, 6])
    expect(Array.from(transpose(transpose(a, 2, 3), 3, 2))).toEqual(Array.from(a))
    expect(() => transpose(a, 4, 2)).toThrow(/6 values for 4 × 2/)
  })

  it('splits summed step time into shares that add to 1', () => {
    const steps = [
      { inputMs: 1, submitMs: 2, gpuMs: 6, metricsMs: 1 },
      { inputMs: 3, submitMs: 2, gpuMs: 14, metricsMs: 1 },
    ]
    expect(stepTotal(steps[0])).toBe(10)
    const s = splitShares(steps)
    expect(s.inputMs).toBeCloseTo(4 / 30)
    expect(s.gpuMs).toBeCloseTo(20 / 30)
    expect(s.inputMs + s.submitMs + s.gpuMs + s.metricsMs).toBeCloseTo(1)
    expect(() => splitShares([])).toThrow(/no steps/)
  })

  it('computes samples/s and rejects a zero step time', () => {
    expect(samplesPerSecond(1024, 512)).toBe(2000)
    expect(() => samplesPerSecond(1024, 0)).toThrow(/step time 0/)
  })

  it('registers the suite with the issue-5 workload', () => {
    expect(isSuiteName('recsys')).toBe(true)
    expect(RECSYS_SIZES).toMatchObject({ batch: 1024, layers: [64, 32], dim: 16 })
    expect(RECSYS_SIZES.steps).toBeGreaterThanOrEqual(20)
  })
})
