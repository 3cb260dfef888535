import { afterEach, expect, test } from 'vitest'
import '../../src/ui/share-browser.ts'
import '../../src/ui/app.ts'
import type { StApp } from '../../src/ui/app.ts'
import type { SharedShareView, ShareAccess, SnaptrainApi, Snapshot, TrainConfig } from '../../src/api-types.ts'
import type { ProfileOpenDetail, SweepConfig, TableSelectDetail } from '../../src/ui/types.ts'
import { TableError } from '../../src/table/types.ts'
import { cleanup, fixture, record, textOf, waitFor } from './fixture.ts'

afterEach(cleanup)

const ENDPOINT = 'http://h/__snaptrain/sharing/p1/api/'
const URL_M = `${ENDPOINT}shares/demo/schemas/public/tables/marketing/`
const SHARES: SharedShareView[] = [
  {
    name: 'demo',
    schemas: [
      { name: 'public', tables: [{ share: 'demo', schema: 'public', name: 'marketing', url: URL_M }] },
      { name: 'empty', tables: [] },
    ],
  },
]
const PROFILE = { source: 'demo.share', endpoint: 'http://sharing.example/delta-sharing/', mode: 'proxy' as const }

/** Chooses `file` in the component's file input as a user would. */
function choose(el: Element, file: File): void {
  const input = el.shadowRoot!.querySelector<HTMLInputElement>('input[type=file]')!
  const dt = new DataTransfer()
  dt.items.add(file)
  input.files = dt.files
  input.dispatchEvent(new Event('change', { bubbles: true }))
}

test('a chosen profile file fires profile-open with its text and name', async () => {
  const el = await fixture('st-share-browser')
  const seen = record<ProfileOpenDetail>(document, 'profile-open')
  choose(el, new File(['{"shareCredentialsVersion":1}'], 'demo.share'))
  await waitFor(() => seen.length > 0)
  expect(seen).toEqual([{ text: '{"shareCredentialsVersion":1}', name: 'demo.share' }])
  expect(textOf(el)).toContain('never stored')
})

test('lists shares, schemas and tables; a click fires table-select; `selected` fires nothing', async () => {
  const el = await fixture('st-share-browser', { profile: PROFILE, shares: SHARES, state: 'ready' })
  const seen = record<TableSelectDetail>(document, 'table-select')
  expect(textOf(el)).toContain("through this page's server")
  expect(textOf(el)).toContain('no tables')
  el.selected = URL_M
  await el.updateComplete
  const button = el.shadowRoot!.querySelector<HTMLButtonElement>('button[data-share-table="demo.public.marketing"]')!
  expect(button.getAttribute('aria-pressed')).toBe('true')
  expect(seen).toEqual([])
  button.click()
  expect(seen).toEqual([{ name: 'demo.public.marketing', url: URL_M }])
})

test('loading, error and direct-mode states', async () => {
  const el = await fixture('st-share-browser', { state: 'loading' })
  expect(el.shadowRoot!.querySelector('[role=status]')).not.toBeNull()
  el.error = { context: 'Opening profile x.share', message: 'profile x.share is not JSON', code: 'sharing', causes: [] }
  el.state = 'error'
  await el.updateComplete
  const err = el.shadowRoot!.querySelector('st-error-view')!
  await err.updateComplete
  expect(textOf(err)).toContain('profile x.share is not JSON')
  Object.assign(el, { state: 'ready', error: undefined, profile: { ...PROFILE, mode: 'direct' }, shares: [] })
  await el.updateComplete
  expect(textOf(el)).toContain('directly')
  expect(textOf(el)).toContain('may read no shares')
})

