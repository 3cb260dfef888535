/**
 * `<st-home-list .runs .sweeps .compared .activeSweeps>`: the page's home list — every kept run
 * and stored sweep together, newest first: name (a link to its view, `#/runs/<id>`,
 * `#/sweeps/<id>`), table@version, model, metric, status, time; a run's tags, a filter over names,
 * tables, models and tags. Ticking two runs offers their comparison (`#/compare/<a>/<b>`). Fires
 * `run-compare` ({id, on}), `run-delete` ({id}), `sweep-resume` / `sweep-delete` (SweepIdDetail)
 * and `sweep-import` ({json, name}) on user action only.
 */
import { LitElement, html, css, nothing } from 'lit'
import { customElement, property, state } from 'lit/decorators.js'
import type { StoredRun } from '../api-types.ts'
import { formatNumber } from './format.ts'
import { formatRoute } from './router.ts'
import { type RunDownloadDetail, runName, runScore } from './run-list.ts'
import { baseStyles } from './styles.ts'
import { tableName } from './table-label.ts'
import type { ErrorView, LoadState, SweepState } from './types.ts'
import './error-view.ts'
import { pickedText } from './file-pick.ts'

/** One line of the list: a run or a sweep. */
interface Line {
  kind: 'run' | 'sweep'
  id: string
  name: string
  table: string
  model: string
  metric: string
  status: string
  createdAt: string
  tags: string[]
}

function runItem(r: StoredRun): Line {
  const version = r.table.version === undefined ? '' : `@v${r.table.version}`
  return {
    kind: 'run',
    id: r.id,
    name: runName(r),
    table: `${r.table.name}${version}`,
    model: r.model,
    metric: runScore(r),
    status: r.stopped ? 'stopped' : 'finished',
    createdAt: r.createdAt,
    tags: r.tags ?? [],
  }
}

function sweepItem(s: SweepState, active: boolean): Line {
  const c = s.config
  const table = tableName(c.table)
  return {
    kind: 'sweep',
    id: s.id,
    name: c.name || `${table} sweep`,
    table: `${table}${c.version === undefined ? '' : `@v${c.version}`}`,
    model: `${c.model} · ${c.strategy} · ${s.trials.length} trials`,
    metric: s.best ? `${c.metric ?? 'auc'} ${formatNumber(s.best.metric)}` : '–',
    status: active ? 'running' : s.status === 'running' ? 'interrupted' : s.status,
    createdAt: s.createdAt,
    tags: [],
  }
}

@customElement('st-home-list')
export class StHomeList extends LitElement {
  static styles = [
    baseStyles,
    css`
    .bar { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; margin-bottom: 8px; }
    .bar input.filter { flex: 1; min-width: 160px; }
    table { width: 100%; border-collapse: collapse; }
    th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid var(--st-border, #e2e6ee); vertical-align: top; }
    th { font-weight: 600; font-size: 12px; color: var(--st-muted, #5b6473); }
    td.name a { font-weight: 600; }
    .kind { font-size: 11px; text-transform: uppercase; color: var(--st-muted, #5b6473); }
    .tag { font-size: 11px; background: #eef2fa; border-radius: 8px; padding: 0 6px; margin-right: 3px; }
    .status-stopped, .status-interrupted { color: var(--st-warn, #b35c00); }
    .status-running { color: var(--st-accent, #2f6fde); } .status-failed { color: var(--st-error, #c62828); }
    td.actions { white-space: nowrap; }
    label.import { font-size: 12px; }
  `,
  ]

  @property({ attribute: false }) runs: StoredRun[] = []
  @property({ attribute: false }) sweeps: SweepState[] = []
  /** Runs ticked for the comparison. */
  @property({ attribute: false }) compared: string[] = []
  /** Ids of sweeps running in this page now (no Resume or Delete for them). */
  @property({ attribute: false }) activeSweeps: string[] = []
  @property() runsState: LoadState = 'idle'
  @property() sweepsState: LoadState = 'idle'
  @property({ attribute: false }) runsError?: ErrorView
  @property({ attribute: false }) sweepsError?: ErrorView
  @state() private filter = ''

