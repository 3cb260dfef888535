/**
 * Multiclass training against XGBoost 1.7.4 `hist` (Debian python3-xgboost), K = 3 and K = 7 on
 * generated tables: our model files (JSON, UBJSON) load in XGBoost with our margins (N, K); XGBoost
 * trained on the same rows with the same parameters (base_score 0.5, no sampling) grows the same
 * split features per node, tree for tree (round-major, class = tree % K), with the same margins;
 * the validation mlogloss of both (a quality check, printed); and XGBoost's model continues here
 * with K trees per round. All XGBoost work is one Python call.
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
import { transformRows } from '../../../src/models/gbdt/objective.ts'
import { evaluate } from '../../../src/eval/metrics.ts'
import type { Booster } from '../../../src/models/gbdt/types.ts'
import { PYTHON, pythonPeer } from '../../support/peers.ts'
import { makeMulticlass } from '../../unit/gbdt/synthetic.ts'
import { maxDiff, tempDir } from './xgboost-peer.ts'

const peer = pythonPeer(['xgboost'])

/** Per case: XGBoost's margins from our files; XGBoost's own training: margins, split features, its eval line. */
const XGB = `
import sys, json, numpy as np, xgboost as xgb
d = json.load(open(sys.argv[1]))
out = []
for i, c in enumerate(d['cases']):
    m = lambda cols: np.array(cols, dtype=np.float32).T
    names = ['f%d' % f for f in range(len(c['test']))]
    dv = xgb.DMatrix(m(c['test']), np.array(c['ytest'], dtype=np.float32), feature_names=names)
    ours = []
    for f in c['ours']:
        b = xgb.Booster()
        b.load_model(f)
        ours.append(b.predict(dv, output_margin=True).reshape(-1).tolist())
    dt = xgb.DMatrix(m(c['train']), np.array(c['y'], dtype=np.float32), feature_names=names)
    b = xgb.train(c['params'], dt, c['rounds'])
    b.save_model(d['dir'] + '/' + str(i) + '.json')
    trees = json.loads(b.save_raw('json').decode())['learner']['gradient_booster']['model']['trees']
    out.append({'ours': ours, 'margins': b.predict(dv, output_margin=True).reshape(-1).tolist(),
                'eval': b.eval(dv),
                'features': [[t['split_indices'][k] if t['left_children'][k] >= 0 else -1
                              for k in range(len(t['left_children']))] for t in trees]})
print(json.dumps(out))
`

interface Case {
  K: number
  params: Record<string, unknown>
  tr: { columns: Float32Array[]; labels: Float32Array }
  te: { columns: Float32Array[]; labels: Float32Array }
  ours: Booster
  margins: Float32Array
}

describe.runIf(peer.run)('multiclass training against XGBoost 1.7.4 hist', () => {
  it('K = 3, 7: our files load in XGBoost; same split features and margins as XGBoost; its model continues here', async () => {
    peer.require()
    const dir = tempDir()
    const cases: Case[] = []
    for (const [K, extra] of [
      [3, {}],
      [7, { max_depth: 4, lambda: 2, min_child_weight: 0.5 }],
    ] as const) {
      const tr = makeMulticlass(900, 5, K, 40 + K),
        te = makeMulticlass(400, 5, K, 50 + K)
      const params = {
        objective: 'multi:softprob',
        num_class: K,
        base_score: 0.5,
        max_depth: 3,
        eta: 0.3,
        max_bin: 64,
        num_round: 5,
        eval_metric: ['mlogloss'],
        ...extra,
      }
      const ours = await train(tr, parseParams(params))
      cases.push({ K, params, tr, te, ours, margins: predictMargins(ours, te.columns) })
    }
    const input = {
      dir,
      cases: cases.map((c, i) => {
        const files = (['json', 'ubj'] as const).map(format => {
          const path = join(dir, `ours-${i}.${format}`)
          writeFileSync(path, encodeModel(toXGBoostJson(c.ours), format))
          return path
        })
        const { num_round, ...xgbParams } = c.params
        return {
          ours: files,
          train: c.tr.columns.map(x => Array.from(x)),
          y: Array.from(c.tr.labels),
          test: c.te.columns.map(x => Array.from(x)),
          ytest: Array.from(c.te.labels),
          params: { ...xgbParams, tree_method: 'hist' },
          rounds: num_round,
        }
      }),
    }
    const inputPath = join(dir, 'input.json')
    writeFileSync(inputPath, JSON.stringify(input))
    const r = spawnSync(PYTHON, ['-c', XGB, inputPath], { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20 })
    if (r.status !== 0) throw new Error(r.stderr)
    const theirs = JSON.parse(r.stdout) as Array<{
      ours: number[][]
      margins: number[]
      eval: string
      features: number[][]
    }>
    for (const [i, c] of cases.entries()) {
      const x = theirs[i],
        what = `K = ${c.K}`
      expect(c.margins.length).toBe(c.te.labels.length * c.K)
      // 1. Our model files in XGBoost: our margins (N, K).
      for (const m of x.ours) expect(maxDiff(m, c.margins), `${what}: ours in XGBoost`).toBeLessThanOrEqual(1e-5)
      // 2. The same training: the same split features per node of every tree, the same margins.
      expect(
        c.ours.trees.map(t => Array.from(t.left, (l, k) => (l >= 0 ? t.splitIndex[k] : -1))),
        what,
      ).toEqual(x.features)
      const scale = Math.max(1, ...x.margins.map(Math.abs))
      expect(maxDiff(c.margins, x.margins) / scale, `${what}: margins`).toBeLessThanOrEqual(1e-5)
      // 3. Quality: validation mlogloss of ours and XGBoost's.
      const mine = evaluate('mlogloss', transformRows('multi:softprob', c.margins, c.K), c.te.labels, undefined, {
        num_class: c.K,
      })
      const xgbLoss = Number(/mlogloss:([\d.]+)/.exec(x.eval)![1])
      console.log(`${what}: validation mlogloss ours ${mine.toFixed(6)}, XGBoost ${xgbLoss}`)
      expect(Math.abs(mine - xgbLoss)).toBeLessThanOrEqual(1e-5)
      // 4. XGBoost's model continues here: K trees per round after its trees.
      const b = fromXGBoostJson(decodeModel(readFileSync(join(dir, `${i}.json`), 'utf8')))
      expect(b.numClass).toBe(c.K)
      const more = await train(c.tr, parseParams({ ...c.params, num_class: 0, num_round: 2 }), undefined, {
        initModel: b,
      })
      expect(more.trees).toHaveLength(7 * c.K)
      expect(more.trees.slice(0, 5 * c.K)).toEqual(b.trees)
      // Continuing 5 XGBoost rounds by 2 here grows what 7 rounds here grow (same trees, same sums).
      const seven = await train(c.tr, parseParams({ ...c.params, num_round: 7 }))
      expect(maxDiff(predictMargins(more, c.te.columns), predictMargins(seven, c.te.columns))).toBeLessThanOrEqual(1e-5)
    }
  })
})
