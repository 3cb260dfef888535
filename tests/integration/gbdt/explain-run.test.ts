/**
 * A finished run's explanation in Node (CPU): a short run on marketing, then runExplain with the
 * same config reads the run's validation rows again and returns every importance type of the
 * model and SHAP values whose rows sum to the model's margins, and the partial dependence of
 * monotone-constrained features; a multiclass run's SHAP per class with its label values (and the
 * run's num_class, inferred from the string label, said once and recorded in the manifest).
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { evenRows, runExplain } from '../../../src/models/gbdt/explain-run.ts'
import { allImportances } from '../../../src/models/gbdt/importance.ts'
import { predictMargins } from '../../../src/models/gbdt/predict.ts'
import { categoriesOf } from '../../../src/models/gbdt/model-attributes.ts'
import { fromXGBoostJson } from '../../../src/models/gbdt/xgboost-json.ts'
import type { TrainConfig } from '../../../src/run/config.ts'
import { runTraining } from '../../../src/run/pipeline.ts'
import { PROJECT_ROOT } from '../../../src/serve/page-server.ts'
import { serveDirectory, type ServedDirectory } from '../../../src/serve/server.ts'

let server: ServedDirectory
beforeAll(async () => {
  server = await serveDirectory(join(PROJECT_ROOT, 'public', 'tables'))
})
afterAll(async () => {
  await server?.close()
})

describe('evenRows', () => {
  it('keeps every row under the limit, else evenly spaced rows from the first', () => {
    const c = [Float32Array.from({ length: 10 }, (_, i) => i)]
    expect(Array.from(evenRows(c, 10, 20)[0])).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    expect(Array.from(evenRows(c, 10, 4)[0])).toEqual([0, 2, 5, 7])
    expect(evenRows(c, 10, 1)[0]).toHaveLength(1)
  })
})

describe('runExplain (CPU, in Node)', () => {
  const config = (): TrainConfig & { model?: 'gbdt' } => ({
    table: `${server.url}marketing/`,
    label: 'y',
    validFraction: 0.2,
    seed: 3,
    params: { num_round: 4, max_depth: 3 },
    backend: 'cpu',
    workers: 0,
  })

  it('importance of the model and SHAP of evenly spaced validation rows, each row summing to its margin', async () => {
    const run = config()
    const r = await runTraining(run)
    const e = await runExplain({ run, model: r.model, rows: 300 })
    const booster = fromXGBoostJson(r.model)
    expect(e.features).toEqual(booster.featureNames)
    expect(e.features).toContain('job')
    expect(e.importance).toEqual(allImportances(booster))
    expect(e.validRows).toBe(r.summary.rows_valid)
    expect(e.rows).toBe(300)
    expect(e.adapter).toBe('cpu (reference)')
    const F = e.features.length
    expect(e.shap).toHaveLength(300 * (F + 1))
    expect(e.values).toHaveLength(300 * F)
    const columns = e.features.map((_, f) => Float32Array.from({ length: e.rows }, (_, i) => e.values[i * F + f]))
    const margins = predictMargins(booster, columns)
    let worst = 0
    for (let i = 0; i < e.rows; i++) {
      let sum = 0
      for (let f = 0; f <= F; f++) sum += e.shap[i * (F + 1) + f]
      worst = Math.max(worst, Math.abs(sum - margins[i]))
    }
    expect(worst).toBeLessThan(1e-4)
    expect(e.meanAbsShap.map(m => m.feature).sort()).toEqual([...e.features].sort())
    const means = e.meanAbsShap.map(m => m.mean_abs_shap)
    expect(means).toEqual([...means].sort((a, b) => b - a))
    expect(means[0]).toBeGreaterThan(0)
    // Categorical features carry their categories (the run's dictionaries, as the model stores them): code c names categories[c].
    const dictionaries = categoriesOf(JSON.parse(r.model as string))
    expect(Object.keys(e.categories ?? {}).sort()).toEqual(Object.keys(dictionaries).sort())
    expect(e.categories?.job).toEqual(dictionaries.job)
    expect(e.categories?.age).toBeUndefined()
    const job = e.features.indexOf('job')
    for (let i = 0; i < e.rows; i++) {
      const code = e.values[i * F + job]
      if (!Number.isNaN(code)) expect(e.categories!.job[code]).toBeTypeOf('string')
    }
  })

  it('a multiclass run (string label, num_class inferred): said once, recorded; SHAP per class with the label values', async () => {
    const run = {
      ...config(),
      label: 'marital',
      features: ['age', 'balance', 'job'],
      params: { objective: 'multi:softprob', num_round: 2, max_depth: 3 },
    }
    const stages: string[] = []
    const r = await runTraining(run, p => p.kind === 'stage' && stages.push(p.message))
    expect(stages.filter(m => m.includes('classes from label'))).toEqual([
      '3 classes from label marital: divorced, married, single (num_class inferred: its distinct values, sorted)',
    ])
    expect(r.manifest.params.num_class).toBe(3)
    // num_class given: nothing to say.
    stages.length = 0
    await runTraining({ ...run, params: { ...run.params, num_class: 3, num_round: 1 } }, p => {
      if (p.kind === 'stage') stages.push(p.message)
    })
    expect(stages.some(m => m.includes('classes from label'))).toBe(false)
    const e = await runExplain({ run, model: r.model, rows: 200 })
    const F = e.features.length
    expect([e.classes, e.labelValues]).toEqual([3, ['divorced', 'married', 'single']])
    expect(e.shap).toHaveLength(200 * 3 * (F + 1))
    expect(e.partialDependence).toBeUndefined()
    // Each class's means, largest first; summed over the classes they are the overall bars.
    const byClass = e.meanAbsShapByClass!
    expect(byClass).toHaveLength(3)
    for (const means of byClass)
      expect(means.map(m => m.mean_abs_shap)).toEqual(means.map(m => m.mean_abs_shap).sort((a, b) => b - a))
    for (const { feature, mean_abs_shap } of e.meanAbsShap) {
      const sum = byClass.reduce((s, means) => s + means.find(m => m.feature === feature)!.mean_abs_shap, 0)
      expect(mean_abs_shap).toBeCloseTo(sum, 12)
    }
  })

  it('partial dependence of each monotone-constrained feature, in its direction; none without constraints', async () => {
    const run = { ...config(), params: { num_round: 6, max_depth: 3, monotone_constraints: { age: 1, balance: -1 } } }
    const r = await runTraining(run)
    const e = await runExplain({ run, model: r.model, rows: 300 })
    expect(e.partialDependence!.map(c => [c.feature, c.constraint])).toEqual([
      ['age', 1],
      ['balance', -1],
    ])
    for (const c of e.partialDependence!) {
      expect(c.grid.length).toBeGreaterThan(5)
      c.mean.forEach((m, i) => {
        if (i > 0) expect((m - c.mean[i - 1]) * c.constraint).toBeGreaterThanOrEqual(0)
      })
    }
    const free = config()
    const plain = await runExplain({ run: free, model: (await runTraining(free)).model, rows: 50 })
    expect(plain.partialDependence).toBeUndefined()
  })

  it('refuses a run without validation rows, a model of other features, and a bad row count', async () => {
    const run = config()
    const r = await runTraining({ ...run, params: { num_round: 1, max_depth: 2 } })
    const unsplit = { ...run, validFraction: undefined }
    await expect(runExplain({ run: unsplit, model: r.model })).rejects.toThrow(
      /explain: the run on .* has no validation rows/,
    )
    const other = r.model.replace('"feature_names":["', '"feature_names":["renamed_')
    await expect(runExplain({ run, model: other })).rejects.toThrow(/explain: the model's features \(renamed_/)
    await expect(runExplain({ run, model: r.model, rows: 0 })).rejects.toThrow(/explain rows: must be a whole number/)
  })
})
