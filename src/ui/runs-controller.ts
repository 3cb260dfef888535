/**
 * The kept runs of the app shell: keeps each finished single run (window.snaptrain.saveRun, in
 * IndexedDB) under a default name, lists them after a reload, opens one with its data (the run
 * view), renames and retags it, keeps its explanation once computed (window.snaptrain.updateRun),
 * deletes it (with an undo), downloads a run's files named after it (the CLI's bytes: api.runFiles;
 * the continue bundle as one continue.zip of the CLI's continue/ folder) and loads two runs for the
 * comparison. A ReactiveController like TrainController, so st-app stays the one mediator. Runs of
 * this page session stay in memory as well, so they open and download even where IndexedDB is refused.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit'
import type { Explanation, SnaptrainApi, StoredRun, StoredRunData } from '../api-types.ts'
import { toErrorView } from './errors.ts'
import { trialColour } from './plot.ts'
import type { ComparedRun } from './run-compare.ts'
import { nextRunName, type RunFileKind, runFileName, runName } from './run-list.ts'
import { downloadFile } from './sweep-files.ts'
import { bundleZip, CONTINUE_ZIP } from '../continue/zip.ts'
import type { RunFile } from '../run/artifacts.ts'
import type { ErrorView, LoadState } from './types.ts'

/** The file of each kind, by name, as runFiles lists them (model first). */
const FILE_INDEX: Record<Exclude<RunFileKind, 'continue'>, number> = { model: 0, manifest: 1, metrics: 2 }

