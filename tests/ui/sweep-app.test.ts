import { afterEach, expect, test, vi } from 'vitest'
import '../../src/ui/app.ts'
import type { SnaptrainApi, Snapshot, TrainConfig, TrainProgress } from '../../src/api-types.ts'
import type { SweepApi, SweepConfig, SweepEvent, SweepState } from '../../src/ui/types.ts'
import { cleanup, textOf, waitFor } from './fixture.ts'
import { optunaJournal, readJournal } from '../../src/tune/optuna.ts'
import { prepareSweep } from '../../src/sweep/plan.ts'
import type { TrialRequest } from '../../src/tune/types.ts'
import { CONFIG, importanceOf, sweepState, trial, trials } from './sweep-fakes.ts'
import { familyOf } from '../../src/models/registry.ts'

afterEach(() => {
  cleanup()
  vi.restoreAllMocks()
})

const FIELDS = ['age', 'job', 'y'].map(name => ({
  name,
  type: name === 'job' ? 'string' : 'integer',
  nullable: false,
  metadata: {},
}))

/** A fake library with tables and an in-memory sweep store; `run` scripts what sweep() does. */
function fakeApi(
  run: (config: SweepConfig, on: (e: SweepEvent) => void, id: string) => Promise<SweepState>,
  stored: SweepState[] = [],
) {
  const store = new Map(stored.map(s => [s.id, s]))
  const calls: string[] = []
  /** Trial counts of the states sweepImportance was asked about. */
  const asked: number[] = []
  const sweeps: SweepApi = {
    sweep: async (config, on = () => {}, opts) => {
      calls.push(`sweep ${config.strategy}`)
      const s = await run(config, on, opts!.id!)
      store.set(s.id, s)
      return s
    },
    resumeSweep: async id => {
      calls.push(`resume ${id}`)
      return store.get(id)!
    },
    stopSweep: async id => {
      calls.push(`stop ${id}`)
    },
    listSweeps: async () => [...store.values()],
    getSweep: async id => store.get(id),
    deleteSweep: async id => {
      store.delete(id)
    },
    exportSweep: async id => JSON.stringify(store.get(id)),
    importSweep: async json => JSON.parse(json),
    sweepArtifacts: async (_id, t) => ({
      model: `{"trial": ${t}}`,
      manifest: { table: CONFIG.table, version: 0, seed: 1 },
    }),
    defaultSpace: () => ({ eta: { type: 'loguniform', low: 0.01, high: 0.3 } }),
    planSweep: c => ({
      errors: c.maxResource! < 1 ? ['maxResource must be ≥ 1'] : [],
      trials: 13,
      brackets: [{ index: 0, rungs: [] }],
      resourceTotal: 40,
      resourceFullBudget: 117,
    }),
    sweepContinueFiles: async id => [{ name: 'continue/continue.json', data: `{"sweep":"${id}"}\n` }],
    sweepImportance: s => {
      asked.push(s.trials.length)
      return importanceOf(s)
    },
  }
  const snapshot = (url: string): Snapshot =>
    ({
      tableUrl: url,
      version: 0,
      timestamp: 0,
      protocol: { minReaderVersion: 1, minWriterVersion: 2 },
      metadata: { id: 'i', format: { provider: 'parquet' }, schemaString: '', partitionColumns: [], configuration: {} },
      schema: { type: 'struct', fields: FIELDS },
      partitionColumns: [],
      columnMapping: 'none',
      files: [],
    }) as Snapshot
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
    listTables: async () => [{ name: 'm', url: 'http://h/tables/m/' }],
    listCommits: async () => [
      { version: 0, timestamp: 0, operation: 'WRITE', operationMetrics: { numOutputRows: '100' } },
    ],
    openSnapshot: async (url: string) => snapshot(url),
    readRows: async () => [],
    train: async () => {
      throw new Error('not scripted')
    },
    predict: async () => {
      throw new Error('unused')
    },
    ...sweeps,
  } as unknown as SnaptrainApi
  return { api, calls, store, asked }
}

