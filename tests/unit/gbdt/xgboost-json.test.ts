/** Golden test: a model saved by real XGBoost (1.7.4, Debian) imports and predicts its margins. */
import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { fromXGBoostJson, toXGBoostJsonString, floatToken, f32Short } from '../../../src/models/gbdt/xgboost-json.ts'
import { predictMargins } from '../../../src/models/gbdt/predict.ts'

const dir = new URL('./fixtures/', import.meta.url)
const model = readFileSync(new URL('xgboost-1.7-binary.json', dir), 'utf8')
const expected = JSON.parse(readFileSync(new URL('xgboost-1.7-binary.expected.json', dir), 'utf8')) as {
  features: Array<Array<number | null>>
  margins: number[]
}

function columnsOf(rows: Array<Array<number | null>>): Float32Array[] {
  return rows[0].map((_, f) => Float32Array.from(rows, r => r[f] ?? NaN))
}

describe('XGBoost JSON import', () => {
  it('predicts the margins XGBoost computed for its own model', () => {
    const b = fromXGBoostJson(model)
    expect(b.trees).toHaveLength(4)
    expect(b.baseScore).toBeCloseTo(0.4, 6)
    const got = predictMargins(b, columnsOf(expected.features))
    got.forEach((m, i) => expect(Math.abs(m - expected.margins[i])).toBeLessThanOrEqual(1e-6))
  })

  it('re-exports an imported model that predicts the same', () => {
    const b = fromXGBoostJson(model)
    const again = fromXGBoostJson(toXGBoostJsonString(b))
    const cols = columnsOf(expected.features)
    expect(Array.from(predictMargins(again, cols))).toEqual(Array.from(predictMargins(b, cols)))
  })

  it('writes f32 values as short float tokens', () => {
    expect(f32Short(Math.fround(0.1))).toBe(0.1)
    expect(floatToken(0)).toBe('0.0')
    expect(floatToken(-2)).toBe('-2.0')
    expect(floatToken(1e-7)).toBe('1e-7')
    expect(() => f32Short(NaN)).toThrow(/non-finite/)
  })
})
