import { describe, expect, it } from 'vitest'
import {
  generateSynthetic,
  rowMajor,
  SYNTHETIC_FEATURES,
  syntheticFeatureNames,
} from '../../../tools/datagen/synthetic.ts'
import { auc } from '../../../src/eval/metrics.ts'

describe('generateSynthetic (HIGGS-like)', () => {
  it('is deterministic per seed and differs across seeds', () => {
    const a = generateSynthetic(2000, 7),
      b = generateSynthetic(2000, 7),
      c = generateSynthetic(2000, 8)
    // Byte equality (NaN payloads included), not value equality.
    expect(Buffer.compare(Buffer.from(rowMajor(a.columns).buffer), Buffer.from(rowMajor(b.columns).buffer))).toBe(0)
    expect(Buffer.compare(Buffer.from(a.labels.buffer), Buffer.from(b.labels.buffer))).toBe(0)
    expect(Buffer.compare(Buffer.from(rowMajor(a.columns).buffer), Buffer.from(rowMajor(c.columns).buffer))).not.toBe(0)
    expect(a.labels).not.toEqual(c.labels)
  })

  it('a prefix of rows is the same table with fewer rows', () => {
    const small = generateSynthetic(100, 3),
      big = generateSynthetic(300, 3)
    for (let f = 0; f < SYNTHETIC_FEATURES; f++)
      expect(Array.from(big.columns[f].subarray(0, 100))).toEqual(Array.from(small.columns[f]))
  })

  it('has 28 named features, a balanced-ish label and a few missing values', () => {
    const t = generateSynthetic(20000, 1)
    expect(t.columns).toHaveLength(28)
    expect(t.featureNames).toEqual(syntheticFeatureNames())
    expect(t.featureNames[0]).toBe('pt_0')
    const rate = t.labels.reduce((s, v) => s + v, 0) / t.labels.length
    expect(rate).toBeGreaterThan(0.3)
    expect(rate).toBeLessThan(0.7)
    const missing = t.columns.map(c => c.filter(Number.isNaN).length / c.length)
    expect(missing[18]).toBeGreaterThan(0.03)
    expect(missing[18]).toBeLessThan(0.07) // pt_6: missing object
    expect(missing[13]).toBeGreaterThan(0.005)
    expect(missing[13]).toBeLessThan(0.02) // eta_4
    expect(missing[0]).toBe(0)
  })

  it('features carry signal: pt_0 alone separates the classes', () => {
    const t = generateSynthetic(20000, 2)
    const a = auc(t.columns[0], t.labels)
    expect(a).toBeGreaterThan(0.55)
  })

  it('rowMajor interleaves columns and rejects nothing; bad row counts are refused', () => {
    expect(Array.from(rowMajor([Float32Array.of(1, 2), Float32Array.of(3, 4)]))).toEqual([1, 3, 2, 4])
    expect(() => generateSynthetic(-1, 0)).toThrow(/rows/)
    expect(generateSynthetic(0, 0).labels.length).toBe(0)
  })
})