/** Finds `sel` through nested shadow roots: 'st-app >>> st-sweep-view >>> st-trial-table'. */
function deep(sel: string): HTMLElement | null {
  let root: ParentNode = document
  let el: Element | null = null
  for (const part of sel.split(' >>> ')) {
    el = root.querySelector(part)
    if (!el) return null
    root = el.shadowRoot ?? el
  }
  return el as HTMLElement
}

async function mount(api: SnaptrainApi) {
  const app = document.createElement('st-app')
  Object.assign(app, { api })
  document.body.append(app)
  return app
}

test('stored sweeps are listed; opening one shows its trials, curves and best card', async () => {
  const old = sweepState('old', [trial(0, 'completed', { eta: 0.1 }, 0.8), trial(1, 'stopped', { eta: 0.3 }, 0.7, 1)])
  const { api } = fakeApi(async () => {
    throw new Error('unused')
  }, [old])
  await mount(api)
  const item = await waitFor(() => deep('st-app >>> st-home-list >>> tr[data-sweep=old] td.name a'))
  item.click()
  await waitFor(() => deep('st-app >>> st-sweep-view >>> st-trial-table >>> tr[data-trial="1"]'))
  expect(deep('st-app >>> st-sweep-view >>> st-sweep-curves')!.dataset.series).toBe('2')
  await waitFor(() => textOf(deep('st-app >>> st-sweep-view >>> st-sweep-result')!).includes('continue.zip'))
})

test('parameter importance comes from window.snaptrain.sweepImportance, asked once per state', async () => {
  const old = sweepState('imp', trials(9))
  const { api, asked } = fakeApi(async () => {
    throw new Error('unused')
  }, [old])
  await mount(api)
  const item = await waitFor(() => deep('st-app >>> st-home-list >>> tr[data-sweep=imp] td.name a'))
  item.click()
  const row = await waitFor(() =>
    deep('st-app >>> st-sweep-view >>> st-param-importance >>> .row[data-param=max_depth]'),
  )
  expect(textOf(row)).toContain('90%')
  expect(asked).toEqual([9])
})

