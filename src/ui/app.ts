/**
 * `<st-app>`: the app shell and the one mediator between the components and the library API
 * (window.snaptrain). Its views follow the URL's hash (router.ts): home `#/` — the runs and sweeps
 * (st-home-list), the tables and shares, the open table with its Single run | Sweep form, the
 * adapter as one line that expands; `#/runs/<id>` a run (live while it trains: progress, curve,
 * Stop; then its kept record: st-run-view); `#/sweeps/<id>` a sweep (st-sweep-view);
 * `#/compare/<a>/<b>` two runs side by side. Starting a run or a sweep goes to its view and
 * scrolls it into sight. The header holds the epoch cache's control (st-cache-control: usage, on/off,
 * memory budget, Clear cache). It loads the adapter and the table list on connect, and opens tables and
 * versions when the components ask (`table-select`, `version-select`); a Delta Sharing profile
 * (`profile-open`, ShareController) adds the tables it may read, opened with its access. Runs:
 * TrainController (`train-start`, `train-stop`) and RunsController (`run-rename`, `run-retag`,
 * `run-download`, `run-compare`, `run-delete`); sweeps: SweepController (`sweep-start`,
 * `sweep-stop`, `sweep-resume`, …).
 */
import { LitElement, html, css } from 'lit'
import { customElement, property, state } from 'lit/decorators.js'
import type { CommitInfo, SnaptrainApi } from '../api-types.ts'
import { withTimeout } from '../util/deadline.ts'
import { toErrorView } from './errors.ts'
import { baseStyles } from './styles.ts'
import { TableController } from './table-controller.ts'
import { ShareController } from './share-controller.ts'
import type {
  AdapterView,
  ErrorView,
  LoadState,
  ProfileOpenDetail,
  SweepConfig,
  SweepDownloadDetail,
  SweepIdDetail,
  TableSelectDetail,
  TableView,
  VersionSelectDetail,
} from './types.ts'
import { EXPLAIN_ROWS, TrainController } from './train-controller.ts'
import type { TrainStartDetail } from './train-panel.ts'
import { SweepController } from './sweep-controller.ts'
import { RunsController } from './runs-controller.ts'
import type { RunDownloadDetail } from './run-list.ts'
import './error-view.ts'
import './home-list.ts'
import './run-view.ts'
import './run-results.ts'
import './run-compare.ts'
import { tableName } from './table-label.ts'
import { navigate, parseRoute, type Route } from './router.ts'
import './sweep-setup.ts'
import './sweep-view.ts'
import './adapter-panel.ts'
import './cache-control.ts'
import './train-panel.ts'
import './train-curve.ts'
import './run-explanation.ts'
import './table-list.ts'
import './share-browser.ts'
import './table-view.ts'
import { familyOf } from '../models/registry.ts'
import { rowsFromLog } from '../models/memory-budget.ts'

/** The page. Set `api` to drive it with another implementation (tests); default window.snaptrain. */
@customElement('st-app')
export class StApp extends LitElement {
  static styles = [
    baseStyles,
    css`
    :host { --st-accent: #2f6fde; --st-border: #e2e6ee; --st-muted: #5b6473; padding: 0 0 24px; }
    header { display: flex; align-items: baseline; gap: 12px; padding: 12px 24px; background: #fff;
      border-bottom: 1px solid var(--st-border); flex-wrap: wrap; }
    header h1 { font-size: 18px; margin: 0; }
    header a.home { color: inherit; text-decoration: none; }
    header st-cache-control { margin-left: auto; }
    header details.adapter { margin-left: auto; max-width: 100%; }
    header st-cache-control + details.adapter { margin-left: 0; }
    header details.adapter[open] { flex-basis: 100%; }
    header details.adapter summary { cursor: pointer; color: var(--st-muted); }
    main { padding: 16px 24px; scroll-margin-top: 0; }
    main > [data-view] { scroll-margin-top: 8px; }
    [data-view=home] { display: grid; grid-template-columns: minmax(280px, 340px) minmax(0, 1fr); gap: 16px;
      align-items: start; }
    [data-view=run], [data-view=sweep], [data-view=compare] { display: grid; gap: 12px; }
    aside, .column { display: grid; gap: 16px; align-content: start; min-width: 0; }
    nav.crumbs { display: flex; gap: 8px; align-items: baseline; }
    p.undo { margin: 0 0 8px; }
    section { background: #fff; border: 1px solid var(--st-border); border-radius: 8px; padding: 12px 14px;
      min-width: 0; }
    .train { display: grid; gap: 12px; margin-top: 16px; padding-top: 12px; border-top: 1px solid var(--st-border); }
    .wide { grid-column: 1 / -1; }
    .tabs { display: flex; gap: 6px; }
    @media (max-width: 800px) { [data-view=home] { grid-template-columns: 1fr; } }
  `,
  ]

