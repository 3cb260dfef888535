/**
 * Categorical splits in XGBoost's model files, against real XGBoost 1.7 (Debian python3-xgboost):
 * a categorical model we write (JSON and UBJSON) loads there and predicts our margins; a
 * categorical model XGBoost trained and saved (JSON with NaN conditions, and UBJSON) imports here
 * and our CPU predictor and the predict kernel's reference give XGBoost's margins.
 */
import { describe, expect, it } from 'vitest'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DEFAULT_PARAMS, parseParams } from '../../../src/models/gbdt/params.ts'
import { train } from '../../../src/models/gbdt/driver.ts'
import { predictMargins } from '../../../src/models/gbdt/predict.ts'
import { fromXGBoostJson, toXGBoostJson, toXGBoostJsonString } from '../../../src/models/gbdt/xgboost-json.ts'
import { decodeModel, encodeModel } from '../../../src/models/gbdt/model-file.ts'
import type { Booster } from '../../../src/models/gbdt/types.ts'
import { Rng } from '../../../src/util/rng.ts'
import { categorise, packedMargins, randomTree } from '../../unit/gbdt/tree-fixture.ts'
import { categoricalData } from '../../unit/gbdt/categorical-data.ts'
import { maxDiff, tempDir, xgbPredict, xgbTrain } from './xgboost-peer.ts'
import { requireXgboost, runXgboostTests } from '../../support/peers.ts'

const LEVELS = 12

/** Columns: F0 categorical codes (some NaN, negative, fractional, unseen), then numeric ones. */
function columns(rng: Rng, rows: number, cat: number, num: number, clean = false): Float32Array[] {
  const code = () => {
    const r = rng.int(20)
    if (r === 0) return NaN
    if (clean) return rng.int(LEVELS)
    return r === 1 ? -1 : r === 2 ? rng.int(LEVELS) + 0.5 : r === 3 ? 40 : rng.int(LEVELS)
  }
  return [
    ...Array.from({ length: cat }, () => Float32Array.from({ length: rows }, code)),
    ...Array.from({ length: num }, () =>
      Float32Array.from({ length: rows }, () => (rng.next() < 0.05 ? NaN : rng.uniform(-1, 1))),
    ),
  ]
}

/** A booster of hand-made trees: categorical splits on features 0, 1 (codes < LEVELS), numeric on 2, 3. */
function handBooster(seed: number): Booster {
  const rng = new Rng(seed)
  const trees = Array.from({ length: 6 }, () => categorise(rng, randomTree(rng, 4, 4, 8), 2, LEVELS))
  return {
    params: { ...DEFAULT_PARAMS },
    featureNames: ['job', 'month', 'x', 'y'],
    featureTypes: ['c', 'c', 'float', 'float'],
    baseScore: Math.fround(0.3),
    trees,
    history: [],
    bestIteration: trees.length - 1,
  }
}