test('start from the setup form: live events fill the view; downloads save named files; reload-free list update', async () => {
  let release!: () => void
  const gate = new Promise<void>(r => {
    release = r
  })
  const { api, calls } = fakeApi(async (config, on, id) => {
    on({ kind: 'stage', message: 'binning features', fraction: 0.5 })
    const running = { ...sweepState(id, [], { status: 'running', best: undefined }), config }
    on({ kind: 'state', state: running })
    on({ kind: 'trial', trial: trial(0, 'running', { eta: 0.1 }, 0.7, 1) })
    await gate
    const done = sweepState(id, [trial(0, 'completed', { eta: 0.1 }, 0.8), trial(1, 'stopped', { eta: 0.2 }, 0.6, 1)], {
      config,
    })
    on({ kind: 'state', state: done })
    return done
  })
  await mount(api)
  ;(await waitFor(() => deep('st-app >>> st-table-list >>> button[data-table=m]'))).click()
  ;(await waitFor(() => deep('st-app >>> button[data-mode=sweep]'))).click()
  const setup = await waitFor(() => deep('st-app >>> st-sweep-setup'))
  await waitFor(() => textOf(setup).includes('13 trial runs in 1 bracket · 40 boosting rounds in total vs 117'))
  ;(setup.shadowRoot!.querySelector('button[type=submit]') as HTMLButtonElement).click()
  await waitFor(() => deep('st-app >>> st-sweep-view >>> st-trial-table >>> tr[data-trial="0"][data-status=running]'))
  // Starting it opened its view: #/sweeps/<id>.
  const started = deep('st-app >>> [data-view=sweep]')!
  expect(location.hash).toBe(`#/sweeps/${started.dataset.sweep}`)
  expect(textOf(deep('st-app >>> st-sweep-view >>> .stage')!)).toContain('binning features')
  expect((deep('st-app >>> st-sweep-view >>> .stage progress') as HTMLProgressElement).value).toBe(0.5)
  expect(deep('st-app >>> st-sweep-view >>> button.stop')).not.toBeNull()
  expect(calls).toEqual(['sweep hyperband'])
  deep('st-app >>> st-sweep-view >>> button.stop')!.click()
  await waitFor(() => calls.length === 2)
  expect(calls[1]).toMatch(/^stop sw-/)
  release()
  await waitFor(() => deep('st-app >>> st-sweep-view >>> st-trial-table >>> tr[data-trial="1"][data-status=pruned]'))
  const saved: Array<{ name: string; text: Promise<string> }> = []
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    saved.push({ name: this.download, text: fetch(this.href).then(r => r.text()) })
  })
  const card = await waitFor(() => deep('st-app >>> st-sweep-view >>> st-sweep-result'))
  const kinds = ['params', 'model', 'model-ubj', 'manifest', 'csv', 'continue', 'sweep', 'optuna']
  for (const kind of kinds) {
    ;(card.shadowRoot!.querySelector(`button[data-download=${kind}]`) as HTMLButtonElement).click()
    await waitFor(() => saved.length === kinds.indexOf(kind) + 1)
  }
  const id = (deep('st-app >>> st-sweep-view') as unknown as { state: SweepState }).state.id
  expect(saved.map(s => s.name.replace(id, 'ID'))).toEqual([
    'sweep-ID-params.json',
    'sweep-ID-trial0-model.json',
    'sweep-ID-trial0-model.ubj',
    'sweep-ID-trial0-manifest.json',
    'sweep-ID-trials.csv',
    'sweep-ID-continue.zip',
    'sweep-ID.json',
    'sweep-ID-optuna-journal.log',
  ])
  expect(JSON.parse(await saved[0]!.text)).toEqual({ eta: 0.1 })
  expect((await saved[4]!.text).trim().split('\n')).toHaveLength(3)
  // The journal download: one study (this sweep) and one CREATE_TRIAL per trial (tune/optuna.ts).
  const journal = readJournal(await saved[kinds.indexOf('optuna')]!.text)
  expect(journal.map(s => s.name)).toEqual([id])
  const shown = (deep('st-app >>> st-sweep-view') as unknown as { state: SweepState }).state
  expect(journal[0]!.trials).toHaveLength(shown.trials.length)
  // Home lists it, finished (no Resume), without a reload.
  location.hash = '#/' // the crumb's link (anchor clicks are captured above for the downloads)
  await waitFor(
    () =>
      deep('st-app >>> st-home-list >>> tr[data-sweep] button.resume') === null &&
      deep(`st-app >>> st-home-list >>> tr[data-sweep="${id}"]`),
  )
})

test('a sweep that fails shows the error with its cause, and no spinner stays', async () => {
  const { api } = fakeApi(async (_c, on) => {
    on({ kind: 'stage', message: 'reading the table', fraction: 0.1 })
    throw new Error('planning tables/m: column y missing', { cause: new Error('schema has age, job') })
  })
  await mount(api)
  ;(await waitFor(() => deep('st-app >>> st-table-list >>> button[data-table=m]'))).click()
  ;(await waitFor(() => deep('st-app >>> button[data-mode=sweep]'))).click()
  const setup = await waitFor(() => deep('st-app >>> st-sweep-setup >>> button[type=submit]:not([disabled])'))
  setup.click()
  const err = await waitFor(() => deep('st-app >>> st-sweep-view >>> st-error-view'))
  await waitFor(() => textOf(err).includes('schema has age, job'))
  expect(textOf(err)).toContain('column y missing')
  expect(deep('st-app >>> st-sweep-view >>> .stage')).toBeNull()
  expect(deep('st-app >>> st-sweep-view >>> button.resume')).not.toBeNull()
})

