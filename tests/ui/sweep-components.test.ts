import { afterEach, expect, test } from 'vitest'
import '../../src/ui/sweep-view.ts'
import '../../src/ui/sweep-setup.ts'
import '../../src/ui/home-list.ts'
import type { SweepConfig, SweepDownloadDetail, SweepIdDetail, SweepPlanView } from '../../src/ui/types.ts'
import { cleanup, fixture, record, textOf } from './fixture.ts'
import { CONFIG, sweepState, trial, trials } from './sweep-fakes.ts'
import { sweepImportance } from '../../src/tune/importance.ts'
import { familyOf } from '../../src/models/registry.ts'
import { trialStates } from '../../src/tune/trial-state.ts'

const GBDT = familyOf('gbdt')

afterEach(cleanup)

const q = (el: Element, sel: string) => el.shadowRoot!.querySelector(sel) as HTMLElement
const ids = (table: Element) =>
  [...table.shadowRoot!.querySelectorAll('tbody tr')].map(r => Number((r as HTMLElement).dataset.trial))

test('trial table: every trial a row; header clicks sort, status and text filter', async () => {
  const ts = [
    trial(0, 'completed', { eta: 0.1 }, 0.8),
    trial(1, 'stopped', { eta: 0.3 }, 0.7, 1),
    trial(2, 'failed', { eta: 0.05 }, undefined),
    trial(3, 'running', { eta: 0.2 }, 0.75, 2),
  ]
  const el = await fixture('st-trial-table', { trials: ts })
  expect(ids(el)).toEqual([0, 1, 2, 3])
  q(el, 'th[data-col=metric] button').click()
  await el.updateComplete
  expect(ids(el)).toEqual([0, 3, 1, 2]) // metric: best first, missing last
  q(el, 'th[data-col="param:eta"] button').click()
  await el.updateComplete
  expect(ids(el)).toEqual([2, 0, 3, 1])
  q(el, 'th[data-col="param:eta"] button').click()
  await el.updateComplete
  expect(ids(el)).toEqual([1, 3, 0, 2])
  const status = q(el, 'select') as unknown as HTMLSelectElement
  status.value = 'failed'
  status.dispatchEvent(new Event('change'))
  await el.updateComplete
  expect(ids(el)).toEqual([2])
  expect(textOf(el)).toContain('out of memory') // the trial's error is in its row
  status.value = 'all'
  status.dispatchEvent(new Event('change'))
  const search = q(el, 'input[type=search]') as HTMLInputElement
  search.value = '0.3'
  search.dispatchEvent(new Event('input'))
  await el.updateComplete
  expect(ids(el)).toEqual([1])
  expect(q(el, '.count').textContent).toBe('1 of 4 trials')
  expect(el.shadowRoot!.querySelector('tr[data-trial="3"] progress')).toBeNull() // filtered out
})

test('curves: one uPlot series per trial with points, pruned ones counted and dashed', async () => {
  const ts = trials(6)
  const el = await fixture('st-sweep-curves', { trials: ts, best: 4, states: trialStates(sweepState('c', ts), GBDT) })
  expect(el.dataset.series).toBe('6')
  expect(Number(el.dataset.points)).toBe(ts.reduce((n, t) => n + t.curve.length, 0))
  // Trials 2 and 5 were stopped at their rung: pruned, drawn cut short.
  expect(el.dataset.stopped).toBe('2')
  expect(el.shadowRoot!.querySelector('canvas')).not.toBeNull()
  const { curveKind, curveSeries } = await import('../../src/ui/sweep-curves.ts')
  expect(curveSeries(trial(1, 'stopped', {}, 0.5), 'cut').dash).toEqual([6, 4])
  expect(curveSeries(trial(1, 'completed', {}, 0.5), 'normal').dash).toBeUndefined()
  // Hyperband: trial 0 left at rung 0 (3 of 9) is pruned; trial 1 was promoted as trial 2.
  const hb = [
    { ...trial(0, 'completed', {}, 0.7, 3, 3), bracket: 1, rung: 0 },
    { ...trial(1, 'completed', {}, 0.8, 3, 3), bracket: 1, rung: 0 },
    { ...trial(2, 'completed', {}, 0.85, 9, 9), bracket: 1, rung: 1, promotedFrom: 1 },
  ]
  const st = trialStates(sweepState('h', hb), GBDT)
  expect(hb.map(t => curveKind(t, hb, st))).toEqual(['cut', 'promoted', 'normal'])
  expect(curveKind(hb[2]!, hb, st, 2)).toBe('best')
  el.trials = []
  await el.updateComplete
  expect(el.shadowRoot!.querySelector('canvas')).toBeNull()
})

