/**
 * gblinear against real XGBoost 1.7 (booster gblinear, updater coord_descent, feature_selector
 * cyclic, one thread): the same table with missing values trained here and there gives the same
 * weights and margins; our model.json loads in xgboost.Booster with our margins; XGBoost's saved
 * model predicts here with its margins.
 */
import { describe, expect, it } from 'vitest'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseParams } from '../../src/models/gblinear/params.ts'
import { predictMargins, trainLinear } from '../../src/models/gblinear/train.ts'
import { fromXGBoostJson, toXGBoostJson } from '../../src/models/gblinear/model-json.ts'
import { Rng } from '../../src/util/rng.ts'
import { tempDir, xgbPredict, xgbTrain } from './gbdt/xgboost-peer.ts'
import { requireXgboost, runXgboostTests } from '../support/peers.ts'

const N = 600
const F = 5

/** F columns (about 15% missing), labels from a noisy linear score: 0/1 or the score itself. */
function table(seed: number, binary: boolean): { columns: Float32Array[]; labels: Float32Array } {
  const rng = new Rng(seed)
  const columns = Array.from({ length: F }, (_, f) =>
    Float32Array.from({ length: N }, () => (rng.next() < 0.15 ? NaN : rng.uniform(-2, 2) + f * 0.3)),
  )
  const beta = [1.5, -2, 0.5, 0, 0.8]
  const labels = Float32Array.from({ length: N }, (_, i) => {
    let s = 0.2 + rng.uniform(-1, 1)
    for (let f = 0; f < F; f++) if (!Number.isNaN(columns[f][i])) s += beta[f] * columns[f][i]
    return binary ? (s > 0 ? 1 : 0) : s
  })
  return { columns, labels }
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length)
  let m = 0
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]))
  return m
}

const CASES = [
  {
    name: 'binary:logistic, lambda and alpha',
    binary: true,
    rounds: 8,
    params: { objective: 'binary:logistic', eta: 0.5, lambda: 0.01, alpha: 0.002, base_score: 0.4 },
  },
  {
    name: 'reg:squarederror',
    binary: false,
    rounds: 6,
    params: { objective: 'reg:squarederror', eta: 0.3, lambda: 0.05, alpha: 0, base_score: 0.25 },
  },
] as const

describe.runIf(runXgboostTests)('gblinear and XGBoost 1.7 gblinear (coord_descent, cyclic)', () => {
  for (const c of CASES) {
    it(`${c.name}: same weights and margins as XGBoost; each model predicts in the other`, () => {
      requireXgboost()
      const { columns, labels } = table(c.binary ? 11 : 12, c.binary)
      const ours = trainLinear(
        { columns, labels, featureNames: Array.from({ length: F }, (_, f) => `f${f}`) },
        parseParams({ ...c.params, num_round: c.rounds }),
      )
      const dir = tempDir()
      const base = join(dir, 'xgb')
      const xgbParams = {
        ...c.params,
        booster: 'gblinear',
        updater: 'coord_descent',
        feature_selector: 'cyclic',
        nthread: 1,
      }
      const xgbMargins = xgbTrain(base, columns, labels, Array(F).fill('float'), c.rounds, xgbParams)
      const theirs = JSON.parse(readFileSync(`${base}.json`, 'utf8'))
      const theirWeights = (theirs.learner.gradient_booster.model.weights as number[]).map(Math.fround)
      const ourWeights = [...ours.weights, ours.bias]
      const dw = maxAbsDiff(ourWeights, theirWeights)
      const margins = predictMargins(ours, columns)
      const dm = maxAbsDiff(margins, xgbMargins)
      console.log(`gblinear vs XGBoost, ${c.name}: max |Δweight| ${dw}, max |Δmargin| ${dm}`)
      expect(dw).toBeLessThan(1e-5)
      expect(dm).toBeLessThan(1e-5)
      // The weights moved (the comparison is not of two zero models).
      expect(Math.max(...ourWeights.map(Math.abs))).toBeGreaterThan(0.1)

      // (b) our model.json in xgboost.Booster: its margins are ours.
      const ourFile = join(dir, 'ours.json')
      writeFileSync(ourFile, toXGBoostJson(ours))
      expect(maxAbsDiff(xgbPredict(ourFile, columns), margins)).toBeLessThan(1e-6)

      // (c) XGBoost's saved model through our predict path: its margins.
      const imported = fromXGBoostJson(readFileSync(`${base}.json`, 'utf8'), `${base}.json`)
      expect(maxAbsDiff(predictMargins(imported, columns), xgbMargins)).toBeLessThan(1e-6)
    })
  }
})
