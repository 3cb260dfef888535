/**
 * The Runs list of the app shell: keeps each finished single run (window.snaptrain.saveRun, in
 * IndexedDB), lists them after a reload, deletes them, downloads a run's files (the CLI's bytes:
 * api.runFiles; the continue bundle as one continue.zip of the CLI's continue/ folder) and loads the two runs ticked for the comparison. A ReactiveController like
 * TrainController, so st-app stays the one mediator. Runs of this page session stay in memory as
 * well, so their downloads work even where IndexedDB is refused.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit'
import type { SnaptrainApi, StoredRun, StoredRunData } from '../api-types.ts'
import { toErrorView } from './errors.ts'
import { trialColour } from './plot.ts'
import type { ComparedRun } from './run-compare.ts'
import type { RunFileKind } from './run-list.ts'
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
  private readonly session = new Map<string, { run: StoredRun; data: StoredRunData }>()

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly api: () => SnaptrainApi,
  ) {
    host.addController(this)
  }

  hostConnected(): void {
    if (this.listState === 'idle') void this.load()
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

  /** Keeps a finished run (memory at once, IndexedDB when it answers) and lists it first. */
  async keep(run: StoredRun, data: StoredRunData): Promise<void> {
    this.session.set(run.id, { run, data })
    this.runs = [run, ...this.runs.filter(r => r.id !== run.id)]
    this.host.requestUpdate()
    try {
      await this.api().saveRun(run, data)
    } catch (e) {
      this.error = toErrorView(`Keeping run ${run.id} in this browser`, e)
      this.host.requestUpdate()
    }
  }

  /** Deletes run `id`. */
  async remove(id: string): Promise<void> {
    this.session.delete(id)
    this.runs = this.runs.filter(r => r.id !== id)
    await this.toggle(id, false)
    try {
      await this.api().deleteRun(id)
    } catch (e) {
      this.error = toErrorView(`Deleting run ${id}`, e)
    }
    this.host.requestUpdate()
  }

  /** Saves one of run `id`'s files through the browser's download. */
  async download(id: string, kind: RunFileKind): Promise<void> {
    try {
      const { run, data } = await this.runWithData(id)
      const files = await this.api().runFiles({ model: data.model, manifest: run.manifest, metrics: run.metrics })
      if (kind === 'continue') {
        downloadFile({ name: CONTINUE_ZIP, blob: new Blob([continueZip(files)], { type: 'application/zip' }) })
        return
      }
      const f = files[FILE_INDEX[kind]]
      const type =
        kind === 'metrics' ? 'text/csv' : typeof f.data === 'string' ? 'application/json' : 'application/octet-stream'
      downloadFile({ name: f.name, blob: new Blob([f.data], { type }) })
    } catch (e) {
      this.error = toErrorView(`Downloading the ${kind} of run ${id}`, e)
      this.host.requestUpdate()
    }
  }

  /** Ticks (`on`) or unticks run `id` for the comparison and loads the compared runs' data. */
  async toggle(id: string, on: boolean): Promise<void> {
    const rest = this.compared.filter(x => x !== id)
    this.compared = on ? [...rest, id].slice(-2) : rest
    this.host.requestUpdate()
    const ids = this.compared
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
    if (ids !== this.compared) return // ticked again meanwhile
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