test('recommender from the Train panel: model recsys reaches api.train and the curve gets a point per evaluation', async () => {
  const calls: TrainConfig[] = []
  const { api } = fakeApi(async () => {
    throw new Error('unused')
  })
  Object.assign(api, {
    train: async (config: TrainConfig, onProgress?: (p: TrainProgress) => void) => {
      calls.push(config)
      for (let i = 0; i < 3; i++)
        onProgress?.({
          kind: 'round',
          round: i,
          rounds: 3,
          metrics: { train_loss: 0.6 - i * 0.05, auc: 0.6 + i * 0.05, logloss: 0.6 },
          elapsedMs: i,
        })
      return {
        model: new Uint8Array(4),
        manifest: {},
        metrics: [],
        summary: {
          model: 'recsys',
          auc: 0.7,
          logloss: 0.6,
          rounds: 3,
          best_iteration: 2,
          train_seconds: 1,
          rows_train: 90,
          rows_valid: 10,
          rows_per_second: 900,
          adapter: 'fake',
          samples_per_second: 900,
          epochs: 1,
          steps: 30,
        },
      }
    },
  })
  await mount(api)
  ;(await waitFor(() => deep('st-app >>> st-table-list >>> button[data-table=m]'))).click()
  const panel = await waitFor(() => deep('st-app >>> st-train-panel'))
  await waitFor(() => panel.shadowRoot?.querySelector('select#model'))
  const model = panel.shadowRoot!.querySelector('select#model') as HTMLSelectElement
  model.value = 'recsys'
  model.dispatchEvent(new Event('change'))
  await waitFor(() => (panel.shadowRoot!.querySelector('textarea') as HTMLTextAreaElement).value.includes('batch_size'))
  ;(panel.shadowRoot!.querySelector('button[type=submit]') as HTMLButtonElement).click()
  const curve = await waitFor(() => deep('st-app >>> st-train-curve'))
  await waitFor(() => curve.dataset.points === '3')
  expect(textOf(curve)).toContain('train_loss')
  expect(calls[0]).toMatchObject({
    model: 'recsys',
    table: 'http://h/tables/m/',
    label: 'y',
    params: { epochs: 1, batch_size: 1024, layers: [64, 32] },
  })
  await waitFor(() => textOf(panel).includes('3 evaluations (1 epochs, 30 steps)'))
  expect(textOf(panel)).toContain('900 samples/s')
})

test('resume from the list; clone-and-edit refills the setup form with the sweep config', async () => {
  const stopped = sweepState('st1', [trial(0, 'completed', { eta: 0.1 }, 0.8)], {
    status: 'stopped',
    config: { ...CONFIG, strategy: 'asha', name: 'night run' },
  })
  const { api, calls } = fakeApi(async () => {
    throw new Error('unused')
  }, [stopped])
  await mount(api)
  ;(await waitFor(() => deep('st-app >>> st-home-list >>> tr[data-sweep=st1] button.resume'))).click()
  await waitFor(() => calls.includes('resume st1'))
  await waitFor(() => deep('st-app >>> st-sweep-view >>> st-trial-table >>> tr[data-trial="0"]'))
  ;(await waitFor(() => deep('st-app >>> st-sweep-view >>> button.clone'))).click()
  const setup = await waitFor(() => deep('st-app >>> st-sweep-setup'))
  await waitFor(
    () => (setup.shadowRoot?.querySelector('select#strategy') as HTMLSelectElement | null)?.value === 'asha',
  )
  expect((setup.shadowRoot!.querySelector('input#name') as HTMLInputElement).value).toBe('night run (copy)')
  expect((setup.shadowRoot!.querySelector('input#maxResource') as HTMLInputElement).value).toBe('9')
  expect(JSON.parse((setup.shadowRoot!.querySelector('textarea') as HTMLTextAreaElement).value)).toEqual(CONFIG.space)
  // The clone opened the sweep's table (the form needs its schema).
  expect(textOf(deep('st-app >>> st-table-view')!)).toContain('http://h/tables/m/')
})

/** Chooses `text` as file `name` in file input `input` (what a user's pick does). */
function upload(input: HTMLInputElement, name: string, text: string): void {
  const files = new DataTransfer()
  files.items.add(new File([text], name, { type: 'text/plain' }))
  input.files = files.files
  input.dispatchEvent(new Event('change'))
}

