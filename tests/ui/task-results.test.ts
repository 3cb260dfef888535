/**
 * The page's per-task results (issue 29): the view a run's task calls for — a regression's
 * predicted vs actual and residuals without ROC, a multiclass K × K confusion matrix with
 * per-class scores, ROC for binary only, nothing for ranking — the partial dependence charts of
 * monotone features (a model trained here, CPU reference), ranking metrics on the curve's
 * higher-is-better axis, and st-app picking the view by the run's objective and keeping a sample.
 */
import { afterEach, expect, test } from 'vitest'
import '../../src/ui/run-results.ts'
import '../../src/ui/partial-dependence.ts'
import '../../src/ui/train-curve.ts'
import '../../src/ui/app.ts'
import type { SnaptrainApi, StoredRunData, TrainResult } from '../../src/api-types.ts'
import type { ValidationScores } from '../../src/run/config.ts'
import { SAMPLE_ROWS } from '../../src/ui/result-data.ts'
import { train } from '../../src/models/gbdt/driver.ts'
import { parseParams } from '../../src/models/gbdt/params.ts'
import { monotoneDependence } from '../../src/models/gbdt/partial-dependence.ts'
import { Rng } from '../../src/util/rng.ts'
import { cleanup, fixture, textOf, waitFor } from './fixture.ts'

afterEach(cleanup)

const shadow = (el: Element, sel: string) => el.shadowRoot!.querySelector(sel) as HTMLElement | null

/** V regression rows: y uniform in [0, 10), predictions y + noise. */
function regressionRows(V: number): ValidationScores {
  const rng = new Rng(1)
  const labels = Float32Array.from({ length: V }, () => rng.uniform(0, 10))
  return { labels, scores: labels.map(y => y + 0.5 * rng.normal()) }
}

test('a regression result: predicted vs actual on a sample, residuals and their histogram, the metrics; no ROC', async () => {
  const el = await fixture('st-run-results', {
    task: 'regression',
    validation: regressionRows(3000),
    metrics: { rmse: 0.5012, mae: 0.4 },
  })
  expect(el.dataset.task).toBe('regression')
  expect(shadow(el, 'st-run-curves')).toBeNull()
  const view = shadow(el, 'st-regression-results')!
  await (view as unknown as { updateComplete: Promise<void> }).updateComplete
  expect(view.dataset.points).toBe(String(SAMPLE_ROWS))
  expect(view.dataset.rows).toBe('3000')
  expect(textOf(view)).toContain('rmse 0.5012 · mae 0.4 · R² 0.9')
  expect(textOf(view)).toContain('a sample of 2,000')
  for (const chart of ['scatter', 'residuals', 'histogram']) {
    const c = await waitFor(() => shadow(view, `st-line-chart.${chart}`)?.dataset.lines)
    expect(c).toBe('1')
    expect(shadow(view, `st-line-chart.${chart}`)!.shadowRoot!.querySelector('canvas')).not.toBeNull()
  }
  expect(textOf(view)).not.toMatch(/ROC|threshold/)
})