/** A finished Hyperband bracket 1 (3 at 3 rounds, 1 promoted to 9) and a failed trial. */
function hyperbandTrials() {
  return [
    { ...trial(0, 'completed', { eta: 0.1 }, 0.7, 3, 3), bracket: 1, rung: 0 },
    { ...trial(1, 'completed', { eta: 0.2 }, 0.8, 3, 3), bracket: 1, rung: 0 },
    { ...trial(2, 'completed', { eta: 0.3 }, 0.75, 3, 3), bracket: 1, rung: 0 },
    { ...trial(3, 'completed', { eta: 0.2 }, 0.85, 9, 9), bracket: 1, rung: 1, promotedFrom: 1 },
    { ...trial(4, 'failed', { eta: 0.4 }, undefined), bracket: 0, rung: 0 },
  ]
}

test('trial table: states as Optuna reads them, columns per strategy, a promotion links to its origin', async () => {
  const ts = hyperbandTrials()
  const s = sweepState('hb', ts)
  const el = await fixture('st-trial-table', { trials: ts, states: trialStates(s, GBDT), strategy: 'hyperband' })
  const cells = (col: string) =>
    [...el.shadowRoot!.querySelectorAll<HTMLElement>(`tbody td[data-col=${col}]`)].map(
      c => c.textContent!.trim().split(/\s+/)[0],
    )
  expect(cells('status')).toEqual(['pruned', 'complete', 'pruned', 'complete', 'failed'])
  expect([...el.shadowRoot!.querySelectorAll<HTMLElement>('tbody tr')].map(r => r.dataset.status)).toEqual([
    'pruned',
    'complete',
    'pruned',
    'complete',
    'failed',
  ])
  expect(cells('bracket')).toEqual(['1', '1', '1', '1', '0'])
  expect(cells('from')).toEqual(['–', '–', '–', '#1', '–'])
  // The state filter offers Optuna's words; "pruned" keeps the two left at rung 0.
  const select = q(el, 'select') as unknown as HTMLSelectElement
  expect([...select.options].map(o => o.value)).toEqual(['all', 'running', 'complete', 'pruned', 'failed', 'waiting'])
  select.value = 'pruned'
  select.dispatchEvent(new Event('change'))
  await el.updateComplete
  expect(ids(el)).toEqual([0, 2])
  // "#1" on the promoted trial highlights trial 1's row; a filter hiding it is cleared.
  select.value = 'complete'
  select.dispatchEvent(new Event('change'))
  await el.updateComplete
  q(el, 'tr[data-trial="3"] button.from').click()
  await el.updateComplete
  expect(ids(el)).toEqual([1, 3])
  expect(q(el, 'tr[data-trial="1"]').classList.contains('highlight')).toBe(true)
  select.value = 'all'
  select.dispatchEvent(new Event('change'))
  const search = q(el, 'input[type=search]') as HTMLInputElement
  search.value = '3 complete'
  search.dispatchEvent(new Event('input'))
  await el.updateComplete
  expect(ids(el)).toEqual([3])
  q(el, 'tr[data-trial="3"] button.from').click()
  await el.updateComplete
  expect(ids(el)).toEqual([0, 1, 2, 3, 4])
  expect(q(el, 'tr[data-trial="1"]').classList.contains('highlight')).toBe(true)
  // Random search: no bracket, rung or promotion columns; ASHA: the rung reached, no bracket.
  el.strategy = 'random'
  await el.updateComplete
  const heads = () => [...el.shadowRoot!.querySelectorAll<HTMLElement>('thead th')].map(h => h.dataset.col)
  expect(heads()).toEqual(['id', 'status', 'resource', 'metric', 'gpuSeconds', 'param:eta'])
  el.strategy = 'asha'
  el.rungs = new Map([[0, 2]])
  await el.updateComplete
  expect(heads()).toEqual(['id', 'status', 'rung', 'resource', 'metric', 'gpuSeconds', 'param:eta'])
  expect(cells('rung')[0]).toBe('2')
})

