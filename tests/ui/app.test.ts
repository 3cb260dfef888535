import { afterEach, expect, test } from 'vitest'
import '../../src/ui/app.ts'
import type { StApp } from '../../src/ui/app.ts'
import type { Explanation, SnaptrainApi, Snapshot, StoredRun, StoredRunData } from '../../src/api-types.ts'
import { TableError } from '../../src/table/types.ts'
import { cleanup, textOf, waitFor } from './fixture.ts'

afterEach(cleanup)

/** A fake library: two tables, `clicks` with versions 0..2 whose schema grows with the version. */
function fakeApi(over: Partial<SnaptrainApi> = {}): SnaptrainApi & { calls: string[] } {
  const calls: string[] = []
  const snapshot = (url: string, version = 2): Snapshot => ({
    tableUrl: url,
    version,
    timestamp: Date.UTC(2024, 0, 1 + version),
    protocol: { minReaderVersion: 1, minWriterVersion: 2 },
    metadata: {
      id: 'id',
      format: { provider: 'parquet' },
      schemaString: '',
      partitionColumns: ['day'],
      configuration: {},
    },
    schema: {
      type: 'struct',
      fields: ['user_id', 'label', 'day', 'extra']
        .slice(0, 2 + version)
        .map(name => ({ name, type: 'long', nullable: true, metadata: {} })),
    },
    partitionColumns: ['day'],
    columnMapping: 'none',
    files: [],
  })
  return {
    calls,
    version: '9.9.9',
    adapterInfo: async () => ({
      vendor: 'fakevendor',
      architecture: 'a',
      device: '',
      description: '',
      isFallbackAdapter: false,
      features: [],
      limits: {},
    }),
    listTables: async base => {
      calls.push(`list ${base}`)
      return [
        { name: 'clicks', url: 'http://h/tables/clicks/' },
        { name: 'broken', url: 'http://h/tables/broken/' },
      ]
    },
    listCommits: async url => {
      calls.push(`commits ${url}`)
      if (url.includes('broken')) throw new TableError(`no _delta_log at ${url}`, 'not-a-table', url)
      return [0, 1, 2].map(version => ({ version, timestamp: Date.UTC(2024, 0, 1 + version), operation: 'WRITE' }))
    },
    openSnapshot: async (url, opts) => {
      calls.push(`open ${url} v${opts?.version ?? 'latest'}`)
      return snapshot(url, opts?.version)
    },
    readRows: async (s, opts) => {
      calls.push(`rows v${s.version} limit ${opts?.limit}`)
      return [{ user_id: 1n, label: 0, day: '2024-01-01' }]
    },
    train: async () => {
      throw new Error('fake api: train not scripted')
    },
    predict: async () => {
      throw new Error('fake api: predict not scripted')
    },
    ...over,
  } as SnaptrainApi & { calls: string[] }
}

async function mount(api: SnaptrainApi, props: Partial<StApp> = {}): Promise<StApp> {
  const el = document.createElement('st-app')
  Object.assign(el, { api, ...props })
  document.body.append(el)
  await waitFor(() => el.shadowRoot?.querySelector('st-table-list')?.shadowRoot?.querySelector('button') ?? undefined)
  return el
}

const inner = (el: Element, sel: string) => el.shadowRoot!.querySelector(sel)

test('lists tables, shows the adapter, opens a table on click with schema and rows', async () => {
  const api = fakeApi()
  const app = await mount(api)
  const list = inner(app, 'st-table-list')!
  await waitFor(() => list.shadowRoot!.querySelector('button[data-table=clicks]')!.textContent!.includes('v2'))
  expect(textOf(inner(app, 'st-adapter-panel')!)).toContain('fakevendor')
  expect(api.calls.filter(c => c.startsWith('open'))).toEqual([]) // nothing opened before a click
  ;(list.shadowRoot!.querySelector('button[data-table=clicks]') as HTMLElement).click()
  const view = await waitFor(() => inner(app, 'st-table-view'))
  const schema = await waitFor(() => view.shadowRoot!.querySelector('st-schema-view'))
  await waitFor(() => view.shadowRoot!.querySelector('st-rows-preview'))
  await schema.updateComplete
  expect(schema.shadowRoot!.querySelectorAll('tbody tr').length).toBe(4)
  expect(api.calls).toContain('open http://h/tables/clicks/ vlatest')
  expect(api.calls).toContain('rows v2 limit 20')
})

test('version-select reopens the table at that version', async () => {
  const api = fakeApi()
  const app = await mount(api)
  ;(inner(app, 'st-table-list')!.shadowRoot!.querySelector('button[data-table=clicks]') as HTMLElement).click()
  const view = await waitFor(() => inner(app, 'st-table-view'))
  const history = await waitFor(() => view.shadowRoot!.querySelector('st-table-history'))
  await waitFor(() => view.shadowRoot!.querySelector('st-rows-preview'))
  ;(history.shadowRoot!.querySelector('tr[data-version="0"]') as HTMLElement).click()
  await waitFor(() => api.calls.includes('rows v0 limit 20'))
  const schema = await waitFor(() => view.shadowRoot!.querySelector('st-schema-view'))
  await waitFor(() => schema.shadowRoot!.querySelectorAll('tbody tr').length === 2)
  expect(api.calls).toContain('open http://h/tables/clicks/ v0')
})