  @property({ attribute: false }) api?: SnaptrainApi
  /** Folder whose sub-folders are listed as tables (relative to the page). */
  @property({ attribute: 'tables-url' }) tablesUrl = 'tables/'
  @property({ type: Number, attribute: 'preview-rows' }) previewRows = 20
  /** Deadline of each loading step in ms: the page shows an error instead of waiting forever. */
  @property({ type: Number, attribute: 'step-timeout-ms' }) stepTimeoutMs = 60_000

  @state() private adapter?: AdapterView
  @state() private adapterState: LoadState = 'idle'
  @state() private adapterError?: ErrorView
  @state() private tables: TableView[] = []
  @state() private tablesState: LoadState = 'idle'
  @state() private tablesError?: ErrorView
  /** What the block under the open table shows: one training run or a sweep setup. */
  @state() private mode: 'train' | 'sweep' = 'train'
  /** The view on screen (the URL's hash). */
  @state() private route: Route = { view: 'home' }
  /** The view changed: scroll its root into sight after the next render. */
  private scrollPending = false
  private readonly onHash = () => this.enter(parseRoute(location.hash), true)

  private readonly histories = new Map<string, Promise<CommitInfo[]>>()
  private readonly shares = new ShareController(
    this,
    () => this.lib,
    () => this.stepTimeoutMs,
  )
  private readonly table = new TableController(this, () => this.lib, {
    previewRows: () => this.previewRows,
    stepTimeoutMs: () => this.stepTimeoutMs,
    commitsOf: url => this.commitsOf(url),
    accessOf: url => this.shares.accessFor(url),
  })
  private readonly runs = new RunsController(this, () => this.lib)
  private readonly trainer = new TrainController(
    this,
    () => this.lib,
    (run, data) => void this.runs.keep(run, data),
    (id, explanation) => void this.runs.explained(id, explanation),
  )
  private readonly sweeper = new SweepController(
    this,
    () => this.lib,
    () => this.stepTimeoutMs,
    url => this.shares.accessFor(url),
  )

  private get lib(): SnaptrainApi {
    const api = this.api ?? window.snaptrain
    if (!api) throw new Error('window.snaptrain is not installed (src/main.ts must run before <st-app> is defined)')
    return api
  }

  connectedCallback(): void {
    super.connectedCallback()
    if (this.adapterState === 'idle') void this.loadAdapter()
    if (this.tablesState === 'idle') void this.loadTables()
    window.addEventListener('hashchange', this.onHash)
    this.enter(parseRoute(location.hash), false)
  }

  disconnectedCallback(): void {
    window.removeEventListener('hashchange', this.onHash)
    super.disconnectedCallback()
  }

  /** Shows `route`, reading what it names; `scroll`: bring the view into sight (a navigation, not the first load). */
  private enter(route: Route, scroll: boolean) {
    this.route = route
    this.scrollPending = scroll
    if (route.view === 'run' && route.id !== this.trainer.runId) void this.runs.open(route.id)
    else if (route.view === 'sweep' && this.sweeper.current?.id !== route.id) void this.sweeper.open(route.id)
    else if (route.view === 'compare') void this.runs.compare([route.a, route.b])
  }

  protected updated(): void {
    if (!this.scrollPending) return
    this.scrollPending = false
    this.renderRoot.querySelector('main > [data-view]')?.scrollIntoView({ block: 'start' })
  }

