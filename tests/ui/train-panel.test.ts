import { afterEach, expect, test } from 'vitest'
import '../../src/ui/train-panel.ts'
import '../../src/ui/app.ts'
import { labelCandidates, type TrainStartDetail } from '../../src/ui/train-panel.ts'
import { parseParamsText } from '../../src/ui/train-controller.ts'
import type {
  ExplainConfig,
  Explanation,
  SnaptrainApi,
  TrainConfig,
  TrainProgress,
  TrainResult,
} from '../../src/api-types.ts'
import type { StructField } from '../../src/ui/types.ts'
import { cleanup, fixture, record, textOf, waitFor } from './fixture.ts'

afterEach(cleanup)

const field = (name: string, type: StructField['type']): StructField => ({ name, type, nullable: true, metadata: {} })
const FIELDS = [
  field('age', 'integer'),
  field('job', 'string'),
  field('y', 'integer'),
  field('emb', { type: 'array', elementType: 'float', containsNull: true }),
]

test('label candidates: numeric/boolean columns, a conventional label name first', () => {
  expect(labelCandidates(FIELDS)).toEqual(['y', 'age'])
  expect(labelCandidates([field('a', 'double'), field('b', 'boolean'), field('s', 'string')])).toEqual(['a', 'b'])
})

test('parseParamsText refuses non-objects with a message naming the parameters', () => {
  expect(parseParamsText('{"eta": 0.1}')).toEqual({ eta: 0.1 })
  expect(() => parseParamsText('{eta')).toThrow(/parameters: not valid JSON/)
  expect(() => parseParamsText('[1]')).toThrow(/must be a JSON object/)
})

test('the form fires train-start with label, params text and validation share', async () => {
  const el = await fixture('st-train-panel', { fields: FIELDS })
  const seen = record<TrainStartDetail>(document.body, 'train-start')
  const root = el.shadowRoot!
  expect([...root.querySelectorAll<HTMLOptionElement>('select#label option')].map(o => o.value)).toEqual(['y', 'age'])
  const textarea = root.querySelector('textarea')!
  textarea.value = '{"num_round": 3}'
  textarea.dispatchEvent(new Event('input'))
  root.querySelector<HTMLButtonElement>('button[type=submit]')!.click()
  // Every feature chosen: no list (the run's default); GBDT: training-rows metrics on by default.
  expect(seen).toEqual([
    {
      model: 'gbdt',
      label: 'y',
      weight: '',
      params: '{"num_round": 3}',
      validFraction: 0.2,
      filter: '',
      evalTrain: true,
    },
  ])
  const evalTrain = root.querySelector<HTMLInputElement>('input#eval-train')!
  evalTrain.checked = false
  evalTrain.dispatchEvent(new Event('change'))
  await el.updateComplete
  root.querySelector<HTMLButtonElement>('button[type=submit]')!.click()
  expect(seen[1].evalTrain).toBeUndefined()
})

test('the feature picker (the sweep form’s): a dropped column is left out of the run; none chosen, no Train', async () => {
  const el = await fixture('st-train-panel', { fields: [...FIELDS, field('w', 'double')] })
  const seen = record<TrainStartDetail>(document.body, 'train-start')
  const root = el.shadowRoot!
  const picker = root.querySelector('st-feature-picker')!
  await picker.updateComplete
  const boxes = () => [...picker.shadowRoot!.querySelectorAll<HTMLInputElement>('input[data-feature]')]
  // The label is no candidate; every other column is, all chosen.
  expect(boxes().map(b => [b.dataset.feature, b.checked])).toEqual([
    ['age', true],
    ['job', true],
    ['emb', true],
    ['w', true],
  ])
  const job = boxes().find(b => b.dataset.feature === 'job')!
  job.checked = false
  job.dispatchEvent(new Event('change'))
  await el.updateComplete
  await picker.updateComplete
  expect(picker.dataset.chosen).toBe('3')
  root.querySelector<HTMLButtonElement>('button[type=submit]')!.click()
  expect(seen[0].features).toEqual(['age', 'emb', 'w'])
  // A weight column is no feature: chosen as weights, it leaves the picker and the list.
  const weight = root.querySelector<HTMLSelectElement>('select#weight')!
  weight.value = 'w'
  weight.dispatchEvent(new Event('change'))
  await el.updateComplete
  await picker.updateComplete
  expect(boxes().map(b => b.dataset.feature)).toEqual(['age', 'job', 'emb'])
  root.querySelector<HTMLButtonElement>('button[type=submit]')!.click()
  expect(seen[1]).toMatchObject({ weight: 'w', features: ['age', 'emb'] })
  picker.shadowRoot!.querySelector<HTMLButtonElement>('button.none')!.click()
  await el.updateComplete
  expect(root.querySelector<HTMLButtonElement>('button[type=submit]')!.disabled).toBe(true)
  picker.shadowRoot!.querySelector<HTMLButtonElement>('button.all')!.click()
  await el.updateComplete
  root.querySelector<HTMLButtonElement>('button[type=submit]')!.click()
  expect(seen[2].features).toBeUndefined()
})

