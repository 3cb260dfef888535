import { describe, expect, test } from 'vitest'
import { OPEN_RUN_MARKS, openRows } from '../../../bench/gbdt-rows.ts'
import type { OpenRunMarks } from '../../../bench/gbdt-rows.ts'
import type { SuiteContext } from '../../../bench/types.ts'

const ctx = {
  suite: 'gbdt',
  quick: true,
  commit: 'abc1234',
  date: '2026-01-01T00:00:00.000Z',
  adapter: {
    vendor: 'google',
    architecture: 'swiftshader',
    device: '',
    description: '',
    isFallbackAdapter: true,
    features: [],
    limits: {},
  },
  progress: () => {},
} as unknown as SuiteContext

/** Moments 1000 ms apart from a random origin, with random gaps, in run order. */
function randomMarks(): OpenRunMarks {
  let t = 1000 + Math.random() * 1e5
  const m = {} as OpenRunMarks
  for (const k of OPEN_RUN_MARKS) {
    m[k] = t
    t += Math.random() * 5000
  }
  return m
}

describe('gbdt bench: open → first round rows', () => {
  test('the total runs from the call to round 0 and the four parts sum to it', () => {
    for (let trial = 0; trial < 20; trial++) {
      const marks = randomMarks()
      const rows = openRows(ctx, { n: 1000, F: 28, marks })
      expect(rows).toHaveLength(5)
      expect(rows[0].workload).toMatch(/^open → first round .* n=1000 f=28$/)
      expect(rows[0].value).toBeCloseTo((marks.round - marks.start) / 1000, 9)
      expect(rows[1].value).toBeCloseTo((marks.planned - marks.start) / 1000, 9)
      expect(rows[2].value).toBeCloseTo((marks.loaded - marks.planned) / 1000, 9)
      expect(rows[3].value).toBeCloseTo((marks.quantised - marks.loaded) / 1000, 9)
      expect(rows[4].value).toBeCloseTo((marks.round - marks.quantised) / 1000, 9)
      const parts = rows.slice(1).reduce((s, r) => s + r.value, 0)
      expect(parts).toBeCloseTo(rows[0].value, 9)
      for (const r of rows) expect(r).toMatchObject({ unit: 's', metric: 'time', repeats: 1, suite: 'gbdt' })
    }
  })

  test('a missing or out-of-order progress event is an error naming it', () => {
    for (const k of OPEN_RUN_MARKS) {
      const marks: Partial<OpenRunMarks> = randomMarks()
      delete marks[k]
      expect(() => openRows(ctx, { n: 1, F: 1, marks })).toThrow(`never reached '${k}'`)
    }
    const marks = randomMarks()
    marks.quantised = marks.quantising - 1
    expect(() => openRows(ctx, { n: 1, F: 1, marks })).toThrow("reached 'quantised' before 'quantising'")
  })
})