  render() {
    const all = [
      ...this.runs.map(runItem),
      ...this.sweeps.map(s => sweepItem(s, this.activeSweeps.includes(s.id))),
    ].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id))
    const words = this.filter.toLowerCase().split(/\s+/).filter(Boolean)
    const shown = all.filter(l => {
      const text = [l.name, l.table, l.model, l.kind, ...l.tags].join(' ').toLowerCase()
      return words.every(w => text.includes(w))
    })
    const loading = this.runsState === 'loading' || this.sweepsState === 'loading'
    const [a, b] = this.compared
    return html`<h2>Runs and sweeps</h2>
      ${this.runsError ? html`<st-error-view .error=${this.runsError}></st-error-view>` : nothing}
      ${this.sweepsError ? html`<st-error-view .error=${this.sweepsError}></st-error-view>` : nothing}
      <div class="bar">
        <input class="filter" type="search" placeholder="Filter by name, table, model or tag" .value=${this.filter}
          @input=${(e: Event) => {
            this.filter = (e.target as HTMLInputElement).value
          }}>
        ${
          a && b
            ? html`<a class="compare-link" href=${formatRoute({ view: 'compare', a, b })}>Compare the 2 ticked runs</a>`
            : html`<span class="muted">Tick two runs to compare them.</span>`
        }
      </div>
      ${
        all.length === 0
          ? html`<p class="muted empty">${loading ? 'Loading…' : 'No runs or sweeps yet. Open a table and train or sweep.'}</p>`
          : html`<table><thead><tr><th></th><th>name</th><th>table</th><th>model</th><th>metric</th><th>status</th>
              <th>time</th><th></th></tr></thead><tbody>${shown.map(l => this.row(l))}</tbody></table>`
      }
      <label class="import muted">Import sweep JSON <input type="file" accept=".json,application/json" @change=${this.onImport}></label>`
  }

  private row(l: Line) {
    const run = l.kind === 'run'
    const href = formatRoute(run ? { view: 'run', id: l.id } : { view: 'sweep', id: l.id })
    const active = !run && this.activeSweeps.includes(l.id)
    const sweep = run ? undefined : this.sweeps.find(s => s.id === l.id)
    const resumable = sweep && sweep.status !== 'finished' && !active
    return html`<tr data-kind=${l.kind} data-run=${run ? l.id : nothing} data-sweep=${run ? nothing : l.id}>
      <td>${
        run
          ? html`<input type="checkbox" class="compare" title="Compare" .checked=${this.compared.includes(l.id)}
            @change=${(e: Event) => this.fire('run-compare', { id: l.id, on: (e.target as HTMLInputElement).checked })}>`
          : nothing
      }</td>
      <td class="name"><span class="kind">${l.kind}</span> <a href=${href}>${l.name}</a>
        ${l.tags.length ? html`<div>${l.tags.map(t => html`<span class="tag">${t}</span>`)}</div>` : nothing}</td>
      <td>${l.table}</td><td>${l.model}</td><td class="metric">${l.metric}</td>
      <td class="status status-${l.status}">${l.status}</td>
      <td class="muted">${new Date(l.createdAt).toLocaleString()}</td>
      <td class="actions">
        ${resumable ? html`<button class="resume" title="Resume" @click=${() => this.fire('sweep-resume', { id: l.id })}>▶</button>` : nothing}
        <button class="delete" title="Delete" ?disabled=${active}
          @click=${() => this.fire(run ? 'run-delete' : 'sweep-delete', { id: l.id })}>✕</button></td>
    </tr>`
  }

  private async onImport(e: Event) {
    const picked = await pickedText(e)
    if (picked) this.fire('sweep-import', { json: picked.text, name: picked.name })
  }

  private fire(name: string, detail: object) {
    this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }))
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-home-list': StHomeList
  }
  interface HTMLElementEventMap {
    'run-download': CustomEvent<RunDownloadDetail>
    'run-compare': CustomEvent<{ id: string; on: boolean }>
    'run-delete': CustomEvent<{ id: string }>
  }
}
