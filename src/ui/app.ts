/**
 * `<st-app>`: the app shell and the one mediator between the components and the library API
 * (window.snaptrain). It loads the adapter and the table list on connect, and opens tables and
 * versions when the components ask (`table-select`, `version-select`); a Delta Sharing profile
 * (`profile-open`, ShareController) adds the tables it may read, opened with its access. Under the open table a
 * single training run (`train-start`) or a sweep setup (`sweep-start`); the sweep on screen and
 * the stored sweeps (SweepController) below and in the side bar (`sweep-open`, `sweep-stop`, …).
 * A single run can be stopped (`train-stop`); finished runs go to the Runs list (RunsController:
 * `run-download`, `run-compare`, `run-delete`), two ticked runs are compared side by side.
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
import type { RunDownloadDetail, RunFileKind } from './run-list.ts'
import './run-list.ts'
import './run-results.ts'
import './run-compare.ts'
import { tableName } from './sweep-list.ts'
import './sweep-list.ts'
import './sweep-setup.ts'
import './sweep-view.ts'
import './adapter-panel.ts'
import './train-panel.ts'
import './train-curve.ts'
import './run-explanation.ts'
import './table-list.ts'
import './share-browser.ts'
import './table-view.ts'
import { familyOf } from '../models/registry.ts'

/** The page. Set `api` to drive it with another implementation (tests); default window.snaptrain. */
@customElement('st-app')
export class StApp extends LitElement {
  static styles = [
    baseStyles,
    css`
    :host { --st-accent: #2f6fde; --st-border: #e2e6ee; --st-muted: #5b6473; padding: 0 0 24px; }
    header { display: flex; align-items: baseline; gap: 12px; padding: 12px 24px; background: #fff;
      border-bottom: 1px solid var(--st-border); }
    header h1 { font-size: 18px; margin: 0; }
    main { display: grid; grid-template-columns: minmax(300px, 380px) minmax(0, 1fr); gap: 16px; padding: 16px 24px;
      align-items: start; }
    aside { display: grid; gap: 16px; align-content: start; min-width: 0; }
    section { background: #fff; border: 1px solid var(--st-border); border-radius: 8px; padding: 12px 14px;
      min-width: 0; }
    .train { display: grid; gap: 12px; margin-top: 16px; padding-top: 12px; border-top: 1px solid var(--st-border); }
    .wide { grid-column: 1 / -1; }
    .tabs { display: flex; gap: 6px; }
    @media (max-width: 800px) { main { grid-template-columns: 1fr; } }
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
  }

  render() {
    const t = this.table
    return html`<header><h1>snaptrain</h1>
        <span class="muted">Delta tables → WebGPU training · v${(this.api ?? window.snaptrain)?.version ?? '?'}</span>
      </header>
      <main @table-select=${this.onTableSelect} @version-select=${this.onVersionSelect} @train-start=${this.onTrainStart}
        @train-stop=${() => this.trainer.stop()}
        @run-download=${(e: CustomEvent<RunDownloadDetail>) => {
          void this.runs.download(e.detail.id, e.detail.file)
        }}
        @run-compare=${(e: CustomEvent<{ id: string; on: boolean }>) => {
          void this.runs.toggle(e.detail.id, e.detail.on)
        }}
        @run-delete=${(e: CustomEvent<{ id: string }>) => {
          void this.runs.remove(e.detail.id)
        }}
        @profile-open=${(e: CustomEvent<ProfileOpenDetail>) => {
          void this.shares.open(e.detail)
        }}
        @sweep-start=${(e: CustomEvent<SweepConfig>) => {
          void this.sweeper.start(e.detail)
        }}
        @sweep-stop=${this.sweepAction(id => this.sweeper.stop(id))} @sweep-resume=${this.sweepAction(id => this.sweeper.resume(id))}
        @sweep-open=${this.sweepAction(id => this.sweeper.open(id))} @sweep-delete=${this.sweepAction(id => this.sweeper.remove(id))}
        @sweep-clone=${this.sweepAction(id => this.onClone(id))}
        @sweep-download=${(e: CustomEvent<SweepDownloadDetail>) => {
          void this.sweeper.download(e.detail.id, e.detail.kind)
        }}
        @sweep-import=${(e: CustomEvent<{ json: string; name: string }>) => {
          void this.sweeper.importJson(e.detail.json, e.detail.name)
        }}>
        <aside>
          <section><st-table-list .tables=${this.tables} .state=${this.tablesState} .error=${this.tablesError}
            .selected=${t.table?.name}></st-table-list></section>
          <section><st-share-browser .profile=${this.shares.profile} .shares=${this.shares.shares}
            .state=${this.shares.state} .error=${this.shares.error} .selected=${t.table?.url}></st-share-browser></section>
          <section><st-adapter-panel .adapter=${this.adapter} .state=${this.adapterState}
            .error=${this.adapterError}></st-adapter-panel></section>
          <section><st-run-list .runs=${this.runs.runs} .compared=${this.runs.compared} .state=${this.runs.listState}
            .error=${this.runs.error}></st-run-list></section>
          <section>${this.sweepList()}</section>
        </aside>
        <section>${
          t.table
            ? html`<st-table-view .name=${t.table.name} .url=${t.table.url} .state=${t.state}
            .stage=${t.stage} .error=${t.error} .commits=${t.commits} .snapshot=${t.snapshot} .rows=${t.rows}
            .previewRows=${this.previewRows}></st-table-view>${this.table.snapshot ? this.runBlock() : ''}`
            : html`<p class="muted">Choose a table to see its versions, schema and first rows.</p>`
        }</section>
        ${
          this.runs.comparison.length === 2
            ? html`<section class="wide"><st-run-compare .runs=${this.runs.comparison}></st-run-compare></section>`
            : ''
        }
        ${this.sweeper.current ? html`<section class="wide">${this.sweepView()}</section>` : ''}
      </main>`
  }

  private sweepList() {
    const sw = this.sweeper
    return html`<st-sweep-list .sweeps=${sw.sweeps} .selected=${sw.current?.id} .active=${[...sw.active]}
      .state=${sw.listState} .error=${sw.listError}></st-sweep-list>`
  }

  private sweepView() {
    const sw = this.sweeper,
      s = sw.current!
    return html`<st-sweep-view .state=${s} .stage=${sw.stage} ?active=${sw.active.has(s.id)} .error=${sw.error}
      .importance=${sw.importance} .importanceError=${sw.importanceError}></st-sweep-view>`
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
      .initial=${this.sweeper.cloneOf} ?busy=${this.sweeper.active.size > 0}></st-sweep-setup>`
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
    if (this.table.table?.url !== c.table || this.table.snapshot?.version !== c.version)
      void this.table.open({ name: tableName(c.table), url: c.table }, c.version)
  }

