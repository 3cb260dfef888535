/**
 * The single run's components: the train panel's progress line and Stop (`train-stop`), the home
 * list (runs and sweeps, links, compare and delete on user action only, the tag filter), the curves' confusion matrix
 * following the threshold, the comparison's parameter diff and overlaid curves, and the line
 * chart following its column's width.
 */
import { afterEach, expect, test } from 'vitest'
import '../../src/ui/train-panel.ts'
import '../../src/ui/home-list.ts'
import { runLine } from '../../src/ui/run-list.ts'
import { sweepState, trial } from './sweep-fakes.ts'
import '../../src/ui/run-curves.ts'
import '../../src/ui/run-compare.ts'
import '../../src/ui/line-chart.ts'
import { progressText } from '../../src/ui/train-panel.ts'
import type { StoredRun } from '../../src/api-types.ts'
import { cleanup, fixture, record, textOf, waitFor } from './fixture.ts'

afterEach(cleanup)

function storedRun(id: string, params: Record<string, unknown>, stopped = false): StoredRun {
  return {
    id,
    createdAt: `2026-12-01T00:00:0${id.length}Z`,
    table: { name: 'marketing', url: 'http://h/tables/marketing/', version: 0 },
    model: 'gbdt',
    label: 'y',
    params,
    summary: { auc: 0.8, logloss: 0.4, rounds: 2 } as StoredRun['summary'],
    metrics: [
      { auc: 0.7, logloss: 0.5 },
      { auc: 0.8, logloss: 0.4 },
    ],
    manifest: {} as StoredRun['manifest'],
    modelFile: 'model.json',
    ...(stopped ? { stopped: { at_round: 2, reason: 'user' as const } } : {}),
  }
}

test('train panel: progress with elapsed and remaining time, Stop fires train-stop once pressed', async () => {
  const progress = { unit: 'round' as const, done: 3, total: 20, elapsedMs: 1500, etaMs: 8500 }
  expect(progressText(progress)).toBe('3 / 20 rounds · 1.5 s elapsed · about 8.5 s left')
  const panel = await fixture('st-train-panel', { state: 'loading', stage: 'round 3 / 20', progress })
  const stops = record(panel, 'train-stop')
  expect(textOf(panel)).toContain('3 / 20 rounds · 1.5 s elapsed')
  expect(stops).toHaveLength(0)
  ;(panel.shadowRoot!.querySelector('button.stop') as HTMLButtonElement).click()
  expect(stops).toHaveLength(1)
  panel.stopping = true
  await panel.updateComplete
  expect((panel.shadowRoot!.querySelector('button.stop') as HTMLButtonElement).disabled).toBe(true)
})

test('home list: runs and sweeps newest first, linked to their views; compare and delete fire on clicks only; tag filter', async () => {
  const sweep = { ...sweepState('sw1', [trial(0, 'completed', { eta: 0.1 }, 0.8)]), createdAt: '2026-12-01T00:00:02Z' }
  const tagged = {
    ...storedRun('b', {}),
    createdAt: '2026-12-01T00:00:03Z',
    name: 'marketing-gbdt-2',
    tags: ['baseline'],
  }
  const list = await fixture('st-home-list', { runs: [tagged, storedRun('a', {}, true)], sweeps: [sweep] })
  const seen = [record(list, 'run-compare'), record(list, 'run-delete'), record(list, 'sweep-delete')]
  list.compared = ['a']
  await list.updateComplete
  expect(seen.flat()).toEqual([])
  const rows = () => [...list.shadowRoot!.querySelectorAll('tbody tr')] as HTMLElement[]
  // b (…03Z), the sweep (…02Z), a (…01Z); a run kept before names existed gets table-model-id.
  expect(rows().map(r => r.dataset.run ?? r.dataset.sweep)).toEqual(['b', 'sw1', 'a'])
  expect(rows().map(r => r.querySelector('td.name a')!.getAttribute('href'))).toEqual([
    '#/runs/b',
    '#/sweeps/sw1',
    '#/runs/a',
  ])
  expect(rows()[2].querySelector('td.name a')!.textContent).toBe('marketing-gbdt-a')
  expect(rows()[2].querySelector('td.status')!.textContent).toBe('stopped')
  expect(rows()[0].querySelector('td.status')!.textContent).toBe('finished')
  expect(rows()[0].querySelector('td.metric')!.textContent).toBe('AUC 0.8000')
  expect(rows()[1].textContent).toContain('m@v0')
  expect(list.shadowRoot!.querySelector('a.compare-link')).toBeNull()
  ;(rows()[0].querySelector('input.compare') as HTMLInputElement).click()
  ;(rows()[2].querySelector('button.delete') as HTMLButtonElement).click()
  ;(rows()[1].querySelector('button.delete') as HTMLButtonElement).click()
  expect(seen).toEqual([[{ id: 'b', on: true }], [{ id: 'a' }], [{ id: 'sw1' }]])
  list.compared = ['a', 'b']
  await list.updateComplete
  expect(list.shadowRoot!.querySelector('a.compare-link')!.getAttribute('href')).toBe('#/compare/a/b')
  // The filter matches tags (and names, tables, models).
  const filter = list.shadowRoot!.querySelector('input.filter') as HTMLInputElement
  filter.value = 'Baseline'
  filter.dispatchEvent(new Event('input'))
  await list.updateComplete
  expect(rows().map(r => r.dataset.run ?? r.dataset.sweep)).toEqual(['b'])
  filter.value = ''
  filter.dispatchEvent(new Event('input'))
  // A run without AUC (a regression) shows its last metric, the one early stopping watches.
  const regression = storedRun('c', {})
  regression.summary = {
    ...regression.summary,
    auc: null,
    logloss: null,
    eval: { mae: 1.5, 'tweedie-nloglik@1.5': 2.25 },
  }
  // A multiclass run with a (one-vs-rest) AUC shows its last metric too; so does a ranking run.
  const multiclass = storedRun('dd', { objective: 'multi:softprob', eval_metric: ['auc', 'merror', 'mlogloss'] })
  multiclass.summary = {
    ...multiclass.summary,
    auc: 0.93,
    logloss: null,
    eval: { auc: 0.93, merror: 0.125, mlogloss: 0.4 },
  }
  const ranking = storedRun('eee', { objective: 'rank:ndcg', eval_metric: ['auc', 'ndcg@5'] })
  ranking.summary = { ...ranking.summary, auc: 0.7, logloss: null, eval: { auc: 0.7, 'ndcg@5': 0.8125 } }
  const quiet = storedRun('ffff', { objective: 'reg:squarederror' })
  quiet.summary = { ...quiet.summary, auc: null, logloss: null }
  list.runs = [regression, multiclass, ranking, quiet]
  list.sweeps = []
  await list.updateComplete
  expect(rows().map(r => r.querySelector('td.metric')!.textContent)).toEqual([
    'no validation metric',
    'ndcg@5 0.8125',
    'mlogloss 0.4000',
    'tweedie-nloglik@1.5 2.2500',
  ])
  expect(runLine(multiclass)).toBe('gbdt · 2 rounds · mlogloss 0.4000')
})