  render() {
    return html`<header><a class="home" href="#/"><h1>snaptrain</h1></a>
        <span class="muted">Delta tables → WebGPU training · v${(this.api ?? window.snaptrain)?.version ?? '?'}</span>
        <st-cache-control class="cache" .api=${this.api ?? window.snaptrain}></st-cache-control>
        ${this.adapterLine()}
      </header>
      <main @table-select=${this.onTableSelect} @version-select=${this.onVersionSelect} @train-start=${this.onTrainStart}
        @train-stop=${() => this.trainer.stop()}
        @run-download=${(e: CustomEvent<RunDownloadDetail>) => {
          void this.runs.download(e.detail.id, e.detail.file)
        }}
        @run-compare=${(e: CustomEvent<{ id: string; on: boolean }>) => {
          this.runs.toggle(e.detail.id, e.detail.on)
        }}
        @run-delete=${(e: CustomEvent<{ id: string }>) => {
          void this.runs.remove(e.detail.id)
          if (this.route.view !== 'home') navigate({ view: 'home' })
        }}
        @run-rename=${(e: CustomEvent<{ id: string; name: string }>) => {
          void this.runs.rename(e.detail.id, e.detail.name)
        }}
        @run-retag=${(e: CustomEvent<{ id: string; tags: string[] }>) => {
          void this.runs.retag(e.detail.id, e.detail.tags)
        }}
        @profile-open=${(e: CustomEvent<ProfileOpenDetail>) => {
          void this.shares.open(e.detail)
        }}
        @sweep-start=${(e: CustomEvent<SweepConfig>) => {
          void this.sweeper.start(e.detail)
          // start shows the new sweep before its first await: its id is known now.
          if (this.sweeper.current) navigate({ view: 'sweep', id: this.sweeper.current.id })
        }}
        @sweep-stop=${this.sweepAction(id => this.sweeper.stop(id))}
        @sweep-resume=${this.sweepAction(id => {
          navigate({ view: 'sweep', id })
          return this.sweeper.resume(id)
        })}
        @sweep-open=${this.sweepAction(id => navigate({ view: 'sweep', id }))}
        @sweep-delete=${this.sweepAction(id => {
          if (this.route.view === 'sweep' && this.route.id === id) navigate({ view: 'home' })
          return this.sweeper.remove(id)
        })}
        @sweep-clone=${this.sweepAction(id => this.onClone(id))}
        @sweep-download=${(e: CustomEvent<SweepDownloadDetail>) => {
          void this.sweeper.download(e.detail.id, e.detail.kind)
        }}
        @sweep-import=${(e: CustomEvent<{ json: string; name: string }>) => {
          void this.sweeper.importJson(e.detail.json, e.detail.name)
        }}>${this.view()}</main>`
  }

  /** The adapter as one line; its details expand (open by themselves when WebGPU is missing). */
  private adapterLine() {
    const a = this.adapter
    const line =
      this.adapterState === 'ready' && a
        ? `${a.vendor || 'adapter'}${a.architecture ? ` ${a.architecture}` : ''}${a.isFallbackAdapter ? ' · software adapter' : ''}`
        : this.adapterState === 'error'
          ? 'WebGPU is not available'
          : 'Requesting the adapter…'
    return html`<details class="adapter" ?open=${this.adapterState === 'error'}><summary>${line}</summary>
      <st-adapter-panel .adapter=${this.adapter} .state=${this.adapterState} .error=${this.adapterError}></st-adapter-panel>
    </details>`
  }

  private view() {
    const r = this.route
    const back = html`<nav class="crumbs"><a href="#/">← Runs and sweeps</a></nav>`
    switch (r.view) {
      case 'run':
        return html`<section data-view="run" data-run=${r.id}>${back}${this.runView(r.id)}</section>`
      case 'sweep':
        return html`<section data-view="sweep" data-sweep=${r.id}>${back}${this.sweepView(r.id)}</section>`
      case 'compare':
        return html`<section data-view="compare">${back}${
          this.runs.comparison.length === 2
            ? html`<st-run-compare .runs=${this.runs.comparison}></st-run-compare>`
            : html`<p class="muted" role="status">Reading runs ${r.a} and ${r.b}…</p>`
        }</section>`
      default:
        return this.home()
    }
  }

