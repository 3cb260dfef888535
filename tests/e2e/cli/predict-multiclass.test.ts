/**
 * A multiclass run end to end (issue 29): `train` on a string label (marketing's marital, 3
 * values) with multi:softprob stores the sorted label dictionary in the model, and `snaptrain
 * predict --contribs` (GPU kernels in the page, in-process CLI) writes margin_<k>, prob_<k>,
 * prediction = the label's value of the argmax class, and SHAP per class — margins equal to the
 * CPU predictMargins, each class's SHAP row summing to its margin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../../../src/serve/page-server.ts'
import { serveDirectory, type ServedDirectory } from '../../../src/serve/server.ts'
import { openSnapshot, readRows } from '../../../src/table/index.ts'
import { runTraining } from '../../../src/run/pipeline.ts'
import { fromXGBoostJson } from '../../../src/models/gbdt/xgboost-json.ts'
import { predictMargins } from '../../../src/models/gbdt/predict.ts'
import type { Booster } from '../../../src/models/gbdt/types.ts'
import { runMain, shareAppPage } from '../../support/cli.ts'

const TABLE = 'public/tables/marketing'
const FEATURES = ['age', 'balance']
const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-multi-'))
let server: ServedDirectory
let modelPath: string
let booster: Booster
let columns: Float32Array[]
let marital: string[]

beforeAll(async () => {
  server = await serveDirectory(join(PROJECT_ROOT, 'public', 'tables'))
  const url = `${server.url}marketing/`
  const r = await runTraining({
    table: url,
    label: 'marital',
    features: FEATURES,
    params: { objective: 'multi:softprob', num_round: 2, max_depth: 3 },
    backend: 'cpu',
    workers: 0,
  })
  modelPath = join(tmp, 'model.json')
  writeFileSync(modelPath, r.model)
  booster = fromXGBoostJson(r.model as string)
  const rows = await readRows(await openSnapshot(url), { columns: [...FEATURES, 'marital'] })
  columns = FEATURES.map(f => Float32Array.from(rows, r => Number(r[f])))
  marital = rows.map(r => r.marital as string)
}, 60_000)
afterAll(async () => {
  await server?.close()
  rmSync(tmp, { recursive: true, force: true })
})

shareAppPage()

describe('a multiclass model from a string label, predicted', () => {
  it('the model holds num_class 3 and the sorted label values', () => {
    expect(booster.numClass).toBe(3)
    expect(booster.labelValues).toEqual([...new Set(marital)].sort())
    expect(booster.trees).toHaveLength(6)
  })

  it('predict --contribs: margin_k, prob_k, the label value, SHAP per class', async () => {
    const out = join(tmp, 'preds.csv')
    const r = await runMain(['predict', '--model', modelPath, '--table', TABLE, '--out', out, '--contribs'])
    expect(r.code, r.stderr).toBe(0)
    const [header, ...lines] = readFileSync(out, 'utf8').trim().split('\n')
    const shap = [0, 1, 2].flatMap(k => [...FEATURES.map(f => `shap_${f}_${k}`), `shap_bias_${k}`])
    expect(header.split(',')).toEqual([
      'margin_0',
      'margin_1',
      'margin_2',
      'prob_0',
      'prob_1',
      'prob_2',
      'prediction',
      ...shap,
    ])
    expect(lines).toHaveLength(marital.length)
    const want = predictMargins(booster, columns)
    let worst = 0,
      sumErr = 0
    lines.forEach((line, i) => {
      const cells = line.split(',')
      const m = cells.slice(0, 3).map(Number),
        p = cells.slice(3, 6).map(Number)
      for (let k = 0; k < 3; k++) worst = Math.max(worst, Math.abs(m[k] - want[i * 3 + k]))
      expect(Math.abs(p[0] + p[1] + p[2] - 1)).toBeLessThan(1e-5)
      const best = m.indexOf(Math.max(...m))
      expect(cells[6]).toBe(booster.labelValues![best])
      for (let k = 0; k < 3; k++) {
        const phi = cells.slice(7 + k * 3, 10 + k * 3).map(Number)
        sumErr = Math.max(sumErr, Math.abs(phi[0] + phi[1] + phi[2] - m[k]))
      }
    })
    expect(worst).toBeLessThanOrEqual(1e-5)
    expect(sumErr).toBeLessThanOrEqual(1e-4)
  }, 60_000)
})