test('a multiclass result: a K × K matrix summing to the rows, its diagonal the correct rows, per-class scores', async () => {
  const K = 4,
    V = 600
  const rng = new Rng(2)
  const labels = Float32Array.from({ length: V }, () => rng.int(K))
  const scores = new Float32Array(V * K)
  for (let i = 0; i < V; i++) {
    let sum = 0
    for (let k = 0; k < K; k++) sum += scores[i * K + k] = rng.next() + (k === labels[i] ? 0.5 : 0)
    for (let k = 0; k < K; k++) scores[i * K + k] /= sum
  }
  const names = ['cat', 'dog', 'emu', 'fox']
  const el = await fixture('st-run-results', { task: 'multiclass', validation: { labels, scores, labelValues: names } })
  expect(shadow(el, 'st-run-curves')).toBeNull()
  const view = shadow(el, 'st-multiclass-results')!
  await (view as unknown as { updateComplete: Promise<void> }).updateComplete
  const cells = [...view.shadowRoot!.querySelectorAll<HTMLElement>('table.confusion-matrix td')]
  expect(cells).toHaveLength(K * K)
  const cell = (t: number, p: number) =>
    Number(cells.find(c => c.dataset.true === String(t) && c.dataset.pred === String(p))!.textContent)
  let correct = 0
  const support = new Array<number>(K).fill(0)
  for (let i = 0; i < V; i++) {
    let best = 0
    for (let k = 1; k < K; k++) if (scores[i * K + k] > scores[i * K + best]) best = k
    if (best === labels[i]) correct++
    support[labels[i]]++
  }
  expect(cells.reduce((a, c) => a + Number(c.textContent), 0)).toBe(V)
  expect([0, 1, 2, 3].reduce((a, k) => a + cell(k, k), 0)).toBe(correct)
  const header = [...view.shadowRoot!.querySelectorAll('table.confusion-matrix tr:first-child th')].map(
    th => th.textContent,
  )
  expect(header.slice(1)).toEqual(names)
  const perClass = [...view.shadowRoot!.querySelectorAll('table.per-class tr[data-class]')]
  expect(perClass.map(r => r.querySelector('th')!.textContent)).toEqual(names)
  expect(perClass.map(r => Number(r.querySelectorAll('td')[3].textContent))).toEqual(support)
  expect(textOf(view)).toContain(`accuracy ${(correct / V).toFixed(3)}`)
  // A row without K probabilities is refused in words, not drawn wrong.
  el.validation = { labels, scores: labels }
  await el.updateComplete
  await (view as unknown as { updateComplete: Promise<void> }).updateComplete
  expect(textOf(view)).toContain('not K ≥ 2 per row')
})

test('binary results are the ROC view; ranking has none (its NDCG per round is the curve)', async () => {
  const labels = Float32Array.from([0, 1, 0, 1]),
    scores = Float32Array.from([0.1, 0.8, 0.4, 0.6])
  const binary = await fixture('st-run-results', { task: 'binary', validation: { labels, scores } })
  expect(shadow(binary, 'st-run-curves')).not.toBeNull()
  const ranking = await fixture('st-run-results', { task: 'ranking', validation: { labels, scores } })
  expect(ranking.shadowRoot!.children).toHaveLength(0)
})

test('the ranking metrics are curve series by name on the higher-is-better axis', async () => {
  const history = [
    { 'ndcg@10': 0.61, 'map@5': 0.5, 'pre@3': 0.4, mlogloss: 1.2 },
    { 'ndcg@10': 0.66, 'map@5': 0.55, 'pre@3': 0.45, mlogloss: 1.1 },
  ]
  const el = await fixture('st-train-curve', { history })
  const plot = (
    el as unknown as {
      chart: { plot: { series: Array<{ label: string; scale: string }>; axes: Array<{ label: string }> } }
    }
  ).chart.plot
  expect(plot.series.slice(1).map(s => [s.label, s.scale])).toEqual([
    ['ndcg@10', 'auc'],
    ['map@5', 'auc'],
    ['pre@3', 'auc'],
    ['mlogloss', 'loss'],
  ])
  expect(plot.axes[1].label).toBe('ndcg@10, map@5, pre@3 (higher is better)')
  expect(plot.axes[2].label).toBe('loss (lower is better)')
})

test('partial dependence of a model trained with monotone constraints: the +1 curve never decreases', async () => {
  const rng = new Rng(4)
  const n = 1200
  const columns = [0, 1].map(() => Float32Array.from({ length: n }, () => rng.uniform(-1, 1)))
  // Up in x0 only on average (the sine), so an unconstrained model's curve goes down somewhere.
  const labels = Float32Array.from({ length: n }, (_, i) => columns[0][i] + Math.sin(4 * columns[0][i]) + columns[1][i])
  const data = { columns, labels, featureNames: ['x0', 'x1'] }
  const base = { objective: 'reg:squarederror', max_depth: 4, eta: 0.3, num_round: 8, max_bin: 64, base_score: 0 }
  const names = ['x0', 'x1'],
    monotone = Int8Array.from([1, 0])
  const constrained = await train(data, parseParams({ ...base, monotone_constraints: '(1,0)' }))
  const free = await train(data, parseParams(base))
  const curves = [
    ...monotoneDependence(constrained, columns, names, monotone),
    { ...monotoneDependence(free, columns, names, monotone)[0], feature: 'x0 free' },
  ]
  const mean = curves[0].mean
  expect(mean.every((m, i) => i === 0 || m >= mean[i - 1])).toBe(true)
  expect(mean[mean.length - 1]).toBeGreaterThan(mean[0])
  const el = await fixture('st-partial-dependence', { curves })
  const charts = [...el.shadowRoot!.querySelectorAll<HTMLElement>('st-line-chart')]
  expect(charts.map(c => [c.dataset.feature, c.dataset.monotone])).toEqual([
    ['x0', 'yes'],
    ['x0 free', 'no'],
  ])
  expect(textOf(el)).toContain('Partial dependence')
  await waitFor(() => charts[0].dataset.lines === '1')
})