test('sweep view: table@version, the strategy in its own words, trials per state, the train command of the best', async () => {
  const ts = hyperbandTrials()
  const s = sweepState('hb', ts, {
    config: { ...CONFIG, version: 3, seed: 5, filter: "job != 'x'" },
    best: { trial: 3, params: { eta: 0.2, num_round: 9 }, metric: 0.85 },
  })
  const el = await fixture('st-sweep-view', { state: s })
  expect(q(el, 'h1').textContent).toBe('Sweep on m@v3')
  expect(q(el, '.strategy').textContent).toBe(
    'Hyperband: 3 brackets, rungs at 1, 3, 9 boosting rounds (η 3); 5 trials, 1 of them promotion',
  )
  expect(q(el, '.counts').textContent).toBe('5 trials: 2 complete · 2 pruned · 1 failed')
  const card = q(el, 'st-sweep-result')
  await (card as unknown as { updateComplete: Promise<unknown> }).updateComplete
  expect(q(card, 'pre.params').textContent).toContain('"num_round": 9')
  expect(q(card, 'pre.command').textContent).toBe(
    [
      'snaptrain train',
      '--table http://h/tables/m/',
      '--version 3',
      '--label y',
      "--filter 'job != '\\''x'\\'''",
      '--valid-fraction 0.2',
      '--seed 5',
      `--params '{"eta":0.2,"num_round":9}'`,
    ].join(' \\\n  '),
  )
  // Random search: no bracket or rung words anywhere in the view.
  el.state = { ...s, config: { ...s.config, strategy: 'random' } }
  await el.updateComplete
  expect(q(el, '.strategy').textContent).toBe('random search: 5 trials at 3–9 boosting rounds')
  const table = q(el, 'st-trial-table')
  await (table as unknown as { updateComplete: Promise<unknown> }).updateComplete
  expect(textOf(table)).not.toMatch(/bracket|rung/)
})

test('parallel coordinates and best-so-far draw uPlot charts from trials with metrics', async () => {
  const ts = [...trials(5), trial(7, 'failed', { eta: 0.5, max_depth: 9, grow: 'x' }, undefined)]
  const pc = await fixture('st-parallel-coords', { trials: ts, space: CONFIG.space, metricLabel: 'auc' })
  expect(pc.dataset.series).toBe('5')
  expect(pc.dataset.axes).toBe('4') // eta, grow, max_depth, auc
  expect(pc.shadowRoot!.querySelector('canvas')).not.toBeNull()
  expect(textOf(pc)).toMatch(/eta ?0\.01 – 0\.04 \(log\)/)
  // Each axis drawn with its own scale: min, middle (geometric on the log axis), max; categories by name.
  expect(pc.dataset.ticks).toBe('eta:0.01|0.02 log|0.04;grow:depthwise|lossguide;max_depth:2|4|6;auc:0.7|0.74|0.78')
  expect(textOf(pc)).not.toMatch(/\b(low|mid|high)\b/)
  // The colour legend: the metric's worst and best values at the ramp's ends (blue … red).
  const legend = (sel: string) => pc.shadowRoot!.querySelector(`.legend ${sel}`)!.textContent
  expect([legend('.worst'), legend('.best')]).toEqual(['0.7', '0.78'])
  expect(textOf(pc)).toMatch(/line colour: auc/)
  pc.direction = 'minimize'
  await pc.updateComplete
  expect([legend('.worst'), legend('.best')]).toEqual(['0.78', '0.7'])
  const best = await fixture('st-best-chart', { trials: ts })
  expect(Number(best.dataset.points)).toBeGreaterThan(0)
  expect(best.shadowRoot!.querySelector('canvas')).not.toBeNull()
})