test('the row weight picker offers the other numeric columns (GBDT only) and sends the choice', async () => {
  const el = await fixture('st-train-panel', { fields: [...FIELDS, field('w', 'double')] })
  const seen = record<TrainStartDetail>(document.body, 'train-start')
  const root = el.shadowRoot!
  const weight = root.querySelector<HTMLSelectElement>('select#weight')!
  expect([...weight.querySelectorAll('option')].map(o => o.value)).toEqual(['', 'age', 'w'])
  weight.value = 'w'
  weight.dispatchEvent(new Event('change'))
  root.querySelector<HTMLButtonElement>('button[type=submit]')!.click()
  expect(seen[0]).toMatchObject({ label: 'y', weight: 'w' })
  const model = root.querySelector<HTMLSelectElement>('select#model')!
  model.value = 'recsys'
  model.dispatchEvent(new Event('change'))
  await el.updateComplete
  expect(root.querySelector('select#weight')).toBeNull()
})

test('the query group picker (ranking) offers the other numeric columns (GBDT only) and sends the choice', async () => {
  const el = await fixture('st-train-panel', { fields: [...FIELDS, field('q', 'integer')] })
  const seen = record<TrainStartDetail>(document.body, 'train-start')
  const root = el.shadowRoot!
  const qid = root.querySelector<HTMLSelectElement>('select#qid')!
  expect([...qid.querySelectorAll('option')].map(o => o.value)).toEqual(['', 'age', 'q'])
  qid.value = 'q'
  qid.dispatchEvent(new Event('change'))
  root.querySelector<HTMLButtonElement>('button[type=submit]')!.click()
  expect(seen[0]).toMatchObject({ label: 'y', qid: 'q' })
  const model = root.querySelector<HTMLSelectElement>('select#model')!
  model.value = 'recsys'
  model.dispatchEvent(new Event('change'))
  await el.updateComplete
  expect(root.querySelector('select#qid')).toBeNull()
})

test('busy, result and error states', async () => {
  const el = await fixture('st-train-panel', { fields: FIELDS, state: 'loading', stage: 'round 2 / 5' })
  expect(el.shadowRoot!.querySelector<HTMLButtonElement>('button')!.disabled).toBe(true)
  expect(textOf(el)).toContain('round 2 / 5')
  el.state = 'ready'
  el.result = {
    auc: 0.81234,
    logloss: 0.3,
    rounds: 5,
    seconds: 1.25,
    adapter: 'swiftshader',
    rowsTrain: 80,
    rowsValid: 20,
  }
  await el.updateComplete
  expect(textOf(el)).toMatch(/5 rounds in 1\.3 s · AUC 0\.8123 · logloss 0\.3000/)
  // A run's own metrics (TrainSummary.eval), whatever their names.
  el.result = { ...el.result, auc: null, logloss: null, eval: { mae: 1.23456, 'error@0.3': 0.25 } }
  await el.updateComplete
  expect(textOf(el)).toMatch(/5 rounds in 1\.3 s · mae 1\.2346 · error@0\.3 0\.2500/)
  el.state = 'error'
  el.error = {
    context: 'Training on table t',
    message: 'label column age: binary:logistic needs labels 0 or 1, got 30 at row 0',
    causes: [],
  }
  await el.updateComplete
  const alert = el.shadowRoot!.querySelector('st-error-view')!
  await alert.updateComplete
  expect(textOf(alert)).toContain('label column age')
})

test('live (the run view): the status only — Stop and progress, then the result or the error; no form', async () => {
  const el = await fixture('st-train-panel', {
    fields: FIELDS,
    live: true,
    state: 'loading',
    stage: 'training',
    progress: { unit: 'round', done: 3, total: 20, elapsedMs: 1200, etaMs: 5000 },
  })
  const root = el.shadowRoot!
  expect(root.querySelector('form, select, textarea, input, h2, button[type=submit]')).toBeNull()
  expect(root.querySelector('.progress')!.textContent).toBe('3 / 20 rounds · 1.2 s elapsed · about 5.0 s left')
  const stop = record(el, 'train-stop')
  root.querySelector<HTMLButtonElement>('button.stop')!.click()
  expect(stop).toHaveLength(1)
  el.state = 'ready'
  el.result = { auc: 0.8, logloss: 0.3, rounds: 3, seconds: 1, adapter: 'a', rowsTrain: 8, rowsValid: 2, stopped: true }
  await el.updateComplete
  expect(root.querySelector('button.stop')).toBeNull()
  expect(textOf(el)).toMatch(/stopped after 3 rounds in 1\.0 s · AUC 0\.8000/)
  el.state = 'error'
  el.error = { context: 'Training on table t', message: 'no rows', causes: [] }
  await el.updateComplete
  expect(root.querySelector('st-error-view')).not.toBeNull()
  expect(root.querySelector('form')).toBeNull()
})