  private home() {
    const t = this.table,
      runs = this.runs,
      sw = this.sweeper
    return html`<div data-view="home">
      <aside>
        <section><st-table-list .tables=${this.tables} .state=${this.tablesState} .error=${this.tablesError}
          .selected=${t.table?.name}></st-table-list></section>
        <section><st-share-browser .profile=${this.shares.profile} .shares=${this.shares.shares}
          .state=${this.shares.state} .error=${this.shares.error} .selected=${t.table?.url}></st-share-browser></section>
      </aside>
      <div class="column">
        ${
          t.table
            ? html`<section><st-table-view .name=${t.table.name} .url=${t.table.url} .state=${t.state}
            .stage=${t.stage} .error=${t.error} .commits=${t.commits} .snapshot=${t.snapshot} .rows=${t.rows}
            .previewRows=${this.previewRows}></st-table-view>${t.snapshot ? this.runBlock() : ''}</section>`
            : ''
        }
        <section>${
          runs.deleted
            ? html`<p class="undo">Deleted run <b>${runs.deleted.run.name}</b>.
              <button class="undo" @click=${() => void runs.undo()}>Undo</button></p>`
            : ''
        }<st-home-list .runs=${runs.runs} .sweeps=${sw.sweeps} .compared=${runs.compared} .activeSweeps=${[...sw.active]}
          .runsState=${runs.listState} .runsError=${runs.error} .sweepsState=${sw.listState}
          .sweepsError=${sw.listError}></st-home-list></section>
        ${t.table ? '' : html`<p class="muted">Choose a table to see its versions, schema and first rows, and to train on it.</p>`}
      </div>
    </div>`
  }

  private sweepView(id: string) {
    const sw = this.sweeper,
      s = sw.current
    if (!s || s.id !== id)
      return sw.error
        ? html`<st-error-view .error=${sw.error}></st-error-view>`
        : html`<p class="muted" role="status">Reading sweep ${id}…</p>`
    return html`<st-sweep-view .state=${s} .stage=${sw.stage} ?active=${sw.active.has(s.id)} .error=${sw.error}
      .importance=${sw.importance} .importanceError=${sw.importanceError}></st-sweep-view>`
  }

  /**
   * Run `id`: while this page trains it, the live panel (progress, Stop), curve and, once finished,
   * results and explanation, under its kept record (name, tags, downloads, parameters, manifest);
   * any other run from its kept record (st-run-view), after a reload too.
   */
  private runView(id: string) {
    const tr = this.trainer,
      runs = this.runs
    if (tr.runId === id) {
      const kept = tr.run && runs.runs.find(r => r.id === id)
      return html`${kept ? html`<st-run-view .run=${kept} live></st-run-view>` : ''}${this.trainBlock(true)}`
    }
    if (runs.detailState === 'error') return html`<st-error-view .error=${runs.detailError}></st-error-view>`
    const d = runs.detail
    if (!d || d.run.id !== id) return html`<p class="muted" role="status">Reading run ${id}…</p>`
    return html`<st-run-view .run=${d.run} .data=${d.data} max-rows=${EXPLAIN_ROWS}></st-run-view>`
  }

  /** Tabs (single run | sweep) and the chosen block under the open snapshot. */
  private runBlock() {
    const tab = (
      m: 'train' | 'sweep',
      label: string,
    ) => html`<button data-mode=${m} aria-pressed=${this.mode === m ? 'true' : 'false'}
      @click=${() => {
        this.mode = m
      }}>${label}</button>`
    return html`<div class="tabs">${tab('train', 'Single run')}${tab('sweep', 'Sweep')}</div>
      ${this.mode === 'train' ? this.trainBlock() : this.sweepSetup()}`
  }

  private sweepSetup() {
    const s = this.table.snapshot!,
      t = this.table.table!,
      lib = this.sweeper.lib
    return html`<st-sweep-setup .fields=${s.schema.fields} .table=${{ url: t.url, version: s.version }}
      .spaceOf=${lib && ((m: SweepConfig['model']) => lib.defaultSpace(m))} .planner=${lib && ((c: SweepConfig) => lib.planSweep(c))}
      .initial=${this.sweeper.cloneOf} ?busy=${this.sweeper.active.size > 0} .adapter=${this.adapter}
      .rows=${rowsFromLog(s)}></st-sweep-setup>`
  }

  /** Handler of an event naming one sweep. */
  private sweepAction(act: (id: string) => unknown) {
    return (e: CustomEvent<SweepIdDetail>) => {
      void act(e.detail.id)
    }
  }

  /** Clone and edit: open the sweep's table at its version and refill the setup form. */
  private onClone(id: string) {
    this.sweeper.clone(id)
    const c = this.sweeper.cloneOf
    if (!c) return
    this.mode = 'sweep'
    navigate({ view: 'home' })
    if (this.table.table?.url !== c.table || this.table.snapshot?.version !== c.version)
      void this.table.open({ name: tableName(c.table), url: c.table }, c.version)
  }