test('importance: a waiting note until the engine has an estimate, then bars; an error is shown with its cause', async () => {
  // The engine's estimate (what window.snaptrain.sweepImportance answers): none below 8 finished trials.
  expect(sweepImportance(sweepState('s', trials(7)), familyOf('gbdt'))).toBeUndefined()
  const el = await fixture('st-param-importance', { trials: trials(7), importance: undefined })
  expect(textOf(el)).toContain('Shown once 8 trials have finished (7 so far)')
  expect(el.shadowRoot!.querySelectorAll('.row')).toHaveLength(0)
  el.trials = trials(15)
  el.importance = sweepImportance(sweepState('s', el.trials), familyOf('gbdt'))
  await el.updateComplete
  const rows = [...el.shadowRoot!.querySelectorAll<HTMLElement>('.row')]
  expect(rows.map(r => r.dataset.param).sort()).toEqual(['eta', 'max_depth']) // the space's parameters only
  expect(rows[0]!.dataset.param).toBe('max_depth')
  expect((rows[0]!.querySelector('.bar') as HTMLElement).style.width).not.toBe('')
  el.importance = undefined
  el.error = 'space: eta low > high'
  await el.updateComplete
  expect(textOf(q(el, 'st-error-view'))).toContain('space: eta low > high')
  expect(textOf(el)).not.toContain('Shown once')
})

test('sweep view: header, result card downloads, buttons fire their events, errors rendered with cause', async () => {
  const s = sweepState('s1', trials(9))
  const el = await fixture('st-sweep-view', { state: s, active: false })
  const downloads = record<SweepDownloadDetail>(document.body, 'sweep-download')
  const clones = record<SweepIdDetail>(document.body, 'sweep-clone')
  const resumes = record<SweepIdDetail>(document.body, 'sweep-resume')
  const card = q(el, 'st-sweep-result')
  await (card as unknown as { updateComplete: Promise<unknown> }).updateComplete
  expect(textOf(card)).toContain(`trial ${s.best!.trial}`)
  expect(q(card, 'pre.params').textContent).toBe(JSON.stringify(s.best!.params, null, 2))
  const kinds = [...card.shadowRoot!.querySelectorAll<HTMLElement>('button[data-download]')].map(
    b => b.dataset.download,
  )
  expect(kinds).toEqual(['params', 'model', 'model-ubj', 'manifest', 'csv', 'continue', 'sweep', 'optuna'])
  q(card, 'button[data-download=model]').click()
  expect(downloads).toEqual([{ id: 's1', kind: 'model' }])
  expect(q(el, 'button.resume')).toBeNull() // finished: nothing to resume
  q(el, 'button.clone').click()
  expect(clones).toEqual([{ id: 's1' }])
  el.state = { ...s, status: 'stopped' }
  el.error = { context: 'Running the sweep', message: 'GPU device lost', causes: ['adapter reset by the driver'] }
  await el.updateComplete
  q(el, 'button.resume').click()
  expect(resumes).toEqual([{ id: 's1' }])
  const err = q(el, 'st-error-view')
  await (err as unknown as { updateComplete: Promise<unknown> }).updateComplete
  expect(textOf(err)).toContain('GPU device lost')
  expect(textOf(err)).toContain('adapter reset by the driver')
  el.active = true
  el.stage = { message: 'binning features', fraction: 0.4 }
  await el.updateComplete
  expect(q(el, 'button.stop')).not.toBeNull()
  expect((q(el, '.stage progress') as HTMLProgressElement).value).toBeCloseTo(0.4)
})