test('curves: the confusion matrix follows the threshold; the ROC area is shown', async () => {
  const series = [
    {
      name: 'r',
      colour: '#000',
      scores: new Float32Array([0.9, 0.6, 0.4, 0.1]),
      labels: new Float32Array([1, 0, 1, 0]),
    },
  ]
  const curves = await fixture('st-run-curves', { series })
  expect(curves.dataset.auc).toBe('0.75')
  const cell = (c: string) => curves.shadowRoot!.querySelector(`td.${c}`)!.textContent
  expect([cell('tp'), cell('fp'), cell('tn'), cell('fn')]).toEqual(['1', '1', '1', '1'])
  const box = curves.shadowRoot!.querySelector('input#threshold') as HTMLInputElement
  box.value = '0.3'
  box.dispatchEvent(new Event('change'))
  await curves.updateComplete
  expect([cell('tp'), cell('fp'), cell('tn'), cell('fn')]).toEqual(['2', '1', '1', '0'])
})

test('curves: the threshold starts where as many rows are called positive as are positive (10 % base rate), not 0.5', async () => {
  // 20 rows, scores 0 … 0.475 (all below 0.5), the top two positive: 0.5 would call none positive.
  const scores = Float32Array.from({ length: 20 }, (_, i) => i / 40)
  const labels = Float32Array.from({ length: 20 }, (_, i) => (i >= 18 ? 1 : 0))
  const curves = await fixture('st-run-curves', { series: [{ name: 'r', colour: '#000', scores, labels }] })
  const t = Number(curves.dataset.threshold)
  expect(t).toBeGreaterThan(0.425)
  expect(t).toBeLessThanOrEqual(0.45)
  expect((curves.shadowRoot!.querySelector('input#threshold') as HTMLInputElement).value).toBe(String(t))
  const cell = (c: string) => curves.shadowRoot!.querySelector(`td.${c}`)!.textContent
  expect([cell('tp'), cell('fp'), cell('tn'), cell('fn')]).toEqual(['2', '0', '18', '0'])
  // The user's threshold stays while the same run is shown; another run's scores start it again.
  const box = curves.shadowRoot!.querySelector('input#threshold') as HTMLInputElement
  box.value = '0.1'
  box.dispatchEvent(new Event('change'))
  await curves.updateComplete
  curves.series = [...curves.series]
  await curves.updateComplete
  expect(curves.dataset.threshold).toBe('0.1')
  curves.series = [{ name: 'r2', colour: '#000', scores: scores.map(x => x + 0.5), labels }]
  await curves.updateComplete
  expect(Number(curves.dataset.threshold)).toBeGreaterThan(0.925)
})

test('compare: differing parameters marked, learning curves of both runs', async () => {
  const runs = [
    { run: storedRun('a', { eta: 0.3, max_depth: 2 }), colour: '#111' },
    { run: storedRun('b', { eta: 0.1, max_depth: 2 }), colour: '#222' },
  ]
  const view = await fixture('st-run-compare', { runs })
  const row = (k: string) => view.shadowRoot!.querySelector(`tr[data-param=${k}]`)!
  expect(row('eta').classList.contains('differs')).toBe(true)
  expect(row('max_depth').classList.contains('differs')).toBe(false)
  const chart = view.shadowRoot!.querySelector('st-line-chart.learning') as HTMLElement & {
    updateComplete: Promise<void>
  }
  await chart.updateComplete
  expect(chart.dataset.lines).toBe('2')
})

test('line chart: drawn at its column width (at most 360 px) and redrawn when the column changes', async () => {
  const column = document.createElement('div')
  column.style.width = '240px'
  document.body.append(column)
  const chart = document.createElement('st-line-chart')
  chart.lines = [{ name: 'a', colour: '#111', xs: [0, 0.5, 1], ys: [0, 0.8, 1] }]
  column.append(chart)
  await chart.updateComplete
  const plotWidth = () => (chart.shadowRoot!.querySelector('.uplot') as HTMLElement | null)?.offsetWidth
  expect(await waitFor(() => plotWidth())).toBe(240)
  column.style.width = '300px'
  await waitFor(() => plotWidth() === 300)
  column.style.width = '900px'
  await waitFor(() => plotWidth() === 360)
})