  /** The train panel, live curve and (GBDT) explanation for the open snapshot (trainer state lives in TrainController). */
  private trainBlock() {
    const s = this.table.snapshot,
      tr = this.trainer
    if (!s) return ''
    return html`<div class="train"><st-train-panel .fields=${s.schema.fields} .state=${tr.state} .stage=${tr.stage}
        .error=${tr.error} .result=${tr.result} .progress=${tr.progressView} ?stopping=${tr.stopping}></st-train-panel>
      ${tr.run && tr.state === 'ready' ? this.runFiles(tr.run.id, tr.run.modelFile) : ''}
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

  /** Downloads of the finished run: the files `snaptrain train` writes, same bytes (continue.zip: its continue/ folder). */
  private runFiles(id: string, modelFile: string) {
    const button = (file: RunFileKind, name: string) =>
      html`<button data-file=${file} @click=${() => void this.runs.download(id, file)}>${name}</button>`
    return html`<div class="downloads">Download ${button('model', modelFile)} ${button('manifest', 'manifest.json')}
      ${button('metrics', 'metrics.csv')} ${button('continue', 'continue.zip')}</div>`
  }

  private onTrainStart(e: CustomEvent<TrainStartDetail>) {
    const t = this.table
    if (!t.table || !t.snapshot) return
    const access = this.shares.accessFor(t.table.url)
    void this.trainer.start({ ...t.table, version: t.snapshot.version, ...(access ? { access } : {}) }, e.detail)
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