test('warm start from an uploaded Optuna journal: a bad one is named and starts nothing; the study is chosen, the space checked, the first trial is the best', async () => {
  const started: Array<{ config: SweepConfig; first: TrialRequest }> = []
  const { api, calls } = fakeApi(async (config, on, id) => {
    // The engine's own strategy (src/sweep/plan.ts, what window.snaptrain.sweep runs): its first request.
    const first = prepareSweep(config).strategy.next() as TrialRequest
    started.push({ config, first })
    const t = trial(first.id, 'completed', first.config, 0.9)
    on({ kind: 'trial', trial: t })
    return { ...sweepState(id, [t]), config }
  })
  await mount(api)
  ;(await waitFor(() => deep('st-app >>> st-table-list >>> button[data-table=m]'))).click()
  ;(await waitFor(() => deep('st-app >>> button[data-mode=sweep]'))).click()
  const setup = await waitFor(() => deep('st-app >>> st-sweep-setup'))
  const root = setup.shadowRoot!
  const q = <T extends Element>(sel: string) => root.querySelector(sel) as T | null
  await waitFor(() => q('button[type=submit]:not([disabled])'))

  // A journal that is not one: the error names the file and line, nothing can start.
  upload(
    q<HTMLInputElement>('input#warm-journal')!,
    'bad.log',
    '{"op_code": 0, "study_name": "s", "directions": [2]}\nnot json\n{}\n',
  )
  await waitFor(() => textOf(setup).includes('warm start: bad.log line 2: not JSON'))
  expect(q('.seeded')).toBeNull()
  expect(q<HTMLButtonElement>('button[type=submit]')!.disabled).toBe(true)
  q<HTMLButtonElement>('button[type=submit]')!.click()
  await new Promise(r => setTimeout(r, 50))
  expect(calls).toEqual([])

  // Two studies written by optunaJournal (snaptrain's own journal writer): trials 1 (auc 0.85) is prev's best.
  const prev = sweepState('prev', [
    trial(0, 'completed', { eta: 0.1, max_depth: 4 }, 0.8),
    trial(1, 'completed', { eta: 0.05, max_depth: 6 }, 0.85),
    trial(2, 'stopped', { eta: 0.2, max_depth: 3 }, 0.9, 1),
    trial(3, 'failed', { eta: 0.3, max_depth: 2 }, undefined),
  ])
  const other = sweepState('other', [trial(0, 'completed', { eta: 0.02, max_depth: 7 }, 0.7)])
  const prevLines = optunaJournal(prev, familyOf('gbdt'))
  const journal = prevLines + optunaJournal(other, familyOf('gbdt'), prevLines)
  upload(q<HTMLInputElement>('input#warm-journal')!, 'optuna.log', journal)
  const study = await waitFor(() => q<HTMLSelectElement>('select#warm-study'))
  expect([...study.options].map(o => o.value)).toEqual(['', 'prev', 'other'])
  expect(textOf(setup)).toContain('warm start: optuna.log: holds 2 studies ("prev", "other")')
  study.value = 'prev'
  study.dispatchEvent(new Event('change'))
  // The form's space searches eta only: the journal's max_depth is named as outside it.
  await waitFor(() => textOf(setup).includes('warm start: optuna.log: study "prev", trial 0: params.max_depth'))
  expect(q<HTMLButtonElement>('button[type=submit]')!.disabled).toBe(true)
  const space = q<HTMLTextAreaElement>('textarea#space')!
  space.value = JSON.stringify(CONFIG.space)
  space.dispatchEvent(new Event('input'))
  const seeded = await waitFor(() => q<HTMLElement>('.seeded'))
  // COMPLETE trials only (the stopped one is PRUNED, the failed FAIL in the journal): 2, best 0.85.
  expect(seeded.dataset.seeded).toBe('2')
  expect(textOf(seeded)).toContain('seeded 2 trials from study "prev" of optuna.log, best value 0.85000 (auc)')
  expect(q('ul.errors')).toBeNull()

  q<HTMLButtonElement>('button[type=submit]')!.click()
  await waitFor(() => started.length === 1)
  expect(calls).toEqual(['sweep hyperband'])
  const { config, first } = started[0]!
  expect(config.warmStart).toMatchObject({ journal: 'optuna.log', study: 'prev' })
  expect(config.warmStart!.trials.map(t => [t.number, t.metric])).toEqual([
    [0, 0.8],
    [1, 0.85],
  ])
  expect(first.config).toEqual({ eta: 0.05, max_depth: 6 })
  await waitFor(() => deep('st-app >>> st-sweep-view >>> st-trial-table >>> tr[data-trial="0"]'))
})
