/**
 * Checks that real XGBoost loads our model.json and predicts the same margins. Runs only where
 * /usr/bin/python3 has xgboost (Debian python3-xgboost); the product never depends on Python.
 */
import { describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { train } from '../../../src/models/gbdt/driver.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { predictMargins } from '../../../src/models/gbdt/predict.ts'
import { toXGBoostJsonString } from '../../../src/models/gbdt/xgboost-json.ts'
import { sigmoid } from '../../../src/models/gbdt/objective.ts'
import { leafOf } from '../../../src/models/gbdt/predict.ts'
import { makeBinary, sliceColumns } from '../../unit/gbdt/synthetic.ts'
import { predict as kernelPredict } from '../../../src/kernels/gbdt/predict.ref.ts'
import { packTrees } from '../../../src/kernels/gbdt/layout.ts'
import { baseMargin } from '../../../src/models/gbdt/objective.ts'
import { PYTHON as PY, requireXgboost, runXgboostTests } from '../../support/peers.ts'

function csv(columns: Float32Array[], margins: Float32Array): string {
  const rows = [
    columns
      .map((_, f) => `f${f}`)
      .concat('margin')
      .join(','),
  ]
  for (let i = 0; i < margins.length; i++)
    rows.push(
      columns
        .map(c => (Number.isNaN(c[i]) ? '' : String(c[i])))
        .concat(String(margins[i]))
        .join(','),
    )
  return rows.join('\n') + '\n'
}

describe('XGBoost interop', () => {
  const d = makeBinary(1500, 5, 21, 0.15)
  const trainData = { columns: sliceColumns(d.columns, 0, 1000), labels: d.labels.slice(0, 1000) }

  it('node sum_hessian equals the rows routed there (partition + histogram subtraction are exact)', async () => {
    const b = await train(trainData, parseParams({ max_depth: 4, num_round: 1 }))
    const t = b.trees[0],
      counts = new Array<number>(t.left.length).fill(0)
    for (let i = 0; i < 1000; i++) {
      // Count every node on the row's path, not just its leaf.
      let n = leafOf(t, trainData.columns, i)
      for (counts[n]++; t.parent[n] >= 0 && t.parent[n] !== 2147483647; n = t.parent[n]) counts[t.parent[n]]++
    }
    const p = sigmoid(Math.log(b.baseScore / (1 - b.baseScore))),
      h = p * (1 - p)
    for (let n = 0; n < t.left.length; n++) expect(t.sumHessian[n]).toBeCloseTo(counts[n] * h, 2)
  })

  it('CPU prediction on raw features agrees exactly with the predict kernel reference', async () => {
    const b = await train(trainData, parseParams({ max_depth: 4, num_round: 8 }))
    const valid = sliceColumns(d.columns, 1000, 1500),
      rows = 500,
      F = valid.length
    const features = new Float32Array(rows * F)
    for (let i = 0; i < rows; i++) for (let f = 0; f < F; f++) features[i * F + f] = valid[f][i]
    const packed = packTrees(b.trees),
      out = new Float32Array(rows)
    kernelPredict(
      features,
      packed.nodes,
      packed.catBits,
      packed.treeOffsets,
      out,
      { rows, features: F, trees: b.trees.length, maxDepth: packed.maxDepth },
      baseMargin(b.params.objective, b.baseScore),
    )
    expect(Array.from(out)).toEqual(Array.from(predictMargins(b, valid)))
  })

  it.skipIf(!runXgboostTests)('xgboost loads model.json and agrees on margins within 1e-5', async () => {
    requireXgboost()
    const b = await train(trainData, parseParams({ max_depth: 5, num_round: 20, eta: 0.3 }))
    const valid = sliceColumns(d.columns, 1000, 1500)
    const dir = mkdtempSync(join(tmpdir(), 'snaptrain-interop-'))
    writeFileSync(join(dir, 'model.json'), toXGBoostJsonString(b))
    writeFileSync(join(dir, 'x.csv'), csv(valid, predictMargins(b, valid)))
    const r = spawnSync(PY, ['bench/xgboost_interop.py', join(dir, 'model.json'), join(dir, 'x.csv')], {
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(r.stderr).toBe('')
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { max_abs_margin_diff: number; rows: number }
    expect(out.rows).toBe(500)
    expect(out.max_abs_margin_diff).toBeLessThanOrEqual(1e-5)
  })
})
