import { describe, expect, it } from 'vitest'
import { evalText } from '../../../src/run/summary-text.ts'

const base = { auc: null, logloss: null, rows_valid: 0 }

describe('evalText: the metrics of a run summary line', () => {
  it('names every validation metric, in order, with 6 significant digits', () => {
    const s = { ...base, rows_valid: 10, eval: { mae: 1.234567891, 'error@0.3': 0.25, mlogloss: 0.000123456789 } }
    expect(evalText(s)).toBe('mae 1.23457 error@0.3 0.250000 mlogloss 0.000123457')
  })
  it('falls back to auc and logloss when a family gives no eval map', () => {
    expect(evalText({ ...base, rows_valid: 3, auc: 0.75, logloss: 0.5 })).toBe('auc 0.750000 logloss 0.500000')
  })
  it('says there are no validation rows, and how to get some, instead of dashes', () => {
    const t = evalText(base)
    expect(t).toMatch(/no validation rows/)
    expect(t).toMatch(/--valid-fraction/)
    expect(t).not.toMatch(/-$/)
  })
})
