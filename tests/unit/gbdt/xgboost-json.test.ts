/** Golden test: a model saved by real XGBoost (1.7.4, Debian)
imports and predicts its margins. */
import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import {
  fromXGBoostJson,
  toXGBoostJson,
  toXGBoostJsonString,
  floatToken,
} from '../../../src/models/gbdt/xgboost-json.ts'
import { shortestFloat32 } from '../../../src/util/float32.ts'
import { predictMargins } from '../../../src/models/gbdt/predict.ts'
import { decodeModel, encodeModel } from '../../../src/models/gbdt/model-file.ts'
import { packedMargins } from './tree-fixture.ts'

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
    expect(shortestFloat32(Math.fround(0.1))).toBe(0.1)
    expect(floatToken(0)).toBe('0.0')
    expect(floatToken(-2)).toBe('-2.0')
    expect(floatToken(1e-7)).toBe('1e-7')
    expect(() => shortestFloat32(NaN)).toThrow(/non-finite/)
  })
})

describe('XGBoost categorical model import (golden, XGBoost 1.7 files)', () => {
  const cat = readFileSync(new URL('xgboost-1.7-categorical.json', dir), 'utf8')
  const ubj = readFileSync(new URL('xgboost-1.7-categorical.ubj', dir))
  const want = JSON.parse(readFileSync(new URL('xgboost-1.7-categorical.expected.json', dir), 'utf8')) as {
    features: Array<Array<number | null>>
    margins: number[]
  }

  it('reads the JSON (bare NaN conditions) and the UBJSON file to the same model', () => {
    expect(cat).toMatch(/"split_conditions":\[NaN,/)
    const a = fromXGBoostJson(cat),
      b = fromXGBoostJson(decodeModel(ubj))
    expect(a.featureTypes).toEqual(['c', 'q', 'c'])
    expect(a.trees.some(t => t.splitType.includes(1))).toBe(true)
    expect(toXGBoostJsonString(b)).toBe(toXGBoostJsonString(a))
  })

  it('predicts the margins XGBoost computed (CPU and packed kernel reference), unseen codes included', () => {
    const b = fromXGBoostJson(decodeModel(ubj))
    const cols = columnsOf(want.features)
    const cpu = predictMargins(b, cols)
    cpu.forEach((m, i) => expect(Math.abs(m - want.margins[i])).toBeLessThanOrEqual(1e-6))
    expect(Array.from(packedMargins(b, cols))).toEqual(Array.from(cpu))
  })

  it('JSON → UBJSON → JSON keeps every tree value', () => {
    for (const text of [cat, model]) {
      const b = fromXGBoostJson(text)
      const json = toXGBoostJson(b)
      const again = decodeModel(encodeModel(json, 'ubj') as Uint8Array)
      // Tree arrays equal as stored (f32): UBJSON holds the f32 values themselves.
      expect(fromXGBoostJson(again).trees).toEqual(b.trees)
      expect((again as any).learner.feature_types).toEqual((json as any).learner.feature_types)
      expect(encodeModel(again, 'json')).toBe(encodeModel(json, 'json'))
      // Deterministic bytes.
      expect(encodeModel(again, 'ubj')).toEqual(encodeModel(json, 'ubj'))
    }
  })

  it("writes a categorical node's condition as 0.0 (valid JSON) and reads it back as the same model", () => {
    const b = fromXGBoostJson(cat)
    const text = toXGBoostJsonString(b)
    expect(() => JSON.parse(text)).not.toThrow()
    expect(text).not.toContain('NaN')
    expect(toXGBoostJsonString(fromXGBoostJson(text))).toBe(text)
  })

  it('leaves strings alone while reading NaN tokens', () => {
    const text = cat.replace('"feature_names":["job"', '"feature_names":["NaN, Infinity \\" NaN"')
    expect(fromXGBoostJson(text).featureNames[0]).toBe('NaN, Infinity " NaN')
    expect(decodeModel('{"a":[NaN,-Infinity,1.5e3],"b":"NaN"}')).toEqual({ a: [NaN, -Infinity, 1500], b: 'NaN' })
    expect(() => decodeModel('{"a":[NaN,]}')).toThrow(/model JSON: unexpected "]" at offset 10/)
    expect(() => decodeModel('{"a":NaN} x')).toThrow(/unexpected text after the value/)
  })

  type TreeJson = Record<string, unknown[]>
  const crafted = (edit: (t: TreeJson) => void) => {
    const j = JSON.parse(toXGBoostJsonString(fromXGBoostJson(cat)))
    edit(j.learner.gradient_booster.model.trees[1])
    return j
  }
  const first = (t: TreeJson) => (t.categories_nodes as number[])[0]
  it.each([
    [
      'segments and nodes of different lengths',
      (t: TreeJson) => t.categories_segments.pop(),
      /trees\[1\]: categories_nodes has \d+ entries, categories_segments \d+, categories_sizes \d+/,
    ],
    [
      'a categorical node id out of range',
      (t: TreeJson) => ((t.categories_nodes as number[])[0] = 99),
      /trees\[1\]: categories_nodes\[0\] = 99 is not a node of the tree \(0 to \d+\)/,
    ],
    [
      'categories on a numeric node',
      (t: TreeJson) => ((t.split_type as number[])[first(t)] = 0),
      /trees\[1\] node \d+: has categories but is not a categorical split/,
    ],
    [
      'a segment past the codes',
      (t: TreeJson) => ((t.categories_sizes as number[])[0] = 1000),
      /trees\[1\] node \d+: categories segment \[\d+, \d+ \+ 1000\) is outside categories/,
    ],
    [
      'a negative code',
      (t: TreeJson) => ((t.categories as number[])[0] = -2),
      /trees\[1\] node \d+: category -2 is not a whole number in \[0, 16777215\]/,
    ],
    [
      'a split type other than 0 and 1',
      (t: TreeJson) => ((t.split_type as number[])[0] = 2),
      /trees\[1\] node 0: split_type 2/,
    ],
  ])('refuses %s, naming the tree and node', (_, edit, message) => {
    expect(() => fromXGBoostJson(crafted(edit))).toThrow(message)
  })
})