test('st-app shows a regression run by its objective: scatter and residuals, no ROC; the Runs list keeps a sample', async () => {
  const validation = regressionRows(2500)
  const saved: StoredRunData[] = []
  const result = {
    model: '{}',
    manifest: { params: { objective: 'reg:squarederror' } } as unknown as TrainResult['manifest'],
    metrics: [{ rmse: 0.5 }],
    summary: {
      model: 'gbdt',
      auc: null,
      logloss: null,
      eval: { rmse: 0.5 },
      rounds: 1,
      best_iteration: 0,
      train_seconds: 0.01,
      rows_train: 10,
      rows_valid: 2500,
      rows_per_second: 1,
      adapter: 'fake',
    },
    validation,
  }
  const field = (name: string) => ({ name, type: 'double', nullable: true, metadata: {} })
  const api = {
    version: '0',
    adapterInfo: async () => ({
      vendor: 'v',
      architecture: '',
      device: '',
      description: '',
      isFallbackAdapter: false,
      features: [],
      limits: {},
    }),
    listTables: async () => [{ name: 'm', url: 'http://h/m/' }],
    listCommits: async () => [{ version: 0, timestamp: 0, operation: 'WRITE' }],
    openSnapshot: async (url: string) => ({
      tableUrl: url,
      version: 0,
      timestamp: 0,
      protocol: { minReaderVersion: 1, minWriterVersion: 2 },
      metadata: { id: 'i', format: { provider: 'parquet' }, schemaString: '', partitionColumns: [], configuration: {} },
      schema: { type: 'struct', fields: [field('x'), field('y')] },
      partitionColumns: [],
      columnMapping: 'none',
      files: [],
    }),
    readRows: async () => [],
    train: async () => result,
    runFiles: async () => [{ name: 'model.json', bytes: new Uint8Array() }],
    listRuns: async () => [],
    saveRun: async (_run: unknown, data: StoredRunData) => {
      saved.push(data)
    },
    explain: async () => {
      throw new Error('fake api: explain not scripted')
    },
  } as unknown as SnaptrainApi
  const app = document.createElement('st-app')
  Object.assign(app, { api })
  document.body.append(app)
  const q = (sel: string) => app.shadowRoot!.querySelector(sel) as HTMLElement | null
  await waitFor(() => q('st-table-list')?.shadowRoot?.querySelector('button'))
  ;(q('st-table-list')!.shadowRoot!.querySelector('button') as HTMLButtonElement).click()
  const panel = await waitFor(() => q('st-train-panel'))
  const submit = await waitFor(() => panel.shadowRoot?.querySelector<HTMLButtonElement>('button[type=submit]'))
  submit.click()
  // The run's view (#/runs/<id>) shows the run this page trained with all its validation rows.
  const results = await waitFor(() => q('[data-view=run] st-run-results'))
  expect(results.dataset.task).toBe('regression')
  const view = await waitFor(() => shadow(results, 'st-regression-results'))
  await waitFor(() => view.dataset.rows === '2500')
  expect(shadow(view, 'st-line-chart.scatter')).not.toBeNull()
  expect(shadow(view, 'st-line-chart.residuals')).not.toBeNull()
  expect(q('st-run-curves')).toBeNull()
  expect(shadow(results, 'st-run-curves')).toBeNull()
  await waitFor(() => saved.length === 1)
  expect(saved[0].validation!.labels.length).toBe(SAMPLE_ROWS)
})