test('st-app mediates: Train calls api.train for the open table, feeds the curve per round, then explains the model', async () => {
  const calls: TrainConfig[] = []
  const explained: ExplainConfig[] = []
  let release!: () => void
  const gate = new Promise<void>(r => {
    release = r
  })
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
      schema: { type: 'struct', fields: FIELDS },
      partitionColumns: [],
      columnMapping: 'none',
      files: [],
    }),
    readRows: async () => [],
    train: async (config: TrainConfig, onProgress?: (p: TrainProgress) => void): Promise<TrainResult> => {
      calls.push(config)
      onProgress?.({ kind: 'round', round: 0, rounds: 2, metrics: { auc: 0.7, logloss: 0.4 }, elapsedMs: 5 })
      onProgress?.({ kind: 'round', round: 1, rounds: 2, metrics: { auc: 0.75, logloss: 0.35 }, elapsedMs: 9 })
      await gate
      return {
        model: '{}',
        manifest: {} as TrainResult['manifest'],
        metrics: [],
        summary: {
          model: 'gbdt',
          auc: 0.75,
          logloss: 0.35,
          rounds: 2,
          best_iteration: 1,
          train_seconds: 0.01,
          rows_train: 8,
          rows_valid: 2,
          rows_per_second: 1,
          adapter: 'fake',
        },
      }
    },
    predict: async () => {
      throw new Error('unused')
    },
    explain: async (c: ExplainConfig): Promise<Explanation> => {
      explained.push(c)
      const scores = { age: 2, job: 1 }
      return {
        features: ['age', 'job'],
        importance: { weight: scores, gain: scores, cover: scores, total_gain: scores, total_cover: scores },
        shap: Float32Array.from([0.5, -0.1, 0, -0.5, 0.2, 0]),
        meanAbsShap: [
          { feature: 'age', mean_abs_shap: 0.5 },
          { feature: 'job', mean_abs_shap: 0.15 },
        ],
        values: Float32Array.from([30, 1, 40, 2]),
        rows: 2,
        validRows: 2,
        adapter: 'fake',
      }
    },
  } as unknown as SnaptrainApi
  const app = document.createElement('st-app')
  Object.assign(app, { api })
  document.body.append(app)
  const q = (sel: string) => app.shadowRoot!.querySelector(sel)
  await waitFor(() => q('st-table-list')?.shadowRoot?.querySelector('button'))
  ;(q('st-table-list')!.shadowRoot!.querySelector('button') as HTMLButtonElement).click()
  const panel = await waitFor(() => q('st-train-panel'))
  await waitFor(() => panel.shadowRoot?.querySelector('button[type=submit]'))
  ;(panel.shadowRoot!.querySelector('button[type=submit]') as HTMLButtonElement).click()
  // Starting a run opens its view (#/runs/<id>): the live panel, curve and explanation are there.
  const view = await waitFor(() => q('[data-view=run]') as HTMLElement | null)
  expect(location.hash).toBe(`#/runs/${view.dataset.run}`)
  // The run view shows the run's status (Stop while it trains), not the form: that stays on home.
  const live = await waitFor(() => q('[data-view=run] st-train-panel')?.shadowRoot?.querySelector('button.stop'))
  expect(live.closest('form')).toBeNull()
  expect(q('[data-view=run] st-train-panel')!.shadowRoot!.querySelector('form')).toBeNull()
  const curve = await waitFor(() => q('[data-view=run] st-train-curve') as HTMLElement | null)
  await waitFor(() => curve.dataset.points === '2')
  expect(curve.shadowRoot!.querySelector('canvas')).not.toBeNull()
  expect(calls).toEqual([
    {
      table: 'http://h/m/',
      version: 0,
      label: 'y',
      validFraction: 0.2,
      params: { max_depth: 6, eta: 0.3, num_round: 20 },
      evalTrain: true,
    },
  ])
  release()
  await waitFor(() => textOf(q('[data-view=run] st-train-panel')!).includes('AUC 0.7500'))
  const shap = await waitFor(() => q('st-run-explanation')?.shadowRoot?.querySelector('st-shap-summary') as HTMLElement)
  await waitFor(() => shap.dataset.points === '4')
  expect(explained).toEqual([{ run: calls[0], model: '{}', rows: 2000 }])
})