  /**
   * The train panel: on home the form with the run's progress and Stop; in the run view (`live`) the
   * panel's status only (progress, Stop, error, result; no form), the live curve and, once finished,
   * the results and (GBDT) explanation (trainer state lives in TrainController).
   */
  private trainBlock(live = false) {
    const s = this.table.snapshot,
      tr = this.trainer
    if (!s) return ''
    const panel = html`<st-train-panel .fields=${s.schema.fields} .state=${tr.state} .stage=${tr.stage}
        .error=${tr.error} .result=${tr.result} .progress=${tr.progressView} ?stopping=${tr.stopping}
        .adapter=${this.adapter} .rows=${rowsFromLog(s)} ?live=${live}></st-train-panel>`
    if (!live) return html`<div class="train">${panel}</div>`
    return html`<div class="train">${panel}
      ${
        tr.validation && tr.task && tr.state === 'ready'
          ? html`<st-run-results .task=${tr.task} .validation=${tr.validation}
            .metrics=${tr.result?.eval ?? {}}></st-run-results>`
          : ''
      }
      ${
        tr.history.length || tr.state === 'loading'
          ? html`<st-train-curve .history=${tr.history}
        x-label=${familyOf(tr.model).evaluation}></st-train-curve>`
          : ''
      }
      ${
        tr.explainState === 'idle'
          ? ''
          : html`<st-run-explanation .state=${tr.explainState} .error=${tr.explainError}
        .explanation=${tr.explanation} max-rows=${EXPLAIN_ROWS}></st-run-explanation>`
      }</div>`
  }

  private onTrainStart(e: CustomEvent<TrainStartDetail>) {
    const t = this.table
    if (!t.table || !t.snapshot) return
    const access = this.shares.accessFor(t.table.url)
    void this.trainer.start({ ...t.table, version: t.snapshot.version, ...(access ? { access } : {}) }, e.detail)
    // start gives the run its id before its first await: its view can open now.
    if (this.trainer.runId) navigate({ view: 'run', id: this.trainer.runId })
  }

  private onTableSelect(e: CustomEvent<TableSelectDetail>) {
    if (this.table.table?.url !== e.detail.url) this.trainer.reset()
    void this.table.open(e.detail)
  }

  private onVersionSelect(e: CustomEvent<VersionSelectDetail>) {
    if (this.table.table) void this.table.open(this.table.table, e.detail.version)
  }

  private async loadAdapter() {
    this.adapterState = 'loading'
    try {
      this.adapter = await this.bounded(this.lib.adapterInfo(), 'requesting the adapter')
      this.adapterState = 'ready'
    } catch (e) {
      this.adapterError = toErrorView('Requesting the WebGPU adapter', e)
      this.adapterState = 'error'
    }
  }

  private async loadTables() {
    this.tablesState = 'loading'
    try {
      const listed = await this.bounded(this.lib.listTables(this.tablesUrl), 'listing tables')
      this.tables = listed.map(t => ({ ...t }))
      this.tablesState = 'ready'
    } catch (e) {
      this.tablesError = toErrorView(`Listing tables under ${this.tablesUrl}`, e)
      this.tablesState = 'error'
      return
    }
    await Promise.all(this.tables.map(t => this.loadLatest(t)))
  }

  /** Fills in a table's latest version; a failure shows up when the table is opened. */
  private async loadLatest(t: TableView) {
    const commits = await this.commitsOf(t.url).catch(() => [])
    const latest = commits.reduce((m, c) => Math.max(m, c.version), -1)
    this.tables = this.tables.map(x => (x.url === t.url ? { ...x, latestVersion: latest < 0 ? undefined : latest } : x))
  }

  private bounded<T>(p: Promise<T>, what: string): Promise<T> {
    return withTimeout(p, this.stepTimeoutMs, `${what}: no answer within ${this.stepTimeoutMs / 1000} s`)
  }

  private commitsOf(url: string): Promise<CommitInfo[]> {
    let p = this.histories.get(url)
    if (!p) {
      const access = this.shares.accessFor(url)
      p = this.bounded(this.lib.listCommits(url, access && { access }), `listing commits of ${url}`)
      this.histories.set(url, p)
      p.catch(() => this.histories.delete(url)) // let a later click retry
    }
    return p
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-app': StApp
  }
}