describe('categorical models in XGBoost model files', () => {
  it('export categorical arrays and feature types c; both files import to the same trees', () => {
    const b = handBooster(3)
    const json = toXGBoostJson(b) as any
    expect(json.learner.feature_types).toEqual(['c', 'c', 'float', 'float'])
    const t0 = json.learner.gradient_booster.model.trees[0]
    const cat = b.trees[0]
    const nodes = Array.from(cat.splitType.keys()).filter(k => cat.splitType[k] === 1)
    expect(t0.categories_nodes).toEqual(nodes)
    expect(t0.split_type).toEqual(Array.from(cat.splitType))
    for (const k of nodes) expect(t0.split_conditions[k]).toBe(0)
    const cols = columns(new Rng(9), 400, 2, 2)
    const want = Array.from(predictMargins(b, cols))
    for (const back of [
      fromXGBoostJson(toXGBoostJsonString(b)),
      fromXGBoostJson(decodeModel(encodeModel(json, 'ubj') as Uint8Array)),
    ]) {
      expect(back.trees.map(t => Array.from(t.categories))).toEqual(b.trees.map(t => Array.from(t.categories)))
      expect(Array.from(predictMargins(back, cols))).toEqual(want)
      expect(Array.from(packedMargins(back, cols))).toEqual(want)
    }
  })

  it.skipIf(!runXgboostTests)('XGBoost loads our categorical JSON and UBJSON models with our margins (1e-5)', () => {
    requireXgboost()
    const b = handBooster(5)
    const dir = tempDir()
    const cols = columns(new Rng(11), 600, 2, 2)
    const ours = predictMargins(b, cols)
    const files = {
      json: join(dir, 'model.json'),
      ubj: join(dir, 'model.ubj'),
    }
    writeFileSync(files.json, encodeModel(toXGBoostJson(b), 'json'))
    writeFileSync(files.ubj, encodeModel(toXGBoostJson(b), 'ubj'))
    for (const [format, path] of Object.entries(files)) {
      const diff = maxDiff(xgbPredict(path, cols), ours)
      expect(diff, format).toBeLessThanOrEqual(1e-5)
    }
  })

  it.skipIf(!runXgboostTests)(
    'a model trained here with one-hot and partition splits loads in XGBoost with our margins (1e-5)',
    async () => {
      requireXgboost()
      const data = categoricalData(3000, 21)
      const p = parseParams({ enable_categorical: true, categorical: ['c3'], max_depth: 4, num_round: 8 })
      const b = await train(data, p)
      const kinds = b.trees.flatMap(t =>
        Array.from(t.splitType.keys())
          .filter(k => t.splitType[k] === 1)
          .map(k => `${t.splitIndex[k]}:${t.catSize[k] > 1 ? 'set' : 'one'}`),
      )
      // c12 (12 levels) gets partition splits, c3 (3 levels, under max_cat_to_onehot 4) one-hot ones.
      expect(kinds).toContain('0:set')
      expect(kinds).toContain('1:one')
      expect(b.featureTypes.slice(0, 2)).toEqual(['c', 'c'])
      const dir = tempDir()
      const cols = data.valid!.columns
      const ours = predictMargins(b, cols)
      for (const format of ['json', 'ubj'] as const) {
        const path = join(dir, `trained.${format}`)
        writeFileSync(path, encodeModel(toXGBoostJson(b), format))
        expect(maxDiff(xgbPredict(path, cols), ours), format).toBeLessThanOrEqual(1e-5)
      }
    },
  )

  it.skipIf(!runXgboostTests)(
    'a categorical model continued here still loads in XGBoost with our margins',
    async () => {
      requireXgboost()
      const init = fromXGBoostJson(decodeModel(encodeModel(toXGBoostJson(handBooster(8)), 'ubj') as Uint8Array))
      const rng = new Rng(4)
      const cols = columns(rng, 500, 2, 2, true)
      const labels = Float32Array.from(cols[2], (x, i) => Number(x > 0 || cols[0][i] === 3))
      const data = {
        columns: cols,
        labels,
        featureNames: init.featureNames,
        featureTypes: ['c', 'c', 'float', 'float'],
      }
      const more = await train(data, parseParams({ num_round: 3, max_depth: 3 }), undefined, { initModel: init })
      expect(more.trees).toHaveLength(9)
      const path = join(tempDir(), 'continued.ubj')
      writeFileSync(path, encodeModel(toXGBoostJson(more), 'ubj'))
      const diff = maxDiff(xgbPredict(path, cols), predictMargins(more, cols))
      expect(diff).toBeLessThanOrEqual(1e-5)
    },
  )

  it.skipIf(!runXgboostTests)(
    'a categorical model XGBoost trained (JSON with NaN conditions, UBJSON) predicts its margins here',
    () => {
      requireXgboost()
      const rng = new Rng(21)
      const rows = 800
      const cols = columns(rng, rows, 2, 2, true)
      const labels = Float32Array.from({ length: rows }, (_, i) => {
        const c = cols[0][i]
        return Number((c % 3 === 0) !== cols[2][i] > 0.2 || (cols[1][i] === 4 && rng.next() < 0.8))
      })
      const base = join(tempDir(), 'xgb')
      const params = { tree_method: 'hist', max_depth: 4, objective: 'binary:logistic', max_cat_to_onehot: 1, eta: 0.3 }
      const theirs = xgbTrain(base, cols, labels, ['c', 'c', 'q', 'q'], 8, params)
      const text = readFileSync(`${base}.json`, 'utf8')
      expect(text).toContain('NaN')
      const fromJson = fromXGBoostJson(text)
      const fromUbj = fromXGBoostJson(decodeModel(readFileSync(`${base}.ubj`)))
      expect(fromJson.trees.some(t => t.splitType.includes(1))).toBe(true)
      expect(fromJson.featureTypes).toEqual(['c', 'c', 'q', 'q'])
      for (const [what, b] of [
        ['json', fromJson],
        ['ubj', fromUbj],
      ] as const) {
        const cpu = maxDiff(predictMargins(b, cols), theirs),
          packed = maxDiff(packedMargins(b, cols), theirs)
        expect(cpu, what).toBeLessThanOrEqual(1e-5)
        expect(packed, what).toBeLessThanOrEqual(1e-5)
      }
      expect(toXGBoostJsonString(fromUbj)).toBe(toXGBoostJsonString(fromJson))
    },
  )
})
