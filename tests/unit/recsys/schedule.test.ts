import { describe, expect, test } from 'vitest'
import type { LrScheduleConfig } from '../../../src/models/recsys/optimizer.ts'
import { lrAt, validateSchedule } from '../../../src/models/recsys/optimizer.ts'

describe('lrAt', () => {
  test('constant without warmup is lr at every step', () => {
    for (const step of [0, 1, 1000]) expect(lrAt(step, { lr: 0.01 })).toBe(0.01)
  })

  test('warmup ramps linearly from lr/W at step 0 to lr at step W − 1', () => {
    const cfg: LrScheduleConfig = { lr: 0.4, warmupSteps: 4 }
    expect([0, 1, 2, 3, 4, 10].map(s => lrAt(s, cfg))).toEqual([0.1, 0.2, 0.30000000000000004, 0.4, 0.4, 0.4])
  })

  test('cosine starts at lr after warmup, is halfway at mid-span and reaches the floor at the last step', () => {
    const cfg: LrScheduleConfig = { lr: 1, schedule: 'cosine', warmupSteps: 2, totalSteps: 13, minLr: 0.1 }
    expect(lrAt(1, cfg)).toBe(1)
    expect(lrAt(2, cfg)).toBe(1)
    expect(lrAt(7, cfg)).toBeCloseTo(0.55, 12)
    expect(lrAt(12, cfg)).toBeCloseTo(0.1, 12)
    expect(lrAt(100, cfg)).toBeCloseTo(0.1, 12)
    for (let s = 3; s <= 12; s++) expect(lrAt(s, cfg)).toBeLessThan(lrAt(s - 1, cfg))
  })

  test('step decay halves at each boundary (counted after warmup) and honours gamma', () => {
    const cfg: LrScheduleConfig = { lr: 0.8, schedule: 'step', warmupSteps: 2, decaySteps: 3 }
    expect([2, 4, 5, 7, 8, 11].map(s => lrAt(s, cfg))).toEqual([0.8, 0.8, 0.4, 0.4, 0.2, 0.1])
    expect(lrAt(3, { lr: 1, schedule: 'step', decaySteps: 1, gamma: 0.1 })).toBeCloseTo(1e-3, 15)
  })

  test.each<[LrScheduleConfig, RegExp]>([
    [{ lr: 0 }, /lr must be a finite number > 0, got 0/],
    [{ lr: NaN }, /lr must be/],
    [{ lr: 1, schedule: 'linear' as never }, /schedule must be/],
    [{ lr: 1, warmupSteps: 1.5 }, /warmupSteps must be an integer ≥ 0, got 1.5/],
    [{ lr: 1, schedule: 'cosine' }, /totalSteps must be an integer > warmupSteps \(0\), got undefined/],
    [{ lr: 1, schedule: 'cosine', warmupSteps: 5, totalSteps: 5 }, /totalSteps must be an integer > warmupSteps \(5\)/],
    [{ lr: 1, schedule: 'cosine', totalSteps: 5, minLr: 2 }, /minLr must be in \[0, lr = 1\], got 2/],
    [{ lr: 1, schedule: 'step' }, /decaySteps must be an integer ≥ 1/],
    [{ lr: 1, schedule: 'step', decaySteps: 2, gamma: 0 }, /gamma must be in \(0, 1\], got 0/],
  ])('rejects %o', (cfg, message) => {
    expect(() => validateSchedule(cfg)).toThrow(RangeError)
    expect(() => lrAt(0, cfg)).toThrow(message)
  })

  test('rejects a negative or fractional step', () => {
    expect(() => lrAt(-1, { lr: 1 })).toThrow(/step must be an integer ≥ 0, got -1/)
    expect(() => lrAt(0.5, { lr: 1 })).toThrow(RangeError)
  })
})
