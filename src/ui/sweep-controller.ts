/**
 * The sweeps of the app shell: the stored list, the sweep on screen and its live events, and
 * what its buttons ask for (start, stop, resume, clone, delete, import, downloads). A
 * ReactiveController like TrainController, so st-app stays the one mediator; it is the only UI
 * code that calls the sweep methods of window.snaptrain. Store reads are bounded by a deadline;
 * a running sweep reports through its events, so it never shows a spinner that does not end.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit'
import type { SnaptrainApi, TableAccess } from '../api-types.ts'
import { withTimeout } from '../util/deadline.ts'
import { newSweepState } from '../tune/sweep-state.ts'
import { toErrorView } from './errors.ts'
import { downloadFile, sweepFile } from './sweep-files.ts'
import type { StageView } from './sweep-view.ts'
import type {
  ErrorView,
  LoadState,
  ParamImportance,
  SweepApi,
  SweepConfig,
  SweepDownloadKind,
  SweepEvent,
  SweepState,
  TrialRecord,
} from './types.ts'

const SWEEP_METHODS: ReadonlyArray<keyof SweepApi> = [
  'sweep',
  'resumeSweep',
  'stopSweep',
  'listSweeps',
  'getSweep',
  'deleteSweep',
  'exportSweep',
  'importSweep',
  'sweepArtifacts',
  'defaultSpace',
  'planSweep',
  'sweepContinueFiles',
  'sweepImportance',
]

/** `api` as a SweepApi; throws naming the missing methods when the page's API has no sweeps. */
export function sweepApiOf(api: SnaptrainApi): SweepApi {
  const missing = SWEEP_METHODS.filter(m => typeof (api as unknown as Record<string, unknown>)[m] !== 'function')
  if (missing.length) throw new Error(`window.snaptrain has no sweep API (missing: ${missing.join(', ')})`)
  return api as unknown as SweepApi
}

/** `s` with trial `t` replaced (or added), trials in id order. */
export function withTrial(s: SweepState, t: TrialRecord): SweepState {
  return { ...s, trials: [...s.trials.filter(x => x.id !== t.id), t].sort((a, b) => a.id - b.id) }
}

