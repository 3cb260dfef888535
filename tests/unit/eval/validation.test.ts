/** The one validation-set rule (src/eval/validation.ts): a table, a fraction, or none; both, or a fraction outside (0, 1), refused. */
import { describe, expect, it } from 'vitest'
import { validationSet } from '../../../src/eval/validation.ts'

describe('validationSet', () => {
  it('a validation table, a fraction, the default fraction, or none', () => {
    expect(validationSet({ validTable: 'v/', validVersion: 3 })).toEqual({ kind: 'table', table: 'v/', version: 3 })
    expect(validationSet({ validFraction: 0.25 })).toEqual({ kind: 'fraction', fraction: 0.25 })
    expect(validationSet({}, 0.2)).toEqual({ kind: 'fraction', fraction: 0.2 })
    expect(validationSet({ validTable: 'v/' }, 0.2)).toEqual({ kind: 'table', table: 'v/', version: undefined })
    expect(validationSet({})).toEqual({ kind: 'none' })
  })

  it('refuses both, and a fraction outside (0, 1), naming the fields', () => {
    expect(() => validationSet({ validTable: 'v/', validFraction: 0.2 })).toThrow(
      'validTable and validFraction: give at most one',
    )
    expect(() => validationSet({ validFraction: 1 })).toThrow('validFraction: must be in (0, 1), got 1')
    expect(() => validationSet({}, 0)).toThrow('validFraction: must be in (0, 1), got 0')
  })
})
