/**
 * The single run's components: the train panel's progress line and Stop (`train-stop`), the Runs
 * list's events (download, compare, delete) on user action only, the curves' confusion matrix
 * following the threshold, the comparison's parameter diff and overlaid curves, and the line
 * chart following its column's width.
 */
import { afterEach, expect, test } from 'vitest'
import '../../src/ui/train-panel.ts'
import '../../src/ui/run-list.ts'
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

test('runs list: stopped marked; download, compare and delete fire on clicks only', async () => {
  const list = await fixture('st-run-list', { runs: [storedRun('b', {}), storedRun('a', {}, true)] })
  const seen = [record(list, 'run-download'), record(list, 'run-compare'), record(list, 'run-delete')]
  list.compared = ['a']
  await list.updateComplete
  expect(seen.flat()).toEqual([])
  const items = list.shadowRoot!.querySelectorAll('li')
  expect(items[1].textContent).toContain('stopped')
  expect(items[0].textContent).not.toContain('stopped')
  ;(items[1].querySelector('button[data-file=metrics]') as HTMLButtonElement).click()
  ;(items[0].querySelector('input.compare') as HTMLInputElement).click()
  ;(items[1].querySelector('button.delete') as HTMLButtonElement).click()
  expect(seen).toEqual([[{ id: 'a', file: 'metrics' }], [{ id: 'b', on: true }], [{ id: 'a' }]])
  expect(items[0].textContent).toContain('AUC 0.8000')
  // A run without AUC (a regression) shows its last metric, the one early stopping watches.
  const regression = storedRun('c', {})
  regression.summary = {
    ...regression.summary,
    auc: null,
    logloss: null,
    eval: { mae: 1.5, 'tweedie-nloglik@1.5': 2.25 },
  }
  list.runs = [regression]
  await list.updateComplete
  expect(list.shadowRoot!.querySelector('li')!.textContent).toContain('gbdt · 2 rounds · tweedie-nloglik@1.5 2.2500')
  // A multiclass run with a (one-vs-rest) AUC shows its last metric too; so does a ranking run.
  const multiclass = storedRun('d', { objective: 'multi:softprob', eval_metric: ['auc', 'merror', 'mlogloss'] })
  multiclass.summary = {
    ...multiclass.summary,
    auc: 0.93,
    logloss: null,
    eval: { auc: 0.93, merror: 0.125, mlogloss: 0.4 },
  }
  const ranking = storedRun('e', { objective: 'rank:ndcg', eval_metric: ['auc', 'ndcg@5'] })
  ranking.summary = { ...ranking.summary, auc: 0.7, logloss: null, eval: { auc: 0.7, 'ndcg@5': 0.8125 } }
  const quiet = storedRun('f', { objective: 'reg:squarederror' })
  quiet.summary = { ...quiet.summary, auc: null, logloss: null }
  list.runs = [multiclass, ranking, quiet]
  await list.updateComplete
  expect([...list.shadowRoot!.querySelectorAll('li > span:not(.files)')].map(s => s.textContent)).toEqual([
    'gbdt · 2 rounds · mlogloss 0.4000',
    'gbdt · 2 rounds · ndcg@5 0.8125',
    'gbdt · 2 rounds · no validation metric',
  ])
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