/** Read its fields in the host's render(). */
export class SweepController implements ReactiveController {
  sweeps: SweepState[] = []
  listState: LoadState = 'idle'
  listError?: ErrorView
  /** The sweep on screen. */
  current?: SweepState
  /** Error of the last action on the current sweep (start, stop, resume, download …). */
  error?: ErrorView
  /** A config for the setup form to refill (Clone and edit). */
  cloneOf?: SweepConfig
  /** Ids of sweeps this page runs now. */
  readonly active = new Set<string>()
  private readonly stages = new Map<string, StageView>()
  /** Importance of the last state asked for (a trial event makes a new state object, so it is recomputed then). */
  private importanceOf?: { state: SweepState; value?: ParamImportance[]; error?: string }

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly api: () => SnaptrainApi,
    private readonly timeoutMs: () => number,
    /** The governed access a table URL is read with (a share's): given to sweeps on it, never stored. */
    private readonly accessOf: (url: string) => TableAccess | undefined = () => undefined,
  ) {
    host.addController(this)
  }

  hostConnected(): void {
    if (this.listState === 'idle') void this.refresh()
  }

  /** Stage of the current sweep while this page runs it. */
  get stage(): StageView | undefined {
    return this.current && this.stages.get(this.current.id)
  }

  /**
   * Parameter importance of the current sweep (window.snaptrain.sweepImportance), computed once
   * per state; undefined until 8 trials finished.
   */
  get importance(): ParamImportance[] | undefined {
    return this.importanceNow()?.value
  }

  /** Why the importance of the current sweep could not be computed (shown in its panel). */
  get importanceError(): string | undefined {
    return this.importanceNow()?.error
  }

  private importanceNow(): { value?: ParamImportance[]; error?: string } | undefined {
    const s = this.current,
      lib = this.lib
    if (!s || !lib) return undefined
    if (this.importanceOf?.state !== s) {
      // Caught here, not thrown from render: the panel says why and the rest of the sweep still shows.
      try {
        this.importanceOf = { state: s, value: lib.sweepImportance(s) }
      } catch (e) {
        this.importanceOf = { state: s, error: e instanceof Error ? e.message : String(e) }
      }
    }
    return this.importanceOf
  }

  /** The sweep methods, or undefined (with the list showing why) when the API has none. */
  get lib(): SweepApi | undefined {
    try {
      return sweepApiOf(this.api())
    } catch {
      return undefined
    }
  }

  /** Re-reads the stored sweeps. */
  async refresh(): Promise<void> {
    this.listState = 'loading'
    this.update()
    try {
      const list = await this.bounded(sweepApiOf(this.api()).listSweeps(), 'listing stored sweeps')
      this.sweeps = list
      this.listState = 'ready'
      if (this.current)
        this.current = this.active.has(this.current.id)
          ? this.current
          : (list.find(s => s.id === this.current!.id) ?? this.current)
    } catch (e) {
      Object.assign(this, { listState: 'error', listError: toErrorView('Reading the stored sweeps', e) })
    }
    this.update()
  }

  /** Starts a sweep and shows it; resolves when it ended (never rejects: failures become `error`). */
  async start(config: SweepConfig): Promise<void> {
    const id = `sw-${Date.now().toString(36)}-${Math.floor(Math.random() * 36 ** 4).toString(36)}`
    this.show(newSweepState(config, id))
    const access = this.accessOf(config.table)
    const run = access ? { ...config, access } : config
    await this.run(id, `Running the sweep on ${config.table}`, (lib, on) => lib.sweep(run, on, { id }))
  }

  /** Resumes stored sweep `id` in this page. */
  async resume(id: string): Promise<void> {
    if (this.active.has(id)) return
    const known = this.sweeps.find(s => s.id === id)
    if (known) this.show(known)
    const access = known && this.accessOf(known.config.table)
    await this.run(id, `Resuming sweep ${id}`, (lib, on) => lib.resumeSweep(id, on, access && { access }))
  }

  /** Asks sweep `id` to stop; its running trials end and it is stored as stopped. */
  async stop(id: string): Promise<void> {
    await this.act(`Stopping sweep ${id}`, lib => lib.stopSweep(id))
  }

  /** Shows stored sweep `id`. */
  async open(id: string): Promise<void> {
    const s = this.sweeps.find(x => x.id === id) ?? (await this.act(`Reading sweep ${id}`, lib => lib.getSweep(id)))
    if (s) this.show(s)
  }

  /** Deletes stored sweep `id` (not while it runs). */
  async remove(id: string): Promise<void> {
    if (this.active.has(id)) return
    await this.act(`Deleting sweep ${id}`, lib => lib.deleteSweep(id))
    if (this.current?.id === id) this.current = undefined
    await this.refresh()
  }

  /** Refills the setup form with sweep `id`'s config. */
  clone(id: string): void {
    const s = this.current?.id === id ? this.current : this.sweeps.find(x => x.id === id)
    if (s) this.cloneOf = { ...s.config }
    this.update()
  }

  /** Imports an exported sweep (JSON text) and shows it. */
  async importJson(json: string, name: string): Promise<void> {
    const s = await this.act(`Importing ${name}`, lib => lib.importSweep(json))
    await this.refresh()
    if (s) this.show(s)
  }

  /** Saves file `kind` of sweep `id` (see sweep-files.ts). */
  async download(id: string, kind: SweepDownloadKind): Promise<void> {
    const s = this.current?.id === id ? this.current : this.sweeps.find(x => x.id === id)
    if (!s) return
    const file = await this.act(`Preparing the ${kind} download`, lib => sweepFile(lib, s, kind))
    if (file) downloadFile(file)
  }

  private async run(
    id: string,
    what: string,
    go: (lib: SweepApi, on: (e: SweepEvent) => void) => Promise<SweepState>,
  ): Promise<void> {
    this.active.add(id)
    this.error = undefined
    this.update()
    try {
      const final = await go(sweepApiOf(this.api()), e => this.onEvent(id, e))
      this.upsert(final)
    } catch (e) {
      if (this.current?.id === id) this.error = toErrorView(what, e)
    } finally {
      this.active.delete(id)
      this.stages.delete(id)
    }
    await this.refresh()
  }

  private onEvent(id: string, e: SweepEvent): void {
    if (e.kind === 'stage') this.stages.set(id, { message: e.message, fraction: e.fraction })
    else if (e.kind === 'state') this.upsert(e.state)
    else {
      const s = this.current?.id === id ? this.current : this.sweeps.find(x => x.id === id)
      if (s) this.upsert(withTrial(s, e.trial))
    }
    this.update()
  }

  private upsert(s: SweepState): void {
    this.sweeps = [...this.sweeps.filter(x => x.id !== s.id), s]
    if (this.current?.id === s.id) this.current = s
    this.update()
  }

  private show(s: SweepState): void {
    Object.assign(this, { current: s, error: undefined })
    this.update()
  }

  /** Runs `work` bounded by the deadline; a failure becomes `error` (and undefined). */
  private async act<T>(what: string, work: (lib: SweepApi) => Promise<T>): Promise<T | undefined> {
    try {
      return await this.bounded(work(sweepApiOf(this.api())), what)
    } catch (e) {
      this.error = toErrorView(what, e)
      this.update()
      return undefined
    }
  }

  private bounded<T>(p: Promise<T>, what: string): Promise<T> {
    const ms = this.timeoutMs()
    return withTimeout(p, ms, `${what}: no answer within ${ms / 1000} s`)
  }

  private update(): void {
    this.host.requestUpdate()
  }
}