test('sweep setup: defaults filled in, engine errors inline as you type, cost shown, sweep-start with the config', async () => {
  const plans: SweepConfig[] = []
  const planner = (c: SweepConfig): SweepPlanView => {
    plans.push(c)
    const errors =
      ((c.space as Record<string, { low?: number }>).eta?.low ?? 0) > 1 ? ['space: eta: low 5 > high 0.3'] : []
    return {
      errors,
      trials: 13,
      brackets: [
        { index: 2, rungs: [] },
        { index: 1, rungs: [] },
        { index: 0, rungs: [] },
      ],
      resourceTotal: 99,
      resourceFullBudget: 351,
    }
  }
  const fields = ['age', 'job', 'y'].map(name => ({
    name,
    type: name === 'job' ? 'string' : 'integer',
    nullable: false,
    metadata: {},
  }))
  const el = await fixture('st-sweep-setup', {
    fields,
    table: { url: 'http://h/m/', version: 0 },
    planner,
    spaceOf: m =>
      m === 'gbdt'
        ? { eta: { type: 'loguniform', low: 0.01, high: 0.3 } }
        : { lr: { type: 'loguniform', low: 1e-4, high: 1e-2 } },
  })
  const starts = record<SweepConfig>(document.body, 'sweep-start')
  const area = q(el, 'textarea') as HTMLTextAreaElement
  expect(JSON.parse(area.value)).toEqual({ eta: { type: 'loguniform', low: 0.01, high: 0.3 } })
  expect(textOf(el)).toContain(
    '13 trial runs in 3 brackets · 99 boosting rounds in total vs 351 at full budget (28% of it)',
  )
  area.value = '{"eta": {"type": "loguniform", "low": 5, "high": 0.3}}'
  area.dispatchEvent(new Event('input'))
  await el.updateComplete
  expect(q(el, 'ul.errors').textContent).toContain('eta: low 5 > high 0.3')
  expect((q(el, 'button[type=submit]') as HTMLButtonElement).disabled).toBe(true)
  area.value = '{"eta": {"type": "loguniform", "low": 0.05, "high": 0.3}}'
  area.dispatchEvent(new Event('input'))
  const box = q(q(el, 'st-feature-picker'), 'input[data-feature=job]') as HTMLInputElement
  box.checked = false
  box.dispatchEvent(new Event('change'))
  await el.updateComplete
  expect(q(el, 'ul.errors')).toBeNull()
  ;(q(el, 'button[type=submit]') as HTMLButtonElement).click()
  expect(starts).toHaveLength(1)
  expect(starts[0]).toMatchObject({
    model: 'gbdt',
    table: 'http://h/m/',
    label: 'y',
    features: ['age'],
    strategy: 'hyperband',
    validFraction: 0.2,
  })
  const metrics = () =>
    [...el.shadowRoot!.querySelectorAll<HTMLOptionElement>('select#metric option')].map(o => o.value)
  // The objective's default first ('': sweep/plan.ts sweepMetric), then every XGBoost metric, each named with the way it is optimised.
  expect(metrics()).toEqual(['', ...familyOf('gbdt').metrics])
  const label = (v: string) =>
    el.shadowRoot!.querySelector<HTMLOptionElement>(`select#metric option[value="${v}"]`)!.text
  expect([label('auc'), label('aucpr'), label('mae'), label('tweedie-nloglik@1.5')]).toEqual([
    'maximise AUC',
    'maximise aucpr',
    'minimise mae',
    'minimise tweedie-nloglik@1.5',
  ])
  const model = q(el, 'select#model') as HTMLSelectElement
  model.value = 'recsys'
  model.dispatchEvent(new Event('change'))
  await el.updateComplete
  // Grouped AUC is offered for the recommender only.
  expect(metrics()).toEqual(['', 'auc', 'logloss', 'gauc'])
  expect(JSON.parse((q(el, 'textarea') as HTMLTextAreaElement).value)).toHaveProperty('lr')
  expect(textOf(el)).toContain('epochs in total')
  el.initial = { ...CONFIG, strategy: 'asha', name: 'mine' }
  await el.updateComplete
  expect((q(el, 'select#strategy') as HTMLSelectElement).value).toBe('asha')
  expect((q(el, 'input#name') as HTMLInputElement).value).toBe('mine (copy)')
})

test('home list: sweeps newest first, resume only when not finished and not running here', async () => {
  const a = sweepState('a', trials(2), { createdAt: '2026-01-01T00:00:00Z' })
  const b = sweepState('b', trials(3), { status: 'running', createdAt: '2026-01-02T00:00:00Z' })
  const c = sweepState('c', trials(1), { status: 'stopped', createdAt: '2026-01-03T00:00:00Z' })
  const el = await fixture('st-home-list', { sweeps: [a, b, c], activeSweeps: ['b'], sweepsState: 'ready' })
  const resumed = record<SweepIdDetail>(document.body, 'sweep-resume')
  const rows = [...el.shadowRoot!.querySelectorAll<HTMLElement>('tbody tr')]
  expect(rows.map(r => r.dataset.sweep)).toEqual(['c', 'b', 'a'])
  expect(rows.filter(r => r.querySelector('button.resume')).map(r => r.dataset.sweep)).toEqual(['c'])
  q(el, 'tr[data-sweep=c] button.resume').click()
  expect(resumed).toEqual([{ id: 'c' }])
  expect(q(el, 'tr[data-sweep=b] td.status').textContent).toBe('running')
  el.sweepsState = 'error'
  el.sweepsError = { context: 'Reading the stored sweeps', message: 'IndexedDB is blocked', causes: [] }
  await el.updateComplete
  expect(el.shadowRoot!.querySelector('st-error-view')).not.toBeNull()
})