test('a reader error is shown with its code and URL', async () => {
  const app = await mount(fakeApi())
  ;(inner(app, 'st-table-list')!.shadowRoot!.querySelector('button[data-table=broken]') as HTMLElement).click()
  const view = await waitFor(() => inner(app, 'st-table-view'))
  const err = await waitFor(() => view.shadowRoot!.querySelector('st-error-view'))
  await waitFor(() => textOf(err).includes('not-a-table'))
  expect(textOf(err)).toContain('Reading the commit history of table broken failed')
  expect(textOf(err)).toContain('http://h/tables/broken/')
})

test('a step that never answers ends in an error, not an endless spinner', async () => {
  const app = await mount(fakeApi({ openSnapshot: () => new Promise(() => {}) }), { stepTimeoutMs: 200 })
  ;(inner(app, 'st-table-list')!.shadowRoot!.querySelector('button[data-table=clicks]') as HTMLElement).click()
  const view = await waitFor(() => inner(app, 'st-table-view'))
  const err = await waitFor(() => view.shadowRoot!.querySelector('st-error-view'))
  await waitFor(() => textOf(err).includes('no answer within 0.2 s'))
  expect(view.shadowRoot!.querySelector('[role=status]')).toBeNull()
})

test('adapter failure and listing failure are shown where they happen', async () => {
  const api = fakeApi({
    adapterInfo: async () => {
      throw new Error('WebGPU unavailable: navigator.gpu is undefined')
    },
    listTables: async () => {
      throw new TableError('GET http://h/?list-type=2: 404', 'http', 'http://h/')
    },
  })
  const el = document.createElement('st-app')
  Object.assign(el, { api })
  document.body.append(el)
  const panel = await waitFor(() => inner(el, 'st-adapter-panel'))
  await waitFor(() => textOf(panel).includes('WebGPU is not available'))
  const list = inner(el, 'st-table-list')!
  const err = await waitFor(() => list.shadowRoot!.querySelector('st-error-view'))
  await waitFor(() => textOf(err).includes('list-type=2: 404'))
})

/** Mounts st-app without waiting for the home view (it opens at the hash's view). */
function open(api: SnaptrainApi): StApp {
  const el = document.createElement('st-app')
  Object.assign(el, { api })
  document.body.append(el)
  return el
}

/** A kept binary run as RunStore lists it; `name` absent: a record from before names existed. */
function keptRun(id: string, createdAt: string, name?: string): StoredRun {
  return {
    id,
    createdAt,
    table: { name: 'clicks', url: 'http://h/tables/clicks/', version: 2 },
    model: 'gbdt',
    label: 'label',
    params: { max_depth: id === 'r1' ? 2 : 4, num_round: 2 },
    summary: { auc: 0.75, logloss: 0.5, rounds: 2 } as StoredRun['summary'],
    metrics: [{ auc: 0.7 }, { auc: 0.75 }],
    manifest: { kind: 'snaptrain-run', params: {} } as unknown as StoredRun['manifest'],
    modelFile: 'model.json',
    ...(name ? { name } : {}),
  }
}

const EXPLANATION = {
  features: ['user_id', 'day'],
  importance: Object.fromEntries(
    ['weight', 'gain', 'cover', 'total_gain', 'total_cover'].map(t => [t, { user_id: 3, day: 1 }]),
  ),
  shap: Float32Array.from([0.5, -0.1, -0.5, 0.2]),
  meanAbsShap: [
    { feature: 'user_id', mean_abs_shap: 0.5 },
    { feature: 'day', mean_abs_shap: 0.15 },
  ],
  values: Float32Array.from([1, 0, 2, 1]),
  rows: 2,
  validRows: 2,
  adapter: 'fake',
} as unknown as Explanation

/** fakeApi with kept runs r1 (named, with its explanation) and r2 (an old record), and the store calls recorded. */
function runsApi() {
  const runs = [keptRun('r1', '2026-12-02T00:00:00Z', 'clicks-gbdt-1'), keptRun('r2', '2026-12-01T00:00:00Z')]
  const data: Record<string, StoredRunData> = {
    r1: {
      model: '{"r": 1}',
      validation: { labels: Float32Array.from([0, 1, 0, 1]), scores: Float32Array.from([0.1, 0.8, 0.4, 0.35]) },
      explanation: EXPLANATION,
    },
    r2: { model: '{"r": 2}' },
  }
  const store: string[] = []
  const api = fakeApi({
    listRuns: async () => runs,
    runData: async id => data[id],
    updateRun: async (id, change) => {
      store.push(`update ${id} ${JSON.stringify(change.run)}`)
    },
    deleteRun: async id => {
      store.push(`delete ${id}`)
    },
    saveRun: async run => {
      store.push(`save ${run.id} ${run.name}`)
    },
    runFiles: async run => [
      { name: 'model.json', data: String(run.model) },
      { name: 'manifest.json', data: '{}' },
      { name: 'metrics.csv', data: 'auc\n' },
    ],
    explain: async () => {
      throw new Error('a kept explanation is not recomputed')
    },
  })
  return { api, store }
}

