import { afterEach, expect, test } from 'vitest'
import '../../src/ui/app.ts'
import type { StApp } from '../../src/ui/app.ts'
import type { SnaptrainApi, Snapshot } from '../../src/api-types.ts'
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