/** The kept runs and the comparison; read its fields in the host's render(). */
export class RunsController implements ReactiveController {
  runs: StoredRun[] = []
  listState: LoadState = 'idle'
  error?: ErrorView
  /** Ids ticked for the comparison (at most two: a third replaces the older). */
  compared: string[] = []
  /** The compared runs with their data. */
  comparison: ComparedRun[] = []
  /** The run the run view shows, with its data, once read. */
  detail?: { run: StoredRun; data: StoredRunData }
  detailState: LoadState = 'idle'
  detailError?: ErrorView
  /** The last run deleted, until undone or another is deleted. */
  deleted?: { run: StoredRun; data: StoredRunData }
  private readonly session = new Map<string, { run: StoredRun; data: StoredRunData }>()
  /** Saves in flight, by run id: an update waits for the run's put. */
  private readonly saving = new Map<string, Promise<void>>()
  private loaded: Promise<void> = Promise.resolve()
  private compareTicket = 0

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly api: () => SnaptrainApi,
  ) {
    host.addController(this)
  }

  hostConnected(): void {
    if (this.listState === 'idle') this.loaded = this.load()
  }

  /** Reads the kept runs. */
  async load(): Promise<void> {
    this.listState = 'loading'
    this.host.requestUpdate()
    try {
      const kept = await this.api().listRuns()
      const ids = new Set(kept.map(r => r.id))
      const unsaved = [...this.session.values()].map(s => s.run).filter(r => !ids.has(r.id))
      this.runs = [...unsaved, ...kept].sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      this.listState = 'ready'
    } catch (e) {
      this.error = toErrorView('Reading the kept runs', e)
      this.listState = 'error'
    }
    this.host.requestUpdate()
  }

  /**
   * Keeps a finished run (memory at once, IndexedDB when it answers) and lists it first; a run
   * without a name gets the default one (run-list.ts nextRunName).
   */
  async keep(given: StoredRun, data: StoredRunData): Promise<void> {
    const run = given.name ? given : { ...given, name: nextRunName(this.runs, given) }
    this.session.set(run.id, { run, data })
    this.runs = [run, ...this.runs.filter(r => r.id !== run.id)].sort((a, b) => b.createdAt.localeCompare(a.createdAt))
    if (this.detail?.run.id === run.id) this.detail = { run, data }
    this.host.requestUpdate()
    const saved = this.api().saveRun(run, data)
    this.saving.set(
      run.id,
      saved.catch(() => {}),
    )
    try {
      await saved
    } catch (e) {
      this.error = toErrorView(`Keeping run ${runName(run)} in this browser`, e)
      this.host.requestUpdate()
    }
  }

  /** Reads run `id` with its data for the run view (`detail`); after a reload it waits for the list. */
  async open(id: string): Promise<void> {
    if (this.detail?.run.id === id && this.detailState === 'ready') return
    Object.assign(this, { detail: undefined, detailState: 'loading', detailError: undefined })
    this.host.requestUpdate()
    await this.loaded
    try {
      const found = await this.runWithData(id)
      Object.assign(this, { detail: found, detailState: 'ready' })
    } catch (e) {
      Object.assign(this, { detailState: 'error', detailError: toErrorView(`Opening run ${id}`, e) })
    }
    this.host.requestUpdate()
  }

  /** Renames run `id`. */
  async rename(id: string, name: string): Promise<void> {
    await this.change(id, { name })
  }

  /** Sets run `id`'s tags. */
  async retag(id: string, tags: string[]): Promise<void> {
    await this.change(id, { tags })
  }

  /** Keeps the explanation of run `id` with its data, so its view shows it after a reload without recomputing. */
  async explained(id: string, explanation: Explanation): Promise<void> {
    const mine = this.session.get(id)
    if (mine) this.session.set(id, { run: mine.run, data: { ...mine.data, explanation } })
    if (this.detail?.run.id === id) this.detail = { ...this.detail, data: { ...this.detail.data, explanation } }
    await this.saving.get(id)
    try {
      await this.api().updateRun(id, { data: { explanation } })
    } catch (e) {
      this.error = toErrorView(`Keeping the explanation of run ${id}`, e)
      this.host.requestUpdate()
    }
  }

  private async change(id: string, patch: Pick<StoredRun, 'name' | 'tags'>): Promise<void> {
    const edit = (r: StoredRun) => (r.id === id ? { ...r, ...patch } : r)
    this.runs = this.runs.map(edit)
    const mine = this.session.get(id)
    if (mine) this.session.set(id, { ...mine, run: edit(mine.run) })
    if (this.detail?.run.id === id) this.detail = { ...this.detail, run: edit(this.detail.run) }
    this.comparison = this.comparison.map(c => ({ ...c, run: edit(c.run) }))
    this.host.requestUpdate()
    await this.saving.get(id)
    try {
      await this.api().updateRun(id, { run: patch })
    } catch (e) {
      this.error = toErrorView(`Changing run ${id}`, e)
      this.host.requestUpdate()
    }
  }

  /** Deletes run `id`; `undo` brings it back while it is the last deleted. */
  async remove(id: string): Promise<void> {
    const kept = await this.runWithData(id).catch(() => undefined)
    this.session.delete(id)
    this.runs = this.runs.filter(r => r.id !== id)
    this.compared = this.compared.filter(x => x !== id)
    if (this.detail?.run.id === id) Object.assign(this, { detail: undefined, detailState: 'idle' })
    this.deleted = kept
    this.host.requestUpdate()
    try {
      await this.api().deleteRun(id)
    } catch (e) {
      this.error = toErrorView(`Deleting run ${id}`, e)
    }
    this.host.requestUpdate()
  }

  /** Keeps the last deleted run again. */
  async undo(): Promise<void> {
    const d = this.deleted
    if (!d) return
    this.deleted = undefined
    await this.keep(d.run, d.data)
  }

  /** Saves one of run `id`'s files through the browser's download, named after the run. */
  async download(id: string, kind: RunFileKind): Promise<void> {
    try {
      const { run, data } = await this.runWithData(id)
      const files = await this.api().runFiles({ model: data.model, manifest: run.manifest, metrics: run.metrics })
      if (kind === 'continue') {
        const blob = new Blob([continueZip(files)], { type: 'application/zip' })
        downloadFile({ name: runFileName(run, CONTINUE_ZIP), blob })
        return
      }
      const f = files[FILE_INDEX[kind]]
      const type =
        kind === 'metrics' ? 'text/csv' : typeof f.data === 'string' ? 'application/json' : 'application/octet-stream'
      downloadFile({ name: runFileName(run, f.name), blob: new Blob([f.data], { type }) })
    } catch (e) {
      this.error = toErrorView(`Downloading the ${kind} of run ${id}`, e)
      this.host.requestUpdate()
    }
  }

  /** Ticks (`on`) or unticks run `id` for the comparison. */
  toggle(id: string, on: boolean): void {
    const rest = this.compared.filter(x => x !== id)
    this.compared = on ? [...rest, id].slice(-2) : rest
    this.host.requestUpdate()
  }

  /** Loads runs `ids` with their data for the comparison (`comparison`); after a reload it waits for the list. */
  async compare(ids: string[]): Promise<void> {
    const ticket = ++this.compareTicket
    this.comparison = []
    this.host.requestUpdate()
    await this.loaded
    if (ticket !== this.compareTicket) return
    const loaded = await Promise.all(
      ids.map(async (x, i): Promise<ComparedRun | undefined> => {
        const run = this.runs.find(r => r.id === x)
        if (!run) return undefined
        const data = await this.runWithData(x).then(
          r => r.data,
          () => undefined,
        )
        return { run, data, colour: trialColour(i) }
      }),
    )
    if (ticket !== this.compareTicket) return // another comparison asked meanwhile
    this.comparison = loaded.filter((c): c is ComparedRun => c !== undefined)
    this.host.requestUpdate()
  }

  private async runWithData(id: string): Promise<{ run: StoredRun; data: StoredRunData }> {
    const mine = this.session.get(id)
    if (mine) return mine
    const run = this.runs.find(r => r.id === id)
    const data = await this.api().runData(id)
    if (!run || !data) throw new Error(`run ${id}: not kept in this browser`)
    return { run, data }
  }
}

/** The zip of a run's continue/ files; throws with the manifest's reason when the bundle could not be made. */
function continueZip(files: RunFile[]): Uint8Array<ArrayBuffer> {
  const bundle = files.filter(f => f.name.startsWith('continue/'))
  if (bundle.length) return bundleZip(bundle)
  const why = (JSON.parse(String(files[1].data)) as { continue_error?: string }).continue_error
  throw new Error(`no continue bundle for this run: ${why ?? 'none was made'}`)
}
