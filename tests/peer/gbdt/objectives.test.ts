/**
 * The regression-family and binary objectives against XGBoost 1.7.4 `hist` (Debian python3-xgboost),
 * each on data its labels fit, base_score given (1.7.4 does not estimate it): XGBoost loads our
 * model.json and model.ubj and predicts our margins; XGBoost trained on the same rows with the
 * same parameters grows the same trees (split features per node) with the same margins as our CPU
 * backend; an XGBoost-saved model of each objective loads here with its margins and its
 * parameters and continues training (driver initModel, as --init-model). reg:absoluteerror runs
 * with eta = 1: XGBoost 1.7.4 refreshes leaves to the plain median, ≥ 2.0 (and we) to eta × median.
 * reg:quantileerror is not in 1.7.4 (objective.test.ts checks it against its formula). All
 * XGBoost work is one Python call.
 */
import { describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { train } from '../../../src/models/gbdt/driver.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { predictMargins } from '../../../src/models/gbdt/predict.ts'
import { fromXGBoostJson, toXGBoostJson } from '../../../src/models/gbdt/xgboost-json.ts'
import { decodeModel, encodeModel } from '../../../src/models/gbdt/model-file.ts'
import type { Objective } from '../../../src/models/gbdt/objective.ts'
import type { Booster } from '../../../src/models/gbdt/types.ts'
import { Rng } from '../../../src/util/rng.ts'
import { PYTHON, pythonPeer } from '../../support/peers.ts'
import { maxDiff, tempDir } from './xgboost-peer.ts'

const peer = pythonPeer(['xgboost'])

/**
 * Per case: XGBoost's margins on `test` from our two model files; then XGBoost trains the case
 * (saving <dir>/<i>.json and .ubj): its margins on `test`, split features per node and leaf values.
 */
const XGB = `
import sys, json, numpy as np, xgboost as xgb
d = json.load(open(sys.argv[1]))
m = lambda cols: np.array(cols, dtype=np.float32).T
names = ['f%d' % f for f in range(len(d['test']))]
dv = xgb.DMatrix(m(d['test']), feature_names=names)
out = []
for i, c in enumerate(d['cases']):
    ours = []
    for f in c['ours']:
        b = xgb.Booster()
        b.load_model(f)
        ours.append(b.predict(dv, output_margin=True).tolist())
    dt = xgb.DMatrix(m(d['train']), np.array(c['y'], dtype=np.float32), feature_names=names)
    b = xgb.train(c['params'], dt, c['rounds'])
    base = d['dir'] + '/' + str(i)
    b.save_model(base + '.json')
    b.save_model(base + '.ubj')
    trees = json.loads(b.save_raw('json').decode())['learner']['gradient_booster']['model']['trees']
    out.append({'ours': ours, 'margins': b.predict(dv, output_margin=True).tolist(),
                'features': [[t['split_indices'][k] if t['left_children'][k] >= 0 else -1
                              for k in range(len(t['left_children']))] for t in trees],
                'leaves': [[t['split_conditions'][k] for k in range(len(t['left_children'])) if t['left_children'][k] < 0]
                           for t in trees]})
print(json.dumps(out))
`

const F = 4

/** x ~ U(−1, 1) in F columns; s = x0 + sin(3·x1) − x2·x3, the signal every label is built from. */
function features(n: number, rng: Rng): { columns: Float32Array[]; s: Float64Array } {
  const columns = Array.from({ length: F }, () => Float32Array.from({ length: n }, () => rng.uniform(-1, 1)))
  const s = Float64Array.from(
    { length: n },
    (_, i) => columns[0][i] + Math.sin(3 * columns[1][i]) - columns[2][i] * columns[3][i],
  )
  return { columns, s }
}

/** A Poisson draw (Knuth), for counts. */
function poisson(rng: Rng, lambda: number): number {
  const l = Math.exp(-lambda)
  let k = 0,
    p = rng.next()
  while (p > l) {
    k++
    p *= rng.next()
  }
  return k
}

/** Labels the objective fits, from the signal s. */
function labelsFor(objective: Objective, s: Float64Array, rng: Rng): Float32Array {
  const y = (f: (v: number) => number) => Float32Array.from(s, f)
  switch (objective) {
    case 'reg:squaredlogerror':
      return y(v => Math.exp(v) * (1 + 0.1 * rng.normal()))
    case 'count:poisson':
      return y(v => poisson(rng, Math.exp(0.6 * v)))
    case 'reg:tweedie':
      return y(v => poisson(rng, Math.exp(0.5 * v - 0.3)) * Math.exp(0.3 * rng.normal()))
    case 'reg:gamma':
      return y(v => Math.exp(0.7 * v) * -Math.log(1 - rng.next()))
    case 'binary:hinge':
    case 'binary:logitraw':
      return y(v => Number(v + 0.5 * rng.normal() > 0))
    default: // pseudo-Huber, absolute error: the signal with noise and 5 % outliers
      return y(v => 2 * v + 0.3 * rng.normal() + (rng.next() < 0.05 ? 12 * (rng.next() - 0.5) : 0))
  }
}

interface Case {
  objective: Objective
  params: Record<string, unknown>
  y: Float32Array
  ours: Booster
  margins: Float32Array
}

const CASES: Array<[Objective, Record<string, unknown>]> = [
  ['reg:pseudohubererror', { huber_slope: 1.5 }],
  ['reg:absoluteerror', { eta: 1 }],
  // Margins kept above −1: below, XGBoost clamps and |g| reaches ~1e7, beyond the fixed-point histograms' range.
  ['reg:squaredlogerror', { eta: 0.1, base_score: 1 }],
  ['count:poisson', {}],
  ['reg:gamma', {}],
  ['reg:tweedie', { tweedie_variance_power: 1.3 }],
  ['binary:logitraw', {}],
  ['binary:hinge', {}],
]

describe.runIf(peer.run)('objectives against XGBoost 1.7.4 hist', () => {
  it('model files load in XGBoost; same trees and margins as XGBoost; XGBoost models load and continue here', async () => {
    peer.require()
    const rng = new Rng(29)
    const tr = features(800, rng),
      te = features(300, rng)
    const dir = tempDir()
    const cases: Case[] = []
    for (const [objective, extra] of CASES) {
      const params = { objective, base_score: 0.5, max_depth: 3, eta: 0.3, max_bin: 64, num_round: 4, ...extra }
      const y = labelsFor(objective, tr.s, rng)
      const ours = await train({ columns: tr.columns, labels: y }, parseParams(params))
      cases.push({ objective, params, y, ours, margins: predictMargins(ours, te.columns) })
    }
    const input = {
      dir,
      train: tr.columns.map(c => Array.from(c)),
      test: te.columns.map(c => Array.from(c)),
      cases: cases.map((c, i) => {
        const files = (['json', 'ubj'] as const).map(format => {
          const path = join(dir, `ours-${i}.${format}`)
          writeFileSync(path, encodeModel(toXGBoostJson(c.ours), format))
          return path
        })
        const { num_round, ...xgbParams } = c.params
        return { ours: files, y: Array.from(c.y), params: { ...xgbParams, tree_method: 'hist' }, rounds: num_round }
      }),
    }
    const inputPath = join(dir, 'input.json')
    writeFileSync(inputPath, JSON.stringify(input))
    const r = spawnSync(PYTHON, ['-c', XGB, inputPath], { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20 })
    if (r.status !== 0) throw new Error(r.stderr)
    const theirs = JSON.parse(r.stdout) as Array<{
      ours: number[][]
      margins: number[]
      features: number[][]
      leaves: number[][]
    }>
    for (const [i, c] of cases.entries()) {
      const x = theirs[i],
        what = c.objective
      // 1. Our model files in XGBoost: our margins.
      for (const m of x.ours) expect(maxDiff(m, c.margins), `${what}: ours in XGBoost`).toBeLessThanOrEqual(1e-5)
      // 2. The same training: the same split features per node, the same margins.
      expect(
        c.ours.trees.map(t => Array.from(t.left, (l, k) => (l >= 0 ? t.splitIndex[k] : -1))),
        what,
      ).toEqual(x.features)
      const scale = Math.max(1, ...x.margins.map(Math.abs))
      expect(maxDiff(c.margins, x.margins) / scale, `${what}: margins`).toBeLessThanOrEqual(1e-5)
      // 3. XGBoost's files here: its margins and parameters, and training continues from them.
      for (const format of ['json', 'ubj'] as const) {
        const file = readFileSync(join(dir, `${i}.${format}`))
        const b = fromXGBoostJson(decodeModel(format === 'json' ? file.toString('utf8') : file))
        expect(b.params.objective).toBe(c.objective)
        const parsed = parseParams(c.params)
        expect([b.params.huber_slope, b.params.tweedie_variance_power, b.params.max_delta_step], what).toEqual(
          [parsed.huber_slope, parsed.tweedie_variance_power, parsed.max_delta_step].map(Math.fround),
        )
        expect(maxDiff(predictMargins(b, te.columns), x.margins), `${what} ${format}`).toBeLessThanOrEqual(1e-5)
        const more = await train(
          { columns: tr.columns, labels: c.y },
          parseParams({ ...c.params, num_round: 2 }),
          undefined,
          {
            initModel: b,
          },
        )
        expect(more.trees).toHaveLength(6)
        expect(more.trees.slice(0, 4)).toEqual(b.trees)
        expect(maxDiff(predictMargins(more, te.columns), x.margins), `${what}: continued`).toBeGreaterThan(0)
      }
    }
  })
})