test('#/runs/<id> after a reload: the kept run with its ROC, importance and SHAP; renamed, downloads named after it, deleted with undo', async () => {
  const { api, store } = runsApi()
  location.hash = '#/runs/r1'
  const app = open(api)
  const view = await waitFor(() => inner(app, '[data-view=run][data-run=r1] st-run-view') as HTMLElement | null)
  const inView = (sel: string) => view.shadowRoot!.querySelector(sel) as HTMLElement | null
  const results = await waitFor(() => inView('st-run-results'))
  const curves = await waitFor(() => results.shadowRoot?.querySelector('st-run-curves') as HTMLElement | null)
  await waitFor(() => curves.dataset.auc)
  expect(Number(curves.dataset.auc)).toBe(0.75) // 3 of the 4 positive–negative pairs ordered
  const explanation = inView('st-run-explanation')!
  const shap = await waitFor(() => explanation.shadowRoot?.querySelector('st-shap-summary') as HTMLElement | null)
  await waitFor(() => shap.dataset.points === '4')
  expect(shap.dataset.features).toBe('user_id,day')
  expect(explanation.shadowRoot!.querySelector('st-feature-importance')).not.toBeNull()
  expect((inView('input.name') as HTMLInputElement).value).toBe('clicks-gbdt-1')
  expect(inView('st-train-curve')!.dataset.points).toBe('2')
  expect(textOf(inView('table.params')!)).toContain('max_depth')
  // Renaming: the store is told, the downloads follow the name (file-system safe).
  const name = inView('input.name') as HTMLInputElement
  name.value = 'best/so far'
  name.dispatchEvent(new Event('change'))
  await waitFor(() => store.length === 1)
  expect(store).toEqual(['update r1 {"name":"best/so far"}'])
  await waitFor(() => inView('button[data-file=model]')?.textContent === 'best_so far.model.json')
  const saved: string[] = []
  const click = HTMLAnchorElement.prototype.click
  HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
    saved.push(this.download)
  }
  try {
    inView('button[data-file=manifest]')!.click()
    await waitFor(() => saved.length === 1)
  } finally {
    HTMLAnchorElement.prototype.click = click
  }
  expect(saved).toEqual(['best_so far.manifest.json'])
  // Delete: back home, the run gone from the list, Undo keeps it again.
  inView('button.delete')!.click()
  await waitFor(() => location.hash === '#/')
  const list = await waitFor(() => inner(app, 'st-home-list') as HTMLElement | null)
  await waitFor(() => list.shadowRoot!.querySelectorAll('tbody tr[data-run]').length === 1)
  expect(store).toContain('delete r1')
  ;(inner(app, 'button.undo') as HTMLButtonElement).click()
  await waitFor(() => list.shadowRoot!.querySelectorAll('tbody tr[data-run]').length === 2)
  expect(store.at(-1)).toBe('save r1 best/so far')
})

test('#/compare/<a>/<b> names the runs as the list does; back and forward move between views', async () => {
  const { api } = runsApi()
  location.hash = '#/compare/r2/r1'
  const app = open(api)
  const compare = await waitFor(() => inner(app, '[data-view=compare] st-run-compare') as HTMLElement | null)
  await waitFor(() => compare.shadowRoot?.querySelector('tr[data-param=max_depth].differs'))
  expect(
    [...compare.shadowRoot!.querySelector('table.params')!.querySelectorAll('tr:first-child th')].map(
      th => th.textContent,
    ),
  ).toEqual(['parameter', 'clicks-gbdt-r2', 'clicks-gbdt-1'])
  location.hash = '#/runs/r2'
  await waitFor(() => inner(app, '[data-view=run][data-run=r2] st-run-view'))
  history.back()
  await waitFor(() => inner(app, '[data-view=compare] st-run-compare'))
  history.forward()
  const view = await waitFor(() => inner(app, '[data-view=run][data-run=r2] st-run-view') as HTMLElement | null)
  // An old record without explanation shows none (and asks for none).
  await (view as unknown as { updateComplete: Promise<unknown> }).updateComplete
  expect(view.shadowRoot!.querySelector('st-run-explanation')).toBeNull()
  expect((view.shadowRoot!.querySelector('input.name') as HTMLInputElement).value).toBe('clicks-gbdt-r2')
})
