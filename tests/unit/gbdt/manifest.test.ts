/**
 * Run manifest and its companions: metrics.csv round trip, the pinned table description, the
 * model attributes carrying categorical dictionaries. The whole CPU training run whose manifest
 * records them: tests/integration/gbdt/manifest-run.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { manifestTable, metricsCsv, parseMetricsCsv, tableDigest } from '../../../src/run/manifest.ts'
import { withAttributes, categoriesOf, CATEGORIES_ATTRIBUTE } from '../../../src/models/gbdt/model-attributes.ts'
import { runParams } from '../../../src/models/gbdt/family.ts'
import type { ScanPlan } from '../../../src/data/types.ts'

describe('metrics.csv', () => {
  it('one line per round counted from 1 (as the chart), columns in first-seen order, round-trips', () => {
    const history: Array<Record<string, number>> = [
      { auc: 0.7, logloss: 0.3, 'train-auc': 0.8, 'train-logloss': 0.2 },
      { auc: 0.75, logloss: 0.25, 'train-auc': 0.85, 'train-logloss': 0.15 },
      { logloss: 0.2 },
    ]
    const text = metricsCsv(history)
    const lines = text.trim().split('\n')
    expect(lines[0]).toBe('round,auc,logloss,train-auc,train-logloss')
    expect(lines).toHaveLength(4)
    expect(lines.slice(1).map(l => l.split(',')[0])).toEqual(['1', '2', '3'])
    expect(lines[3]).toBe('3,,0.2,,')
    expect(parseMetricsCsv(text)).toEqual(history.map((m, r) => ({ round: r + 1, ...m })))
    expect(() => parseMetricsCsv('x,auc\n1,1')).toThrow(/round/)
  })
})

describe('manifestTable', () => {
  it('pins url, version, digest, files and rows of a plan', () => {
    const plan = {
      tableUrl: 'http://h/t/',
      version: 3,
      digest: 'abc',
      columns: [],
      files: [{ path: 'a.parquet', size: 10, metadata: { num_rows: 5n }, partitionValues: {} }],
      units: [],
      stats: { rows: 5 },
    } as unknown as ScanPlan
    expect(manifestTable(plan, { address: 'file:///data/t/', path: '/data/t' })).toEqual({
      url: 'file:///data/t/',
      path: '/data/t',
      version: 3,
      digest: tableDigest(plan),
      files: [{ path: 'a.parquet', size: 10 }],
      rows: 5,
    })
    expect(manifestTable(plan).url).toBe('http://h/t/')
  })
})

describe('model attributes', () => {
  const base = { learner: { attributes: {}, feature_names: ['a'] }, version: [2, 0, 0] }
  it('adds sorted string attributes and reads the dictionaries back', () => {
    const j = withAttributes(base, { [CATEGORIES_ATTRIBUTE]: JSON.stringify({ job: ['a', 'b'] }), other: 'x' }) as any
    expect(Object.keys(j.learner.attributes)).toEqual(['other', CATEGORIES_ATTRIBUTE])
    expect(j.learner.feature_names).toEqual(['a'])
    expect(categoriesOf(j)).toEqual({ job: ['a', 'b'] })
    const withExisting = withAttributes({ learner: { attributes: { best_iteration: '3' } } }, { k: 'v' }) as any
    expect(withExisting.learner.attributes).toEqual({ k: 'v', best_iteration: '3' })
    expect(withAttributes(base, {})).toEqual(base)
    expect(categoriesOf(base)).toEqual({})
    expect(() => withAttributes({ x: 1 }, { k: 'v' })).toThrow(/no learner/)
    expect(() => categoriesOf({ learner: { attributes: { [CATEGORIES_ATTRIBUTE]: '{"a":[1]}' } } })).toThrow(
      /a is not a list of strings/,
    )
  })
})

describe('runParams', () => {
  it('--seed fills params.seed unless given; binary runs report auc and logloss by default', () => {
    expect(runParams({ params: {}, seed: 9 }).seed).toBe(9)
    expect(runParams({ params: { seed: 2 }, seed: 9 }).seed).toBe(2)
    expect(runParams({ params: {} }).eval_metric).toEqual(['auc', 'logloss'])
    expect(runParams({ params: { eval_metric: 'error' } }).eval_metric).toEqual(['error'])
    expect(runParams({ params: { objective: 'reg:squarederror' } }).eval_metric).toEqual(['rmse'])
    expect(() => runParams({ params: { max_bin: 1000 } })).toThrow(/max_bin/)
  })
})