/** A fake library with one shared table; records the calls and the accesses they were given. */
function fakeApi(over: Partial<SnaptrainApi> = {}) {
  const access: ShareAccess = {
    kind: 'share',
    profile: { shareCredentialsVersion: 0, endpoint: ENDPOINT },
    source: 'demo.share',
  }
  const calls: Array<{ call: string; access?: unknown; opts?: unknown }> = []
  const snapshot = {
    tableUrl: URL_M,
    version: 4,
    timestamp: 0,
    schema: { type: 'struct', fields: [] },
  } as unknown as Snapshot
  const field = (name: string) => ({ name, type: 'long', nullable: true, metadata: {} })
  Object.assign(snapshot, {
    protocol: { minReaderVersion: 1, minWriterVersion: 2 },
    metadata: { id: 'i', format: { provider: 'parquet' }, schemaString: '', partitionColumns: [], configuration: {} },
    schema: { type: 'struct', fields: [field('x'), field('y')] },
    partitionColumns: [],
    columnMapping: 'none',
    files: [],
  })
  const none = async () => undefined
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
    listTables: async () => [],
    openProfile: async (text: string, opts?: { source?: string }) => {
      calls.push({ call: `profile ${text} ${opts?.source}` })
      return { access, mode: 'proxy' as const, endpoint: PROFILE.endpoint }
    },
    listShares: async (a: ShareAccess) => {
      calls.push({ call: 'shares', access: a })
      return SHARES
    },
    listCommits: async (url: string, opts?: { access?: unknown }) => {
      calls.push({ call: `commits ${url}`, access: opts?.access })
      return [{ version: 4, timestamp: 0 }]
    },
    openSnapshot: async (url: string, opts?: { access?: unknown; limitHint?: number }) => {
      calls.push({ call: `open ${url} hint ${opts?.limitHint}`, access: opts?.access })
      return snapshot
    },
    readRows: async (_s: Snapshot, opts?: { access?: unknown }) => {
      calls.push({ call: 'rows', access: opts?.access })
      return [{ x: 1n, y: 0 }]
    },
    train: async (config: TrainConfig) => {
      calls.push({ call: `train ${config.table} v${config.version}`, access: config.access })
      throw new Error('fake: stop here')
    },
    sweep: async (config: SweepConfig) => {
      calls.push({ call: `sweep ${config.table}`, access: config.access })
      throw new Error('fake: stop here')
    },
    listSweeps: async () => [],
    ...Object.fromEntries(
      [
        'resumeSweep',
        'stopSweep',
        'getSweep',
        'deleteSweep',
        'exportSweep',
        'importSweep',
        'sweepArtifacts',
        'sweepContinueFiles',
      ].map(m => [m, none]),
    ),
    defaultSpace: () => ({}),
    planSweep: () => ({ errors: [], trials: 1, brackets: [], resourceTotal: 1, resourceFullBudget: 1 }),
    sweepImportance: () => undefined,
    ...over,
  } as unknown as SnaptrainApi
  return { api, calls, access }
}

async function mount(api: SnaptrainApi): Promise<StApp> {
  const el = document.createElement('st-app')
  el.api = api
  document.body.append(el)
  await el.updateComplete
  return el
}

test('st-app: a profile opens, its table opens with the access (preview with limitHint), train and sweep get it', async () => {
  const { api, calls, access } = fakeApi()
  const app = await mount(api)
  const browser = app.shadowRoot!.querySelector('st-share-browser')!
  choose(browser, new File(['PROFILE-TEXT'], 'demo.share'))
  const button = await waitFor(() => browser.shadowRoot!.querySelector<HTMLButtonElement>('button[data-share-table]'))
  expect(calls.slice(0, 2)).toEqual([{ call: 'profile PROFILE-TEXT demo.share' }, { call: 'shares', access }])
  button.click()
  const view = await waitFor(() => app.shadowRoot!.querySelector('st-table-view'))
  await waitFor(() => view.shadowRoot!.querySelector('st-rows-preview'))
  expect(view.name).toBe('demo.public.marketing')
  expect(calls.slice(2)).toEqual([
    { call: `commits ${URL_M}`, access },
    { call: `open ${URL_M} hint undefined`, access },
    { call: `open ${URL_M} hint 20`, access },
    { call: 'rows', access },
  ])

  const panel = await waitFor(() => app.shadowRoot!.querySelector('st-train-panel'))
  panel.dispatchEvent(
    new CustomEvent('train-start', {
      detail: { label: 'y', validFraction: 0.2, params: '{}' },
      bubbles: true,
      composed: true,
    }),
  )
  await waitFor(() => calls.find(c => c.call.startsWith('train')))
  expect(calls.at(-1)).toEqual({ call: `train ${URL_M} v4`, access })

  const config = { model: 'gbdt', table: URL_M, version: 4, label: 'y', strategy: 'random', space: {} } as SweepConfig
  panel.dispatchEvent(new CustomEvent('sweep-start', { detail: config, bubbles: true, composed: true }))
  await waitFor(() => calls.find(c => c.call.startsWith('sweep')))
  expect(calls.at(-1)).toEqual({ call: `sweep ${URL_M}`, access })
})

test('st-app: a profile that cannot be opened is shown in the share browser', async () => {
  const { api } = fakeApi({
    openProfile: async () => {
      throw new TableError(
        'profile bad.share expired at 2020-01-01T00:00:00.000Z; ask the provider for a new profile',
        'sharing',
        'bad.share',
      )
    },
  })
  const app = await mount(api)
  const browser = app.shadowRoot!.querySelector('st-share-browser')!
  choose(browser, new File(['{}'], 'bad.share'))
  const err = await waitFor(() => browser.shadowRoot!.querySelector('st-error-view'))
  await waitFor(() => textOf(err).includes('expired'))
  expect(textOf(err)).toContain('Opening profile bad.share failed')
  expect(textOf(err)).toContain('code: sharing')
})
