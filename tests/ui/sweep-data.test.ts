import { expect, test } from 'vitest'
import { bestSoFar, curvesData, normalise, parallelData } from '../../src/ui/sweep-chart-data.ts'
import { columnStats, rowsChanged } from '../../src/ui/column-stats.ts'
import { defaultForm, draftConfig } from '../../src/ui/sweep-draft.ts'
import { filterTrials, sortTrials } from '../../src/ui/trial-rows.ts'
import { trialsCsv } from '../../src/tune/export.ts'
import type { AddFile } from '../../src/table/types.ts'
import { trial } from './sweep-fakes.ts'

const T = [
  trial(0, 'completed', { eta: 0.1, depth: 3 }, 0.8),
  trial(1, 'stopped', { eta: 0.3, depth: 6 }, 0.7, 1),
  trial(2, 'failed', { eta: 0.05, depth: 4 }, undefined),
  trial(3, 'running', { eta: 0.2, depth: 2 }, 0.75, 2),
]

test('sorting by any column: numbers numerically, missing values last, both directions', () => {
  expect(sortTrials(T, 'metric', 'desc').map(t => t.id)).toEqual([0, 3, 1, 2])
  expect(sortTrials(T, 'metric', 'asc').map(t => t.id)).toEqual([1, 3, 0, 2])
  expect(sortTrials(T, 'param:eta', 'asc').map(t => t.id)).toEqual([2, 0, 3, 1])
  expect(sortTrials(T, 'status', 'asc').map(t => t.status)).toEqual(['completed', 'failed', 'running', 'stopped'])
})

test('filtering by status and by text in params and errors', () => {
  expect(filterTrials(T, { status: 'stopped', text: '' }).map(t => t.id)).toEqual([1])
  expect(filterTrials(T, { status: 'all', text: 'out of memory' }).map(t => t.id)).toEqual([2])
  expect(filterTrials(T, { status: 'all', text: '"depth":6' }).map(t => t.id)).toEqual([1])
  expect(filterTrials(T, { status: 'completed', text: 'depth":6' })).toEqual([])
})

test('trials CSV (the one trials.csv the page downloads and the CLI writes): header with params, one line per trial, quoting', () => {
  const csv = trialsCsv(
    [...T, trial(4, 'failed', { eta: 0.1, depth: 3 }, undefined)].map(t =>
      t.id === 4 ? { ...t, error: 'bad, "quoted"' } : t,
    ),
  )
  expect(csv.endsWith('\r\n')).toBe(true)
  const lines = csv.slice(0, -2).split('\r\n')
  expect(lines[0]).toBe(
    'trial,status,state,bracket,rung,resource,reached,promoted_from,metric,gpu_seconds,wall_seconds,error,depth,eta',
  )
  expect(lines).toHaveLength(6)
  expect(lines[1]).toBe('0,completed,,0,1,9,3,,0.8,0.25,1,,3,0.1')
  expect(lines[5]).toContain('"bad, ""quoted"""')
})

test('curves: one series per trial that reported, x = union of resources, gaps as null', () => {
  const { columns, trials: drawn } = curvesData(T)
  expect(drawn.map(t => t.id)).toEqual([0, 1, 3])
  expect(columns[0]).toEqual([1, 2, 3])
  expect(columns[2]).toEqual([0.7, null, null]) // trial 1 stopped after resource 1
  expect(columns[3]).toEqual([0.74, 0.75, null])
})

test('best so far only steps when a report improves (and the other way for minimise)', () => {
  const [x, y] = bestSoFar(T, 'maximize')
  expect(y).toEqual([...y].sort((a, b) => a! - b!))
  expect(y[y.length - 1]).toBe(0.8)
  expect(x.every((v, i) => i === 0 || v >= x[i - 1]!)).toBe(true)
  const [, lo] = bestSoFar(T, 'minimize')
  expect(lo[lo.length - 1]).toBe(0.7)
})

test('parallel coordinates: varying params + metric axis, values in [0, 1], log axes, failed trials left out', () => {
  const p = parallelData(T, 'maximize', { eta: { type: 'loguniform', low: 0.01, high: 0.3 } }, 'auc')
  expect(p.axes.map(a => a.name)).toEqual(['depth', 'eta', 'auc'])
  expect(p.axes[1]!.log).toBe(true)
  expect(p.lines.map(l => l.trial)).toEqual([0, 1, 3])
  for (const l of p.lines) for (const v of l.y) expect(v).toBeGreaterThanOrEqual(0), expect(v).toBeLessThanOrEqual(1)
  expect(p.lines[0]!.score).toBe(1) // best metric
  expect(normalise(p.axes[1]!, Math.sqrt(0.1 * 0.3))).toBeCloseTo(0.5)
  const cat = parallelData([trial(0, 'completed', { g: 'a' }, 0.5), trial(1, 'completed', { g: 'b' }, 0.6)], 'minimize')
  expect(cat.axes[0]!.categories).toEqual(['"a"', '"b"'])
  expect(cat.lines[0]!.score).toBe(1) // lower is better when minimising
})

test('draft config: form errors name the field; all features → features omitted', () => {
  const cols = ['age', 'job', 'y']
  const form = defaultForm('gbdt', { eta: { type: 'uniform', low: 0.1, high: 0.3 } }, 'y', ['age', 'job'])
  const ok = draftConfig(form, { url: 'http://h/t/', version: 2 }, cols)
  expect(ok.errors).toEqual([])
  expect(ok.config).toMatchObject({
    model: 'gbdt',
    table: 'http://h/t/',
    version: 2,
    label: 'y',
    strategy: 'hyperband',
    validFraction: 0.2,
    seed: 0,
  })
  expect(ok.config).not.toHaveProperty('eta') // blank = the engine's default
  expect(draftConfig({ ...form, eta: '2', maxResource: '9' }, { url: 'u' }, cols).config).toMatchObject({
    eta: 2,
    maxResource: 9,
  })
  expect(ok.config!.features).toBeUndefined()
  expect(draftConfig({ ...form, features: ['age'] }, { url: 'u' }, cols).config!.features).toEqual(['age'])
  const bad = draftConfig({ ...form, spaceText: '{"eta": ', trials: 'x', features: [] }, { url: 'u' }, cols)
  expect(bad.config).toBeUndefined()
  expect(bad.errors.join('\n')).toMatch(/space: not valid JSON/)
  expect(bad.errors.join('\n')).toMatch(/trials: "x" is not a number/)
  expect(bad.errors.join('\n')).toMatch(/features: choose at least one/)
})

test('column stats over files and rows added / removed per commit', () => {
  const file = (min: number, max: number, nulls: number) =>
    ({
      stats: { minValues: { a: min, s: 'b' }, maxValues: { a: max, s: 'x' }, nullCount: { a: nulls, s: 0 } },
    }) as unknown as AddFile
  expect(columnStats([file(3, 9, 1), file(-2, 5, 2)], 'a')).toEqual({ min: -2, max: 9, nulls: 3 })
  expect(columnStats([file(3, 9, 1), {} as AddFile], 'a')).toEqual({})
  expect(
    rowsChanged({ version: 1, timestamp: 0, operation: 'WRITE', operationMetrics: { numOutputRows: '20000' } }),
  ).toEqual({ added: 20000, removed: undefined })
  expect(
    rowsChanged({
      version: 2,
      timestamp: 0,
      operation: 'DELETE',
      operationMetrics: { numDeletedRows: '6550', numCopiedRows: '1' },
    }),
  ).toEqual({ added: undefined, removed: 6550 })
})
